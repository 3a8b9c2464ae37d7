// What the reference executor does at the edges of memory and of a plan's
// validity, on every backend: an arena or a tensor the host cannot hold is
// refused before allocating and names the bytes, an arena stated beyond the
// storages runs in the extent they use, wasm32 keeps sizes 64-bit, and an
// invalid plan is refused before running (run anyway, its outputs differ).
// After each refusal the session still plans and executes correctly.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TensorplanError, init } from '../../dist/index.mjs';
import type { GraphDocument, PlanDocument } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';
import { EXACT_OPS, randomGraph, randomInputs } from './random-graphs';

describe.each(BACKENDS)('reference executor limits on %s', (backend) => {
  const tp = session(backend);

  /** Catches what `run` throws (or undefined). */
  const thrown = async (run: () => unknown): Promise<unknown> => {
    try {
      await run();
    } catch (e) {
      return e;
    }
    return undefined;
  };

  /** The plan with its last arena storage moved to `offset` and the arena stated as `arenaBytes`. */
  const moved = (plan: PlanDocument, offset: number, arenaBytes: number): PlanDocument => {
    const storages = plan.storages.map((s) => ({ ...s }));
    storages[storages.length - 1].offset = offset;
    return { ...plan, storages, arenaBytes };
  };

  it('a valid plan whose arena the host cannot hold: OUT_OF_MEMORY natively, OUT_OF_RANGE on wasm32 (before allocating), naming the bytes; the session then executes normally', async () => {
    const graph = randomGraph(3, EXACT_OPS);
    const plan = tp.plan(graph);
    const inputs = randomInputs(graph, 3);
    const expected = tp.executeReference(plan, inputs);
    // The last storage at 2^52 - 4096 in an arena of 2^52: valid (validate says so), and its
    // extent is beyond any 47-bit address space and far beyond WASM's 4 GiB heap.
    const last = plan.storages[plan.storages.length - 1];
    expect(last.bytes).toBeLessThanOrEqual(4096);
    const huge = moved(plan, 2 ** 52 - 4096, 2 ** 52);
    expect(tp.validate(huge)).toEqual([]);
    const need = 2 ** 52 - 4096 + last.bytes;
    const expectedError = backend === 'wasm'
      ? { code: 'OUT_OF_RANGE', message: expect.stringContaining(`arena = ${need} bytes: beyond the 4294967295 bytes this build can address`) }
      : { code: 'OUT_OF_MEMORY', message: expect.stringContaining(`arena: cannot allocate ${need} bytes`) };
    const error = await thrown(() => tp.executeReference(huge, inputs));
    expect(error).toBeInstanceOf(TensorplanError);
    expect(error).toMatchObject(expectedError);
    await expect(tp.execute(huge, inputs)).rejects.toMatchObject(expectedError);
    expect(tp.executeReference(plan, inputs)).toEqual(expected);
    expect((await tp.execute(plan, inputs)).outputs).toEqual(expected.outputs);
  });

  it('a plan stating an arena far beyond its storages (2^40, 2^52) runs in the extent they use, with the same outputs', async () => {
    const graph = randomGraph(5, EXACT_OPS);
    const plan = tp.plan(graph);
    const inputs = randomInputs(graph, 5);
    const expected = tp.executeReference(plan, inputs);
    const extent = Math.max(0, ...plan.storages.map((s) => s.offset + s.bytes));
    for (const arenaBytes of [2 ** 40, 2 ** 52]) {
      const stated = { ...plan, arenaBytes };
      expect(tp.validate(stated)).toEqual([]);
      const result = tp.executeReference(stated, inputs);
      expect(result.outputs).toEqual(expected.outputs);
      expect(result.peakBytes).toBe(extent);
      expect((await tp.execute(stated, inputs)).peakBytes).toBe(extent);
    }
  });

  it('a tensor of 2^40 bytes (2^52 natively) is refused before any allocation: OUT_OF_RANGE on wasm32, OUT_OF_MEMORY natively', async () => {
    const big = backend === 'wasm' ? 2 ** 40 : 2 ** 52;
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [{ name: 'x', shape: [2, 2], dtype: 'fp32' }, { name: 'big', bytes: big }, { name: 'y', shape: [2, 2], dtype: 'fp32' }],
      ops: [
        { name: 'fill', op: 'fill', inputs: [], outputs: ['big'], attributes: { value: 1 } },
        { name: 'relu', op: 'relu', inputs: ['x'], outputs: ['y'] },
      ],
      inputs: ['x'], outputs: ['y'],
    };
    const plan = tp.plan(graph);
    expect(tp.validate(plan)).toEqual([]);
    const inputs = { x: new Float32Array([1, -2, 3, -4]) };
    const error = await thrown(() => tp.executeReference(plan, inputs));
    expect(error).toBeInstanceOf(TensorplanError);
    expect(error).toMatchObject(backend === 'wasm'
      ? { code: 'OUT_OF_RANGE', message: expect.stringMatching(/^arena = \d+ bytes: beyond the 4294967295 bytes this build can address \(wasm32/) }
      : { code: 'OUT_OF_MEMORY', message: expect.stringMatching(/^arena: cannot allocate \d+ bytes/) });
    const separate = await thrown(() => tp.executeReference(plan, inputs, { memory: 'separate' }));
    expect(separate).toMatchObject(backend === 'wasm'
      ? { code: 'OUT_OF_RANGE', message: expect.stringContaining(`storage of "big" = ${big} bytes: beyond the 4294967295 bytes`) }
      : { code: 'OUT_OF_MEMORY', message: `storage of "big": cannot allocate ${big} bytes` });
    const small = tp.plan({ ...graph, tensors: [graph.tensors[0], { name: 'big', bytes: 16 }, graph.tensors[2]] });
    expect(Array.from(new Float32Array(tp.executeReference(small, inputs).outputs.y.buffer))).toEqual([1, 0, 3, 0]);
  });

  it('an invalid plan (overlapping storages) is refused before running, naming the diagnostics; skipPlanCheck runs it and the oracle sees other outputs', async () => {
    const graph = randomGraph(7, EXACT_OPS);
    const plan = tp.plan(graph);
    const inputs = randomInputs(graph, 7);
    const overlapping: PlanDocument = { ...plan, storages: plan.storages.map((s) => ({ ...s, offset: 0 })) };
    const diagnostics = tp.validate(overlapping);
    expect(diagnostics.some((d) => d.code === 'OVERLAP')).toBe(true);
    const refusal = { code: 'INVALID_ARGUMENT', message: expect.stringMatching(new RegExp(`^the plan is invalid \\(${diagnostics.length} diagnostics?; tp_plan_validate lists them\\): OVERLAP: `)) };
    for (const memory of ['arena', 'separate'] as const) {
      expect(await thrown(() => tp.executeReference(overlapping, inputs, { memory }))).toMatchObject(refusal);
      await expect(tp.execute(overlapping, inputs, { memory })).rejects.toMatchObject(refusal);
    }
    const first = diagnostics[0].message;
    expect((await thrown(() => tp.executeReference(overlapping, inputs)) as Error).message).toContain(first);
    // Outside the arena is refused too, even when the plan check is skipped.
    const outside = moved(plan, plan.arenaBytes, plan.arenaBytes);
    expect(await thrown(() => tp.executeReference(outside, inputs))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('OUTSIDE_ARENA') });
    expect(await thrown(() => tp.executeReference(outside, inputs, { skipPlanCheck: true }))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('is outside the arena') });
    // Run as stated: the arena run differs from the separate allocations (the oracle's catch).
    const separate = tp.executeReference(overlapping, inputs, { memory: 'separate', skipPlanCheck: true });
    const arena = tp.executeReference(overlapping, inputs, { skipPlanCheck: true });
    expect(arena.outputs).not.toEqual(separate.outputs);
    expect(separate.outputs).toEqual(tp.executeReference(plan, inputs).outputs);
    expect((await tp.execute(overlapping, inputs, { skipPlanCheck: true })).outputs).toEqual(arena.outputs);
  });

  it('wasm32 sizes stay 64-bit: an arena of 2^31 runs (or is OUT_OF_MEMORY), offsets past 2^32 are OUT_OF_RANGE; the same session then plans like a fresh one and executes correctly', async () => {
    // A session of its own: the 2 GiB heap it may grow goes away with it.
    const own = await init({ backend });
    const graph = randomGraph(11, EXACT_OPS);
    const plan = own.plan(graph);
    const inputs = randomInputs(graph, 11);
    const expected = own.executeReference(plan, inputs);
    const last = plan.storages[plan.storages.length - 1];
    // Extent exactly 2^31: the last storage ends there.
    const at2g = moved(plan, 2 ** 31 - 4096, 2 ** 31);
    expect(own.validate(at2g)).toEqual([]);
    try {
      expect(own.executeReference(at2g, inputs).outputs).toEqual(expected.outputs);
    } catch (error) {
      expect(error).toMatchObject({ code: 'OUT_OF_MEMORY', message: `arena: cannot allocate ${2 ** 31 - 4096 + last.bytes} bytes` });
    }
    for (const offset of [2 ** 32, 2 ** 32 + 4096, 2 ** 40]) {
      const far = moved(plan, offset, offset + 4096);
      expect(own.validate(far)).toEqual([]);
      let error: unknown;
      try {
        // 64-bit hosts may hold it (lazily zeroed pages): then the outputs must be right.
        expect(own.executeReference(far, inputs).outputs).toEqual(expected.outputs);
      } catch (e) {
        error = e;
      }
      if (backend === 'wasm') {
        expect(error).toBeInstanceOf(TensorplanError);
        expect(error).toMatchObject({ code: 'OUT_OF_RANGE', message: expect.stringContaining(`arena = ${offset + last.bytes} bytes: beyond the 4294967295 bytes`) });
      } else if (error !== undefined) {
        expect((error as TensorplanError).code).toBe('OUT_OF_MEMORY');
      }
    }
    // Health probe: plans an example identically to a fresh session, executes a small plan correctly.
    const example = JSON.parse(readFileSync(new URL('../../examples/mlp-training.graph.json', import.meta.url), 'utf8')) as GraphDocument;
    const fresh = await init({ backend });
    const planned = (session: typeof own) => JSON.stringify({ ...session.plan(example), statistics: { ...session.plan(example).statistics, timeMs: 0 } });
    expect(planned(own)).toBe(planned(fresh));
    expect(own.executeReference(plan, inputs)).toEqual(expected);
    expect(own.validate(plan)).toEqual([]);
  });
});
