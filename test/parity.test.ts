// WASM and native must return identical results, and identical errors, for identical input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DTYPES } from '../dist/index.mjs';
import { BOTH_BACKENDS, session } from './backends';

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
});
