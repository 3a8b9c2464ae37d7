// The CUDA executor against the reference executor: bit-identical where the
// numerics are exact, within a stated tolerance where the GPU accumulates or
// fuses differently, one device allocation per plan, user-provided arenas,
// alignment checked before any kernel, and an event loop that keeps running.
import { describe, expect, it } from 'vitest';
import { init } from '../../dist/index.mjs';
import type { GraphDocument, PlanDocument } from '../../dist/index.mjs';
import { ALL_OPS, EXACT_OPS, randomGraph, randomInputs } from './random-graphs';

// GPU tests: they need a cuda session (the addon built with nvcc and a usable device).
const cuda = await init({ backend: 'cuda' }).then((s) => ({ session: s, reason: '' }),
  (error: Error) => ({ session: null, reason: error.message }));
if (!cuda.session) console.warn(`[tests] GPU execution tests skipped: ${cuda.reason}`);

/** Max |a - b| relative to max(1, |b|) over two float buffers of one dtype. */
function maxRelativeError(a: Uint8Array, b: Uint8Array, dtype: string): number {
  const read = (bytes: Uint8Array): number[] => {
    if (dtype === 'fp32') return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
    const u16 = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
    const f = new Float32Array(1);
    const u = new Uint32Array(f.buffer);
    return Array.from(u16, (h) => {
      if (dtype === 'bf16') { u[0] = h << 16; return f[0]; }
      const e = (h >> 10) & 0x1f, m = h & 0x3ff, s = h & 0x8000 ? -1 : 1;
      return e === 0 ? s * m * 2 ** -24 : e === 31 ? (m ? Number.NaN : s * Infinity) : s * (1 + m / 1024) * 2 ** (e - 15);
    });
  };
  const x = read(a), y = read(b);
  let worst = 0;
  x.forEach((v, i) => {
    if (Number.isNaN(v) && Number.isNaN(y[i])) return;
    worst = Math.max(worst, Math.abs(v - y[i]) / Math.max(1, Math.abs(y[i])));
  });
  return worst;
}

describe.skipIf(!cuda.session)('CUDA executor (GPU)', () => {
  const tp = cuda.session!;

  it('data movement and exact ops are bit-identical to the reference; one device allocation per plan; traces verify', async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const graph = randomGraph(seed, ['copy', 'transpose', 'fill', 'relu', 'add', 'mul', 'scale', 'amax', 'relu_backward'], true);
      const plan = tp.plan(graph);
      const inputs = randomInputs(graph, seed);
      const before = tp.deviceAllocationCount();
      const gpu = await tp.execute(plan, inputs);
      expect(gpu.executor).toBe('cuda');
      expect(tp.deviceAllocationCount() - before).toBe(plan.arenaBytes + (graph.persistent?.length ?? 0) > 0 ? 1 : 0);
      expect(gpu.allocations).toBeLessThanOrEqual(1);
      expect(gpu.outputs).toEqual(tp.executeReference(plan, inputs).outputs);
      expect(tp.verifyTrace(graph, plan.schedule, gpu.trace)).toEqual([]);
    }
  });

  it('matmul, norms, softmax and activations within 1e-3 relative of the reference (fp32 accumulation, FMA)', async () => {
    for (let seed = 100; seed < 130; seed++) {
      const graph = randomGraph(seed, ALL_OPS, true);
      const plan = tp.plan(graph);
      const inputs = randomInputs(graph, seed);
      const gpu = await tp.execute(plan, inputs);
      const ref = tp.executeReference(plan, inputs);
      for (const name of graph.outputs ?? []) {
        const t = graph.tensors.find((z) => z.name === name)!;
        const tolerance = t.dtype === 'fp32' ? 1e-3 : t.dtype === 'bf16' ? 3e-2 : 5e-3;
        expect(maxRelativeError(gpu.outputs[name], ref.outputs[name], t.dtype!), `${graph.name} ${name}`).toBeLessThanOrEqual(tolerance);
      }
    }
  });

  it('quantize and dequantize are bit-exact with the reference numerics', async () => {
    for (const recipe of ['fp8_current', 'mxfp8', 'nvfp4', 'fp8_block_1d', 'fp8_block_2d'] as const) {
      const format = { shape: [128, 128], dtype: 'bf16' as const, recipe, columnwise: false };
      const buffers = tp.tensorSpecBuffers(format).buffers;
      const graph: GraphDocument = {
        format: 'tensorplan.graph', version: 1,
        tensors: [{ name: 'x', shape: [128, 128], dtype: 'bf16' }, ...buffers.map((b, i) => ({ name: `b${i}`, bytes: b.bytes })),
          { name: 'y', shape: [128, 128], dtype: 'bf16' }],
        ops: [
          { name: 'q', op: 'quantize', inputs: ['x'], outputs: buffers.map((_, i) => `b${i}`), attributes: { recipe, columnwise: false } },
          { name: 'dq', op: 'dequantize', inputs: buffers.map((_, i) => `b${i}`), outputs: ['y'], attributes: { recipe, columnwise: false } },
        ],
        inputs: ['x'], outputs: [...buffers.map((_, i) => `b${i}`), 'y'],
      };
      const plan = tp.plan(graph);
      const inputs = randomInputs(graph, 5);
      expect((await tp.execute(plan, inputs)).outputs).toEqual(tp.executeReference(plan, inputs).outputs);
    }
  });

  it('runs in a user-provided arena, which dispose() frees; a disposed arena is refused', async () => {
    const graph = randomGraph(7, EXACT_OPS, true);
    const plan = tp.plan(graph);
    const inputs = randomInputs(graph, 7);
    const arena = tp.createDeviceArena(tp.planDeviceBytes(plan));
    const before = tp.deviceAllocationCount();
    const result = await tp.execute(plan, inputs, { arena });
    expect(tp.deviceAllocationCount()).toBe(before);
    expect(result.allocations).toBe(0);
    arena.dispose();
    expect(arena.disposed).toBe(true);
    await expect(tp.execute(plan, inputs, { arena })).rejects.toThrow(/disposed/);
  });

  it('refuses a plan that puts an fp32 tensor off its element alignment before any kernel runs; the session then runs the aligned plan', async () => {
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [{ name: 'x', shape: [4], dtype: 'fp32', alignment: 1 }, { name: 'y', shape: [4], dtype: 'fp32', alignment: 1 }],
      ops: [{ name: 'r', op: 'relu', inputs: ['x'], outputs: ['y'] }],
      inputs: ['x'], outputs: ['y'],
    };
    const plan = tp.plan(graph);
    const at = (yOffset: number): PlanDocument => ({
      ...plan, arenaBytes: yOffset + 16,
      storages: plan.storages.map((s) => ({ ...s, offset: s.tensors[0] === 'y' ? yOffset : 0 })),
    });
    const inputs = randomInputs(graph, 3);
    await expect(tp.execute(at(18), inputs)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('tensor "y" (fp32) starts 2 byte(s) past a multiple of 4 on the device'),
    });
    const aligned = at(16);
    expect((await tp.execute(aligned, inputs)).outputs).toEqual(tp.executeReference(aligned, inputs).outputs);
  });

  it('never blocks the event loop while the GPU works', async () => {
    const graph = randomGraph(9, ALL_OPS, true);
    const plan = tp.plan(graph);
    let ticks = 0;
    const timer = setInterval(() => { ticks++; }, 0);
    const pending = tp.execute(plan, randomInputs(graph, 9));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await pending;
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });
});
