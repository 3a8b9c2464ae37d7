// Execution (issue 7): the reference executor on every backend, and the
// planner's oracle: random valid graphs of op set v1 executed in the planned
// arena and with one allocation per storage give bit-identical outputs, the
// executor's trace verifies clean, and overlapping placements are caught.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OP_SET_V1, TensorplanError, init } from '../../dist/index.mjs';
import type { GraphDocument, GraphOp, GraphTensor, PlanDocument } from '../../dist/index.mjs';
import { BACKENDS, BOTH_BACKENDS, session } from '../support/backends';
import { seededRandom as rng } from '../support/seeded-random';

type FloatDtype = 'fp32' | 'bf16' | 'fp16';


const EXACT_OPS = ['add', 'mul', 'scale', 'relu', 'matmul', 'layernorm', 'rmsnorm', 'transpose', 'copy', 'amax', 'relu_backward', 'fill'];
const ALL_OPS = [...EXACT_OPS, 'gelu', 'silu', 'softmax', 'gelu_backward', 'silu_backward', 'softmax_backward', 'grouped_matmul'];

/**
 * A random valid graph of op set v1 over [n, n] tensors (plus the odd [1] and [2, n, n] tensor).
 * Each tensor's alignment is drawn from 1, 16 and 256; `elementAligned` raises it to at least the
 * element size, as the CUDA executor needs (a GPU faults on a misaligned fp32 load; the reference
 * reads bytes).
 */
function randomGraph(seed: number, ops: readonly string[], elementAligned = false): GraphDocument {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const n = 2 + Math.floor(r() * 7);
  const dtypes: FloatDtype[] = ['fp32', 'bf16', 'fp16'];
  const tensors: GraphTensor[] = [];
  const square: string[] = [];
  const add = (shape: number[], dtype: FloatDtype = pick(dtypes), isSquare = true) => {
    const name = `t${tensors.length}`;
    const drawn = pick([1, 16, 256]);
    tensors.push({ name, shape, dtype, alignment: elementAligned ? Math.max(drawn, dtype === 'fp32' ? 4 : 2) : drawn });
    if (isSquare) square.push(name);
    return name;
  };
  const inputs = [add([n, n]), add([n, n])];
  const weight = add([n, n]);
  const experts = add([2, n, n], 'fp32', false);
  const graphOps: GraphOp[] = [];
  const count = 3 + Math.floor(r() * 10);
  for (let k = 0; k < count; k++) {
    const op = pick(ops);
    const name = `op${k}`;
    const x = pick(square);
    const y = pick(square);
    switch (op) {
      case 'add': case 'mul': case 'relu_backward': case 'gelu_backward': case 'silu_backward': case 'softmax_backward':
        graphOps.push({ name, op, inputs: [x, y], outputs: [add([n, n])] });
        break;
      case 'matmul':
        graphOps.push({ name, op, inputs: [x, r() < 0.5 ? weight : y], outputs: [add([n, n])],
          attributes: { transposeA: r() < 0.5, transposeB: r() < 0.5 } });
        break;
      case 'grouped_matmul': {
        const first = Math.floor(r() * (n + 1));
        graphOps.push({ name, op, inputs: [x, experts], outputs: [add([n, n])], attributes: { transposeB: r() < 0.5, groupRows: [first, n - first] } });
        break;
      }
      case 'scale':
        graphOps.push({ name, op, inputs: [x], outputs: [add([n, n])], attributes: { alpha: pick([0.5, -3, 1.25]) } });
        break;
      case 'layernorm':
        graphOps.push({ name, op, inputs: [x, add([n], 'fp32', false), add([n], 'fp32', false)], outputs: [add([n, n]), add([n], 'fp32', false), add([n], 'fp32', false)],
          attributes: { epsilon: 1e-5 } });
        break;
      case 'rmsnorm':
        graphOps.push({ name, op, inputs: [x, add([n], 'bf16', false)], outputs: [add([n, n])] });
        break;
      case 'transpose': {
        const t = tensors.find((z) => z.name === x)!;
        graphOps.push({ name, op, inputs: [x], outputs: [add([n, n], t.dtype as FloatDtype)] });
        break;
      }
      case 'copy': {
        const t = tensors.find((z) => z.name === x)!;
        graphOps.push({ name, op, inputs: [x], outputs: [add([n, n], t.dtype as FloatDtype)] });
        break;
      }
      case 'amax':
        graphOps.push({ name, op, inputs: [x], outputs: [add([1], 'fp32', false)] });
        break;
      case 'fill':
        graphOps.push({ name, op, inputs: [], outputs: [add([n, n])], attributes: { value: pick([0, 1.5, -2]) } });
        break;
      default:
        graphOps.push({ name, op, inputs: [x], outputs: [add([n, n])] });
    }
  }
  // Norm parameters that no op writes become graph inputs.
  const written = new Set(graphOps.flatMap((o) => o.outputs));
  const read = new Set(graphOps.flatMap((o) => o.inputs));
  const extraInputs = tensors.map((t) => t.name).filter((t) => !written.has(t) && read.has(t) && !inputs.includes(t) && t !== weight);
  const produced = graphOps.flatMap((o) => o.outputs);
  const outputs = [...new Set([produced[produced.length - 1], ...produced.filter(() => r() < 0.25)])];
  return {
    format: 'tensorplan.graph', version: 1, name: `random-${seed}`,
    tensors: tensors.filter((t) => t.name === weight || read.has(t.name) || written.has(t.name) || inputs.includes(t.name)),
    ops: graphOps,
    inputs: [...inputs, ...extraInputs],
    outputs,
    persistent: read.has(weight) ? [weight] : [],
  };
}

/** Finite random values of each tensor's dtype, as bytes. */
function randomInputs(graph: GraphDocument, seed: number): Record<string, Uint8Array> {
  const r = rng(seed ^ 0x5eed);
  const inputs: Record<string, Uint8Array> = {};
  for (const name of [...(graph.inputs ?? []), ...(graph.persistent ?? [])]) {
    const t = graph.tensors.find((z) => z.name === name)!;
    const count = t.shape!.reduce((a, b) => a * b, 1);
    if (t.dtype === 'fp32') {
      inputs[name] = new Uint8Array(Float32Array.from({ length: count }, () => (r() - 0.5) * 4).buffer);
    } else {
      const exp = t.dtype === 'bf16' ? 0x7f80 : 0x7c00;
      inputs[name] = new Uint8Array(Uint16Array.from({ length: count }, () => {
        let v = Math.floor(r() * 65536) & 0xbfff;  // clear the top exponent bit: finite and moderate
        if ((v & exp) === exp) v &= ~0x0400;
        return v;
      }).buffer);
    }
  }
  return inputs;
}

/** Two arena storages alive at the same step, both non-empty. */
function overlappingPair(plan: PlanDocument): [number, number] | null {
  const s = plan.storages;
  for (let i = 0; i < s.length; i++) {
    for (let j = i + 1; j < s.length; j++) {
      if (s[i].bytes > 0 && s[j].bytes > 0 && s[i].birth <= s[j].death && s[j].birth <= s[i].death) return [i, j];
    }
  }
  return null;
}

describe('op set v1', () => {
  it('lists the ops of the issue in ABI order', () => {
    expect(OP_SET_V1[0]).toBe('view');
    for (const op of ['matmul', 'grouped_matmul', 'layernorm_backward', 'rmsnorm_backward', 'softmax_backward', 'quantize', 'dequantize', 'amax', 'fill']) {
      expect(OP_SET_V1).toContain(op);
    }
  });

  it.each(BACKENDS)('names every op code as the %s core does (every entry, not just view)', (backend) => {
    const core = (session(backend) as unknown as { core: { call(op: string, args: unknown[]): ArrayLike<number>[] } }).core;
    const [codes, blob, offsets] = core.call('tp_code_table', [9]);  // TP_TABLE_OP
    const names = Array.from(codes as ArrayLike<number>, (_, i) => new TextDecoder().decode((blob as Uint8Array).subarray(offsets[i], offsets[i + 1])));
    expect(Array.from(codes as ArrayLike<number>)).toEqual(OP_SET_V1.map((_, i) => i));
    expect(names).toEqual([...OP_SET_V1]);
  });
});

describe.each(BACKENDS)('reference executor on %s', (backend) => {
  const tp = session(backend);

  it('runs a matmul chain in one arena with the values a hand computation gives', () => {
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [
        { name: 'x', shape: [2, 2], dtype: 'fp32' }, { name: 'w', shape: [2, 2], dtype: 'fp32' },
        { name: 'h', shape: [2, 2], dtype: 'fp32' }, { name: 'y', shape: [2, 2], dtype: 'fp32' },
      ],
      ops: [
        { name: 'mm', op: 'matmul', inputs: ['x', 'w'], outputs: ['h'], attributes: { transposeB: true } },
        { name: 'act', op: 'relu', inputs: ['h'], outputs: ['y'] },
      ],
      inputs: ['x'], outputs: ['y'], persistent: ['w'],
    };
    const plan = tp.plan(graph);
    const result = tp.executeReference(plan, { x: new Float32Array([1, 2, 3, 4]), w: new Float32Array([1, 0, -1, 1]) });
    // h = x w^T = [[1, 1], [3, 1]]... with w^T = [[1, -1], [0, 1]]: [[1, 1], [3, 1]]
    expect(Array.from(new Float32Array(result.outputs.y.buffer))).toEqual([1, 1, 3, 1]);
    expect(result.allocations).toBe(2);  // the arena and the persistent weight
    expect(result.peakBytes).toBe(plan.arenaBytes);
    expect(tp.verifyTrace(graph, plan.schedule, result.trace)).toEqual([]);
  });

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

  it('quantizes and dequantizes with the formats reference numerics', () => {
    const format = { shape: [32, 64], dtype: 'bf16' as const, recipe: 'mxfp8' as const, columnwise: false };
    const [data, scales] = tp.tensorSpecBuffers(format).buffers;
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [
        { name: 'x', shape: [32, 64], dtype: 'bf16' },
        { name: 'q', bytes: data.bytes }, { name: 's', bytes: scales.bytes },
        { name: 'y', shape: [32, 64], dtype: 'bf16' },
      ],
      ops: [
        { name: 'quant', op: 'quantize', inputs: ['x'], outputs: ['q', 's'], attributes: { recipe: 'mxfp8', columnwise: false } },
        { name: 'dequant', op: 'dequantize', inputs: ['q', 's'], outputs: ['y'], attributes: { recipe: 'mxfp8', columnwise: false } },
      ],
      inputs: ['x'], outputs: ['q', 'y'],
    };
    const x = randomInputs(graph, 3).x;
    const result = tp.executeReference(tp.plan(graph), { x });
    const direct = tp.quantize(format, x);
    expect(result.outputs.q).toEqual(direct.buffers[0].bytes);
    expect(result.outputs.y).toEqual(tp.dequantize(format, direct.buffers.map((b) => b.bytes)));
  });

  it('names the op and the rule when semantics are wrong', () => {
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [{ name: 'a', shape: [2, 3], dtype: 'fp32' }, { name: 'b', shape: [2, 3], dtype: 'fp32' }, { name: 'c', shape: [2, 2], dtype: 'fp32' }],
      ops: [{ name: 'mm', op: 'matmul', inputs: ['a', 'b'], outputs: ['c'] }],
      inputs: ['a', 'b'], outputs: ['c'],
    };
    const plan = tp.plan(graph);
    const inputs = { a: new Float32Array(6), b: new Float32Array(6) };
    expect(() => tp.executeReference(plan, inputs)).toThrow(/op "mm": inner dimensions differ/);
    expect(() => tp.executeReference(plan, { a: inputs.a })).toThrow(/graph input "b" has no bytes/);
    expect(() => tp.executeReference(plan, { ...inputs, zz: new Uint8Array(1) })).toThrow(TensorplanError);
    const conv = { ...graph, ops: [{ ...graph.ops[0], op: 'conv2d' }] };
    expect(() => tp.executeReference(tp.plan(conv), inputs)).toThrow(/ops\[0\]\.op = "conv2d": not an op of op set v1/);
    const badAttr = { ...graph, ops: [{ ...graph.ops[0], attributes: { alpha: 2 } }] };
    expect(() => tp.executeReference(tp.plan(badAttr), inputs)).toThrow(/ops\[0\]\.attributes\.alpha: matmul takes transposeA, transposeB/);
  });

  it('oracle: random graphs give bit-identical outputs in the arena and with separate allocations; traces verify', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
      const graph = randomGraph(seed, ALL_OPS);
      const plan = tp.plan(graph);
      expect(tp.validate(plan)).toEqual([]);
      const inputs = randomInputs(graph, seed);
      const arena = tp.executeReference(plan, inputs);
      const separate = tp.executeReference(plan, inputs, { memory: 'separate' });
      expect(Object.keys(arena.outputs)).toEqual(graph.outputs);
      for (const name of graph.outputs ?? []) expect(Buffer.from(arena.outputs[name]).equals(Buffer.from(separate.outputs[name]))).toBe(true);
      expect(arena.allocations).toBe(1 + (graph.persistent?.length ?? 0));
      expect(arena.peakBytes).toBe(plan.arenaBytes);
      expect(separate.peakBytes).toBeGreaterThanOrEqual(plan.arenaBytes === 0 ? 0 : plan.statistics.lowerBoundBytes);
      expect(tp.verifyTrace(graph, plan.schedule, arena.trace)).toEqual([]);
      expect(separate.trace).toEqual(arena.trace);
    }), { numRuns: 40 });
  });

  it('oracle: an overlapping placement is rejected by validate and by the executor, and executing it anyway (skipPlanCheck) changes outputs', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
      const graph = randomGraph(seed, ALL_OPS);
      const plan = tp.plan(graph);
      const pair = overlappingPair(plan);
      if (!pair) return;
      const broken: PlanDocument = structuredClone(plan);
      broken.storages[pair[1]].offset = broken.storages[pair[0]].offset;
      broken.arenaBytes = Math.max(plan.arenaBytes, broken.storages[pair[1]].offset + broken.storages[pair[1]].bytes);
      const codes = tp.validate(broken).map((d) => d.code);
      // Same offset: an overlap, or first a misalignment when the alignments differ.
      expect(codes.includes('OVERLAP') || codes.includes('MISALIGNED')).toBe(true);
    }), { numRuns: 25 });
    // A chain where every live storage overlaps: the outputs change.
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: ['x', 'a', 'b', 'y'].map((name) => ({ name, shape: [4], dtype: 'fp32' as const })),
      ops: [
        { name: 's1', op: 'scale', inputs: ['x'], outputs: ['a'], attributes: { alpha: 2 } },
        { name: 's2', op: 'scale', inputs: ['x'], outputs: ['b'], attributes: { alpha: 3 } },
        { name: 'sum', op: 'add', inputs: ['a', 'b'], outputs: ['y'] },
      ],
      inputs: ['x'], outputs: ['y'],
    };
    const plan = tp.plan(graph);
    const x = new Float32Array([1, 2, 3, 4]);
    const good = tp.executeReference(plan, { x });
    expect(Array.from(new Float32Array(good.outputs.y.buffer))).toEqual([5, 10, 15, 20]);
    const broken: PlanDocument = structuredClone(plan);
    for (const s of broken.storages) s.offset = 0;
    expect(tp.validate(broken).length).toBeGreaterThan(0);
    // The executor refuses it as validate does; run as stated (skipPlanCheck), the outputs change.
    expect(() => tp.executeReference(broken, { x })).toThrow(/^the plan is invalid \(5 diagnostics; tp_plan_validate lists them\): OVERLAP: /);
    const bad = tp.executeReference(broken, { x }, { skipPlanCheck: true });
    expect(bad.outputs.y).not.toEqual(good.outputs.y);
  });
});

describe.runIf(BOTH_BACKENDS)('reference executor parity', () => {
  it('WASM and native give identical bytes for ops without transcendental functions', () => {
    const wasm = session('wasm');
    const native = session('native');
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
      const graph = randomGraph(seed, EXACT_OPS);
      const plan = wasm.plan(graph);
      const inputs = randomInputs(graph, seed);
      expect(native.executeReference(plan, inputs)).toEqual(wasm.executeReference(plan, inputs));
    }), { numRuns: 25 });
  });
});

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
