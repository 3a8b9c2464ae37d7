// Layer graphs executed: tiny layer specs are turned into training-step
// graphs, planned, and run on the reference executor in the planned arena. The
// forward output must equal a direct float64 computation written here (no
// executor, no planner), every gradient the graph outputs must agree with
// central finite differences of that computation, the arena and
// one-allocation-per-storage runs must give identical bytes, and the lifecycle
// trace must verify.
//
// The loss of a layer graph is L = ½·Σ y² (its `loss` op copies y into dL/dy).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GraphDocument, LayerEntry, LayerSpec } from '../../../dist/index.mjs';
import { BACKENDS, BOTH_BACKENDS, session } from '../../support/backends';
import { seededRandom as rng } from '../../support/seeded-random';

type Dtype = 'fp32' | 'bf16';

/** Tolerances (docs/layer-specs.md "Executed correctness"), relative to the largest magnitude of the reference tensor. */
const TOL = {
  fp32: { forward: 1e-5, gradient: 1e-4 },
  bf16: { forward: 2e-2, gradient: 5e-2 },
};


const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** Float → bf16 bits, round to nearest even (values here are finite). */
function toBf16(v: number): number {
  f32[0] = v;
  const bits = u32[0];
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}
function fromBf16(b: number): number {
  u32[0] = b << 16;
  return f32[0];
}
/** The value as the graph stores it (fp32 or bf16 rounding). */
function stored(v: number, dtype: Dtype): number {
  return dtype === 'fp32' ? Math.fround(v) : fromBf16(toBf16(v));
}
function encode(values: Float64Array, dtype: Dtype): Uint8Array {
  if (dtype === 'fp32') return new Uint8Array(Float32Array.from(values).buffer);
  return new Uint8Array(Uint16Array.from(values, toBf16).buffer);
}
function decode(bytes: Uint8Array, dtype: string | undefined): Float64Array {
  if (dtype !== 'fp32' && dtype !== 'bf16') throw new Error(`unexpected dtype ${dtype}`);
  const copy = Uint8Array.from(bytes).buffer;
  if (dtype === 'fp32') return Float64Array.from(new Float32Array(copy));
  return Float64Array.from(new Uint16Array(copy), fromBf16);
}

// ---------------------------------------------------------------------------
// The direct computation: float64, plain loops, TE module semantics
// (y = x·Wᵀ with W [out, in]; RMSNorm y = x·rstd·γ, ε = 1e-5; tanh GELU).

type Params = Map<string, Float64Array>;

function matmulT(x: Float64Array, rows: number, inF: number, w: Float64Array, out: number): Float64Array {
  const y = new Float64Array(rows * out);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < out; o++) {
      let acc = 0;
      for (let k = 0; k < inF; k++) acc += x[r * inF + k] * w[o * inF + k];
      y[r * out + o] = acc;
    }
  }
  return y;
}
function rmsnorm(x: Float64Array, rows: number, h: number, gamma: Float64Array): Float64Array {
  const y = new Float64Array(rows * h);
  for (let r = 0; r < rows; r++) {
    let sq = 0;
    for (let j = 0; j < h; j++) sq += x[r * h + j] ** 2;
    const rstd = 1 / Math.sqrt(sq / h + 1e-5);
    for (let j = 0; j < h; j++) y[r * h + j] = x[r * h + j] * rstd * gamma[j];
  }
  return y;
}
function layernorm(x: Float64Array, rows: number, h: number, gamma: Float64Array, beta: Float64Array): Float64Array {
  const y = new Float64Array(rows * h);
  for (let r = 0; r < rows; r++) {
    let mean = 0;
    for (let j = 0; j < h; j++) mean += x[r * h + j] / h;
    let variance = 0;
    for (let j = 0; j < h; j++) variance += (x[r * h + j] - mean) ** 2 / h;
    const rstd = 1 / Math.sqrt(variance + 1e-5);
    for (let j = 0; j < h; j++) y[r * h + j] = (x[r * h + j] - mean) * rstd * gamma[j] + beta[j];
  }
  return y;
}
/** The entry's norm: RMSNorm (γ), or LayerNorm (γ, β) as TE's modules have it. */
function applyNorm(entry: LayerEntry, x: Float64Array, rows: number, h: number, p: Params, module: string): Float64Array {
  const gamma = p.get(`${module}.weight`)!;
  return 'normalization' in entry && entry.normalization === 'layernorm'
    ? layernorm(x, rows, h, gamma, p.get(`${module}.bias`)!)
    : rmsnorm(x, rows, h, gamma);
}
const normParams = (entry: LayerEntry, module: string, width: number): [string, number[]][] =>
  'normalization' in entry && entry.normalization === 'layernorm'
    ? [[`${module}.weight`, [width]], [`${module}.bias`, [width]]]
    : [[`${module}.weight`, [width]]];
const gelu = (v: number) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));

/** The layers the fp32 path executes, with their weights' names and shapes. */
function paramShapes(spec: LayerSpec): [string, number[]][] {
  const h = spec.model.hidden;
  const out: [string, number[]][] = [];
  let width = h;
  layerList(spec).forEach((entry, i) => {
    const L = `L${i}`;
    switch (entry.kind) {
      case 'linear': out.push([`${L}.linear.weight`, [entry.outFeatures, width]]); width = entry.outFeatures; break;
      case 'layernormLinear':
        out.push(...normParams(entry, `${L}.ln`, width), [`${L}.linear.weight`, [entry.outFeatures, width]]);
        width = entry.outFeatures;
        break;
      case 'layernormMLP': {
        const ffn = entry.ffn ?? spec.model.ffn;
        out.push(...normParams(entry, `${L}.ln2`, width), [`${L}.fc1.weight`, [ffn, width]], [`${L}.fc2.weight`, [width, ffn]]);
        break;
      }
      default: throw new Error(`not executed here: ${entry.kind}`);
    }
  });
  return out;
}
function layerList(spec: LayerSpec): LayerEntry[] {
  return spec.layers.flatMap((e) => Array.from({ length: e.repeat ?? 1 }, () => e));
}

/** Forward of the whole stack and the loss ½·Σ y². */
function directForward(spec: LayerSpec, x0: Float64Array, p: Params): { y: Float64Array; loss: number } {
  const rows = spec.model.sequence * spec.model.microBatch;
  let x = x0;
  let width = spec.model.hidden;
  layerList(spec).forEach((entry, i) => {
    const L = `L${i}`;
    if (entry.kind === 'linear') {
      x = matmulT(x, rows, width, p.get(`${L}.linear.weight`)!, entry.outFeatures);
      width = entry.outFeatures;
    } else if (entry.kind === 'layernormLinear') {
      const n = applyNorm(entry, x, rows, width, p, `${L}.ln`);
      x = matmulT(n, rows, width, p.get(`${L}.linear.weight`)!, entry.outFeatures);
      width = entry.outFeatures;
    } else if (entry.kind === 'layernormMLP') {
      const ffn = entry.ffn ?? spec.model.ffn;
      const n = applyNorm(entry, x, rows, width, p, `${L}.ln2`);
      const a = matmulT(n, rows, width, p.get(`${L}.fc1.weight`)!, ffn)
        .map(entry.activation === 'relu' ? (v) => Math.max(v, 0) : gelu);
      x = matmulT(a, rows, ffn, p.get(`${L}.fc2.weight`)!, width);
    }
  });
  let loss = 0;
  for (const v of x) loss += 0.5 * v * v;
  return { y: x, loss };
}

/** Central finite differences of the loss with respect to every element of `target`. */
function finiteDifferences(target: Float64Array, loss: () => number): Float64Array {
  const grad = new Float64Array(target.length);
  for (let i = 0; i < target.length; i++) {
    const keep = target[i];
    const step = 1e-5 * Math.max(1, Math.abs(keep));
    target[i] = keep + step;
    const up = loss();
    target[i] = keep - step;
    const down = loss();
    target[i] = keep;
    grad[i] = (up - down) / (2 * step);
  }
  return grad;
}

/** Largest |actual − expected| relative to the largest |expected|. */
function relativeError(actual: Float64Array, expected: Float64Array): number {
  expect(actual.length).toBe(expected.length);
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < expected.length; i++) {
    diff = Math.max(diff, Math.abs(actual[i] - expected[i]));
    scale = Math.max(scale, Math.abs(expected[i]));
  }
  return diff / (scale || 1);
}

function spec(dtype: Dtype, layers: LayerEntry[], extra: Partial<LayerSpec> = {}): LayerSpec {
  return {
    format: 'tensorplan.layers', version: 1, name: 'tiny',
    model: { hidden: 16, ffn: 32, heads: 2, sequence: 4, microBatch: 2, dtype },
    recipe: 'none', layers, ...extra,
  };
}

const CASES: { name: string; spec: LayerSpec }[] = [
  { name: 'Linear (fp32)', spec: spec('fp32', [{ kind: 'linear', outFeatures: 24 }]) },
  { name: 'LayerNormLinear, RMSNorm (fp32)', spec: spec('fp32', [{ kind: 'layernormLinear', outFeatures: 32, normalization: 'rmsnorm' }]) },
  { name: 'LayerNormLinear, LayerNorm with bias (fp32)', spec: spec('fp32', [{ kind: 'layernormLinear', outFeatures: 24, normalization: 'layernorm' }]) },
  { name: 'LayerNormMLP, LayerNorm + GELU (fp32)', spec: spec('fp32', [{ kind: 'layernormMLP', normalization: 'layernorm', activation: 'gelu' }]) },
  { name: 'LayerNormMLP, RMSNorm + GELU (fp32)', spec: spec('fp32', [{ kind: 'layernormMLP', normalization: 'rmsnorm', activation: 'gelu' }]) },
  { name: 'LayerNormMLP, RMSNorm + ReLU, hidden 32, seq 8 (fp32)', spec: {
    ...spec('fp32', [{ kind: 'layernormMLP', normalization: 'rmsnorm', activation: 'relu' }]),
    model: { hidden: 32, ffn: 64, heads: 2, sequence: 8, microBatch: 1, dtype: 'fp32' },
  } },
  { name: 'stack: Linear, recomputed LayerNormMLP ×2, LayerNormLinear, bulk weight gradients (fp32)', spec: spec('fp32', [
    { kind: 'linear', outFeatures: 16 },
    { kind: 'layernormMLP', normalization: 'rmsnorm', activation: 'gelu', recompute: true, repeat: 2 },
    { kind: 'layernormLinear', outFeatures: 8, normalization: 'rmsnorm' },
  ], { weightGradients: 'bulk' }) },
  { name: 'column- and row-parallel Linear at TP=1, packed weight gradients (fp32)', spec: spec('fp32', [
    { kind: 'linear', outFeatures: 32, parallel: 'column' },
    { kind: 'linear', outFeatures: 16, parallel: 'row' },
    { kind: 'layernormLinear', outFeatures: 16, normalization: 'rmsnorm', parallel: 'column' },
  ], { weightGradients: 'packed', parallel: { tp: 1 } }) },
  { name: 'LayerNormMLP, RMSNorm + GELU (bf16, recipe bf16)', spec: {
    ...spec('bf16', [{ kind: 'layernormMLP', normalization: 'rmsnorm', activation: 'gelu' }]), recipe: 'bf16',
  } },
  { name: 'Linear and LayerNormMLP (bf16 activations, fp32 weight gradients)', spec: spec('bf16', [
    { kind: 'linear', outFeatures: 16 },
    { kind: 'layernormMLP', normalization: 'rmsnorm', activation: 'relu' },
  ], { weightGradientDtype: 'fp32' }) },
];

/** Seeded inputs and weights, already rounded to the graph's dtype. */
function randomInputs(s: LayerSpec, seed: number): { x: Float64Array; params: Params } {
  const dtype = s.model.dtype as Dtype;
  const r = rng(seed);
  const uniform = (n: number, scale: number, offset = 0) => Float64Array.from({ length: n }, () => stored(offset + scale * (2 * r() - 1), dtype));
  const rows = s.model.sequence * s.model.microBatch;
  const x = uniform(rows * s.model.hidden, 1);
  const params: Params = new Map();
  for (const [name, shape] of paramShapes(s)) {
    const n = shape.reduce((a, b) => a * b, 1);
    params.set(name, shape.length === 1 ? uniform(n, 0.2, 1) : uniform(n, 1.5 / Math.sqrt(shape[1])));
  }
  return { x, params };
}

describe.each(BACKENDS)('layer graphs executed (%s backend)', (backend) => {
  const tp = session(backend);

  function run(s: LayerSpec, seed: number) {
    const dtype = s.model.dtype as Dtype;
    const lg = tp.layerGraph(s);
    const plan = tp.plan(lg.graph);
    const { x, params } = randomInputs(s, seed);
    const inputs: Record<string, Uint8Array> = { input: encode(x, dtype) };
    for (const [name, values] of params) inputs[name] = encode(values, dtype);
    const arena = tp.executeReference(plan, inputs, { memory: 'arena' });
    const separate = tp.executeReference(plan, inputs, { memory: 'separate' });
    return { lg, plan, x, params, arena, separate, dtype };
  }

  /** The stack's output y (= the loss seed `loss.grad`), executed in the planned arena. */
  function forwardOutput(graph: GraphDocument, x: Float64Array, params: Params, dtype: Dtype): Float64Array {
    const withY = structuredClone(graph);
    withY.outputs = [...withY.outputs!, 'loss.grad'];
    const inputs: Record<string, Uint8Array> = { input: encode(x, dtype) };
    for (const [p, values] of params) inputs[p] = encode(values, dtype);
    return decode(tp.executeReference(tp.plan(withY), inputs).outputs['loss.grad'], dtype);
  }

  for (const { name, spec: s } of CASES) {
    it(`${name}: forward equals the direct computation; gradients equal finite differences`, () => {
      const { lg, plan, x, params, arena, separate, dtype } = run(s, 7);
      const tol = TOL[dtype];
      const dtypeOf = new Map(lg.graph.tensors.map((t) => [t.name, t.dtype]));
      const read = (name: string) => decode(arena.outputs[name], dtypeOf.get(name));

      // (c) the planned arena and one allocation per storage give the same bytes; (d) the trace verifies.
      expect(Object.keys(arena.outputs).sort()).toEqual([...lg.graph.outputs!].sort());
      for (const out of lg.graph.outputs!) expect(arena.outputs[out]).toEqual(separate.outputs[out]);
      expect(arena.allocations).toBe(1 + (lg.graph.persistent?.length ?? 0));
      expect(tp.verifyTrace(lg.graph, plan.schedule, arena.trace)).toEqual([]);

      // (a) forward: the loss seed dL/dy of ½·Σ y² is y itself; the same graph with the
      // seed as an extra output gives the layer stack's output.
      const direct = directForward(s, x, params);
      expect(relativeError(forwardOutput(lg.graph, x, params, dtype), direct.y)).toBeLessThanOrEqual(tol.forward);

      // (b) every weight gradient and the input gradient against central differences.
      const inputGrad = lg.graph.outputs!.filter((o) => !o.endsWith('wgrad'));
      expect(inputGrad).toHaveLength(1);
      const loss = () => directForward(s, x, params).loss;
      const checked: string[] = [];
      const fdInput = finiteDifferences(x, loss);
      expect(relativeError(read(inputGrad[0]), fdInput)).toBeLessThanOrEqual(tol.gradient);
      for (const [p, values] of params) {
        const wgrad = p.endsWith('.bias') ? p.replace(/\.bias$/, '.bias_wgrad') : p.replace(/\.weight$/, '.wgrad');
        expect(arena.outputs[wgrad], wgrad).toBeDefined();
        const fd = finiteDifferences(values, loss);
        expect(dtypeOf.get(wgrad)).toBe(s.weightGradientDtype ?? dtype);
        expect(relativeError(read(wgrad), fd), wgrad).toBeLessThanOrEqual(tol.gradient);
        checked.push(wgrad);
      }
      // Every output was checked: the weight gradients the direct model knows, and the input gradient.
      expect([...checked, ...inputGrad].sort()).toEqual([...lg.graph.outputs!].sort());
    });
  }

  it('property: random seeds and sizes, fp32 LayerNormMLP: forward, one input-gradient element, arena = separate', () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.constantFrom(8, 16, 24), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 2 }),
      fc.constantFrom<'gelu' | 'relu'>('gelu', 'relu'), fc.boolean(),
      (seed, hidden, sequence, microBatch, activation, recompute) => {
        const s: LayerSpec = {
          ...spec('fp32', [{ kind: 'layernormMLP', normalization: 'rmsnorm', activation, recompute }]),
          model: { hidden, ffn: 2 * hidden, heads: 2, sequence, microBatch, dtype: 'fp32' },
        };
        const { lg, plan, x, params, arena, separate } = run(s, seed);
        for (const out of lg.graph.outputs!) expect(arena.outputs[out]).toEqual(separate.outputs[out]);
        expect(tp.verifyTrace(lg.graph, plan.schedule, arena.trace)).toEqual([]);
        expect(relativeError(forwardOutput(lg.graph, x, params, 'fp32'), directForward(s, x, params).y)).toBeLessThanOrEqual(TOL.fp32.forward);
        // dL/dinput of ½·Σ y² through the direct model, one element by finite differences.
        const inputGrad = decode(arena.outputs[lg.graph.outputs!.find((o) => !o.endsWith('wgrad'))!], 'fp32');
        const i = seed % x.length;
        const keep = x[i];
        const step = 1e-5;
        x[i] = keep + step;
        const up = directForward(s, x, params).loss;
        x[i] = keep - step;
        const down = directForward(s, x, params).loss;
        x[i] = keep;
        const fd = (up - down) / (2 * step);
        let scale = 0;
        for (const v of inputGrad) scale = Math.max(scale, Math.abs(v));
        expect(Math.abs(inputGrad[i] - fd)).toBeLessThanOrEqual(TOL.fp32.gradient * Math.max(scale, 1e-6));
      },
    ), { numRuns: 15 });
  });

  it('graphs with layers outside the executed path fail with an error naming the op, not a wrong result', () => {
    const s = spec('fp32', [{ kind: 'attention', fused: true }]);
    const lg = tp.layerGraph(s);
    const plan = tp.plan(lg.graph);
    expect(() => tp.executeReference(plan, { input: new Uint8Array(8 * 16 * 4) })).toThrow(/fused_attention.*not an op of op set v1/);
  });
});

describe.runIf(BOTH_BACKENDS)('layer graphs executed: WASM and native parity', () => {
  it('the same plan gives the same output bytes on both backends (GELU within fp32 rounding)', () => {
    for (const { name, spec: s } of CASES) {
      const wasm = session('wasm');
      const native = session('native');
      const lg = wasm.layerGraph(s);
      const plan = wasm.plan(lg.graph);
      const nativePlan = native.plan(native.layerGraph(s).graph);
      expect([nativePlan.schedule, nativePlan.storages, nativePlan.arenaBytes], name).toEqual([plan.schedule, plan.storages, plan.arenaBytes]);
      const { x, params } = randomInputs(s, 11);
      const dtype = s.model.dtype as Dtype;
      const inputs: Record<string, Uint8Array> = { input: encode(x, dtype) };
      for (const [p, values] of params) inputs[p] = encode(values, dtype);
      const a = wasm.executeReference(plan, inputs);
      const b = native.executeReference(plan, inputs);
      expect(b.trace, name).toEqual(a.trace);
      // exp/tanh may differ in the last bit between the two C libraries (docs/op-set.md).
      const usesTanh = lg.graph.ops.some((op) => op.op === 'gelu');
      const dtypeOf = new Map(lg.graph.tensors.map((t) => [t.name, t.dtype]));
      for (const out of lg.graph.outputs!) {
        if (!usesTanh) expect(b.outputs[out], `${name}: ${out}`).toEqual(a.outputs[out]);
        else expect(relativeError(decode(b.outputs[out], dtypeOf.get(out)), decode(a.outputs[out], dtypeOf.get(out))), `${name}: ${out}`)
          .toBeLessThanOrEqual(TOL[dtype].forward);
      }
    }
  });
});
