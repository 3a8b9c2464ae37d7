// Random valid graphs of op set v1 and random finite inputs for them, seeded so
// that a failing seed reproduces: the executor tests and the planner's oracle
// draw from these.
import type { GraphDocument, GraphOp, GraphTensor } from '../../dist/index.mjs';
import { seededRandom as rng } from '../support/seeded-random';

type FloatDtype = 'fp32' | 'bf16' | 'fp16';

/** Ops without transcendental functions: the reference executor gives the same bytes on WASM and native. */
export const EXACT_OPS = ['add', 'mul', 'scale', 'relu', 'matmul', 'layernorm', 'rmsnorm', 'transpose', 'copy', 'amax', 'relu_backward', 'fill'];
/** Every op the random graphs draw from. */
export const ALL_OPS = [...EXACT_OPS, 'gelu', 'silu', 'softmax', 'gelu_backward', 'silu_backward', 'softmax_backward', 'grouped_matmul'];

/**
 * A random valid graph of op set v1 over [n, n] tensors (plus the odd [1] and [2, n, n] tensor).
 * Each tensor's alignment is drawn from 1, 16 and 256; `elementAligned` raises it to at least the
 * element size, as the CUDA executor needs (a GPU faults on a misaligned fp32 load; the reference
 * reads bytes).
 */
export function randomGraph(seed: number, ops: readonly string[], elementAligned = false): GraphDocument {
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
export function randomInputs(graph: GraphDocument, seed: number): Record<string, Uint8Array> {
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
