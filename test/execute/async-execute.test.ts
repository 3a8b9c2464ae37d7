// tp.execute() without a GPU: the reference executor off the calling thread,
// with the results and errors of executeReference, and a clear refusal when
// the cuda executor is named.
import { describe, expect, it } from 'vitest';
import { TensorplanError } from '../../dist/index.mjs';
import type { GraphDocument } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';
import { EXACT_OPS, randomGraph, randomInputs } from './random-graphs';

describe.each(BACKENDS)('execute() on %s without a GPU session', (backend) => {
  const tp = session(backend);
  it('runs the reference executor asynchronously and says so; naming cuda rejects with the reason', async () => {
    const graph = randomGraph(11, EXACT_OPS);
    const plan = tp.plan(graph);
    const inputs = randomInputs(graph, 11);
    const result = await tp.execute(plan, inputs);
    expect(result.executor).toBe('reference');
    expect(result.outputs).toEqual(tp.executeReference(plan, inputs).outputs);
    await expect(tp.execute(plan, inputs, { executor: 'cuda' })).rejects.toThrow(/needs a cuda session; this one runs on/);
    expect(() => tp.createDeviceArena(1024)).toThrow(/needs a cuda session/);
  });
});

describe.runIf(BACKENDS.includes('native'))('execute() with the reference executor on native', () => {
  // A chain of 12 fp32 matmuls of [192, 192]: ~90 MFLOP, tens of ms in the reference kernels.
  const n = 192;
  const graph: GraphDocument = {
    format: 'tensorplan.graph', version: 1,
    tensors: [{ name: 'x', shape: [n, n], dtype: 'fp32' }, { name: 'w', shape: [n, n], dtype: 'fp32' },
      ...Array.from({ length: 12 }, (_, i) => ({ name: `t${i}`, shape: [n, n], dtype: 'fp32' as const }))],
    ops: Array.from({ length: 12 }, (_, i) => ({ name: `mm${i}`, op: 'matmul', inputs: [i === 0 ? 'x' : `t${i - 1}`, 'w'], outputs: [`t${i}`] })),
    inputs: ['x', 'w'], outputs: ['t11'],
  };

  it('runs on a worker thread: the call returns at once, callbacks run meanwhile, results equal executeReference', async () => {
    const tp = session('native');
    const plan = tp.plan(graph);
    const inputs = randomInputs(graph, 5);
    const started = performance.now();
    const expected = tp.executeReference(plan, inputs);
    const syncMs = performance.now() - started;
    let settled = false;
    let callbackSawPending = false;
    const callAt = performance.now();
    const pending = tp.execute(plan, inputs).then((r) => { settled = true; return r; });
    const callMs = performance.now() - callAt;
    setImmediate(() => { callbackSawPending = !settled; });
    const result = await pending;
    expect(result.executor).toBe('reference');
    expect(result.outputs).toEqual(expected.outputs);
    expect(result.trace).toEqual(expected.trace);
    // Encoding the arguments is all the calling thread does.
    expect(callMs).toBeLessThan(syncMs / 2);
    expect(callbackSawPending).toBe(true);
  });

  it('rejects bad input with the same error as executeReference', async () => {
    const tp = session('native');
    const plan = tp.plan(graph);
    let syncError: TensorplanError | undefined;
    try {
      tp.executeReference(plan, { x: new Float32Array(n * n) });
    } catch (error) {
      syncError = error as TensorplanError;
    }
    expect(syncError).toBeInstanceOf(TensorplanError);
    await expect(tp.execute(plan, { x: new Float32Array(n * n) })).rejects.toMatchObject({ code: syncError!.code, message: syncError!.message });
  });
});
