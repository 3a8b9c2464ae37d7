// WASM and native must return identical results, and identical errors, for identical input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DTYPES, SCHEDULE_METHODS } from '../../dist/index.mjs';
import type { GraphDocument, ScheduleMethod } from '../../dist/index.mjs';
import { BOTH_BACKENDS, session } from '../support/backends';

function outcome(run: () => unknown): unknown {
  try {
    return { ok: run() };
  } catch (error) {
    return { error: String(error), code: (error as { code?: string }).code };
  }
}

describe.skipIf(!BOTH_BACKENDS)('parity of wasm and native', () => {
  it('bulk layouts of random tensor lists, including invalid ones, are identical', () => {
    const wasm = session('wasm');
    const native = session('native');
    const dim = fc.oneof(fc.integer({ min: 0, max: 1 << 20 }), fc.constantFrom(-1, 0.5, 2 ** 53, 2 ** 60, Number.NaN));
    const tensor = fc.record({
      shape: fc.array(dim, { maxLength: 4 }),
      dtype: fc.constantFrom(...DTYPES),
      alignment: fc.option(fc.oneof(fc.integer({ min: 0, max: 12 }).map((k) => 2 ** k), fc.constantFrom(3, 24)), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(tensor, { maxLength: 20 }), (tensors) => {
        expect(outcome(() => native.bulkLayout(tensors))).toEqual(outcome(() => wasm.bulkLayout(tensors)));
      }),
      { numRuns: 500 },
    );
  });

  it('schedules and liveness of random graphs, including invalid ones, are identical', () => {
    const wasm = session('wasm');
    const native = session('native');
    // Timings differ between backends by nature; everything else must not.
    const withoutTimes = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (key, v) => (key === 'seconds' || key === 'searchSeconds' ? 0 : v)));
    const size = fc.oneof(fc.integer({ min: 0, max: 1 << 20 }), fc.constantFrom(-1, 0.5, 2 ** 60));
    const graphArb = fc.record({
      sizes: fc.array(size, { minLength: 1, maxLength: 8 }),
      picks: fc.array(fc.nat(), { minLength: 2, maxLength: 16 }),
      method: fc.constantFrom(...SCHEDULE_METHODS),
    });
    fc.assert(
      fc.property(graphArb, ({ sizes, picks, method }) => {
        const tensors = [{ name: 'in', bytes: 4096 }, ...sizes.map((bytes, i) => ({ name: `t${i}`, bytes }))];
        const name = (k: number) => (k === 0 ? 'in' : `t${k - 1}`);
        // Reads may point forward: some graphs have cycles, on purpose.
        const ops = sizes.map((_, i) => ({
          name: `op${i}`,
          op: 'f',
          inputs: [...new Set([name(picks[(2 * i) % picks.length] % (sizes.length + 1)), name(picks[(2 * i + 1) % picks.length] % (i + 1))])],
          outputs: [`t${i}`],
        }));
        const graph: GraphDocument = { format: 'tensorplan.graph', version: 1, tensors, ops, inputs: ['in'], outputs: [`t${sizes.length - 1}`] };
        const options = { method: method as ScheduleMethod, timeLimitSeconds: 30 };
        expect(withoutTimes(outcome(() => native.schedule(graph, options)))).toEqual(withoutTimes(outcome(() => wasm.schedule(graph, options))));
        expect(outcome(() => native.liveness(graph))).toEqual(outcome(() => wasm.liveness(graph)));
      }),
      { numRuns: 200 },
    );
  });
});
