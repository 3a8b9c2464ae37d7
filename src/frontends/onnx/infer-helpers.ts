// What every shape rule works with (onnx-infer.ts for the default domain, contrib-infer.ts for
// com.microsoft): the value the importer knows, the rule's context, attribute and input readers,
// and the shape arithmetic rules share (broadcasting, matmul, convolution and pooling windows).
import { DT } from './onnx-model.js';
import type { OnnxAttribute, OnnxNode } from './onnx-model.js';
import { FoldGap, toClampedInt, toSafeInt } from './fold/elements.js';
import type { Elements } from './fold/elements.js';
import { broadcast } from './fold/movement.js';

/** What the importer knows about a value: shape, element type, and the elements of small constants. */
export interface Value {
  shape: number[];
  elemType: number;
  /**
   * Elements (row-major) when known at import time: constants, graph inputs given a value, and
   * whatever the evaluator (fold/) computes from them. bigint for integer and bool types.
   */
  data?: Elements;
  /** Why the elements are not known although every input's are (Dropout in training, a Cast the spec and ONNX Runtime disagree on). */
  unknown?: string;
  /** The value differs from run to run (Dropout in training mode): its node runs, never folds. */
  varies?: boolean;
}

/** Raised when a rule cannot infer an output (the importer then falls back to shapes in the file). */
export class InferenceGap extends Error {
  /** `input`: the node input whose elements the rule needed and does not know (messages say why). */
  constructor(message: string, readonly input?: number) {
    super(message);
  }
}

/** Everything a rule sees. */
export interface InferContext {
  node: OnnxNode;
  /** Inputs in node order; undefined for an omitted optional input (""). */
  inputs: (Value | undefined)[];
  /** Opset of the node's domain. */
  opset: number;
}

export type Rule = (c: InferContext) => Value[];

export const numel = (shape: number[]) => shape.reduce((a, b) => a * b, 1);
export const gap = (why: string): never => { throw new InferenceGap(why); };

export function attr(c: InferContext, name: string): OnnxAttribute | undefined { return c.node.attributes.get(name); }
export const attrInt = (c: InferContext, name: string, fallback: number) => attr(c, name)?.i ?? fallback;
export const attrInts = (c: InferContext, name: string): number[] | undefined => {
  const a = attr(c, name);
  return a && a.ints.length ? a.ints : undefined;
};
export const attrFloats = (c: InferContext, name: string): number[] | undefined => {
  const a = attr(c, name);
  return a && a.floats.length ? a.floats : undefined;
};
export const attrStr = (c: InferContext, name: string, fallback: string) => attr(c, name)?.s ?? fallback;

export function input(c: InferContext, k: number): Value {
  const v = c.inputs[k];
  if (!v) return gap(`input ${k} is missing`);
  return v;
}
/** The elements of a constant input (shape, axes, pads...), or undefined when the input is omitted. */
export function constInput(c: InferContext, k: number, what: string, clamped = false): number[] | undefined {
  const v = c.inputs[k];
  if (!v) return undefined;
  if (!v.data) throw new InferenceGap(`its ${what} (input ${k}, "${c.node.inputs[k]}") is not a constant known at import time`, k);
  const label = `its ${what} (input ${k}, "${c.node.inputs[k]}")`;
  try {
    // Float elements (Resize scales) are returned as they are; integers checked within 2^53.
    return v.data.map((x) => (clamped ? toClampedInt(x) : typeof x === 'number' ? x : toSafeInt(x, label)));
  } catch (error) {
    if (error instanceof FoldGap) gap(error.message);
    throw error;
  }
}
export const normAxis = (axis: number, rank: number, _c?: InferContext) => {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) gap(`axis ${axis} is out of range for rank ${rank}`);
  return a;
};

/** numpy-style broadcasting of several shapes: the evaluator's rule (fold/movement.ts), its gap as an inference gap. */
export function broadcastShapes(shapes: number[][]): number[] {
  try {
    return broadcast(shapes);
  } catch (error) {
    if (error instanceof FoldGap) gap(error.message);
    throw error;
  }
}

export function convLike(c: InferContext, x: Value, kernel: number[], outChannels: number, transpose: boolean): number[] {
  const spatial = x.shape.length - 2;
  if (spatial < 1) gap(`input rank ${x.shape.length} is below 3`);
  const strides = attrInts(c, 'strides') ?? new Array(spatial).fill(1);
  const dil = attrInts(c, 'dilations') ?? new Array(spatial).fill(1);
  let pads = attrInts(c, 'pads') ?? new Array(2 * spatial).fill(0);
  const autoPad = attrStr(c, 'auto_pad', 'NOTSET');
  const out = [x.shape[0], outChannels];
  if (transpose) {
    const outPad = attrInts(c, 'output_padding') ?? new Array(spatial).fill(0);
    const given = attrInts(c, 'output_shape');
    for (let k = 0; k < spatial; ++k) {
      if (given) { out.push(given[given.length - spatial + k]); continue; }
      const full = strides[k] * (x.shape[k + 2] - 1) + outPad[k] + (kernel[k] - 1) * dil[k] + 1;
      out.push(autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER' ? x.shape[k + 2] * strides[k] : full - pads[k] - pads[k + spatial]);
    }
    return out;
  }
  const ceilMode = attrInt(c, 'ceil_mode', 0) === 1;
  for (let k = 0; k < spatial; ++k) {
    const len = x.shape[k + 2];
    const eff = (kernel[k] - 1) * dil[k] + 1;
    if (autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER') out.push(Math.ceil(len / strides[k]));
    else if (autoPad === 'VALID') out.push(Math.floor((len - eff) / strides[k]) + 1);
    else {
      if (pads.length !== 2 * spatial) pads = new Array(2 * spatial).fill(0);
      const span = len + pads[k] + pads[k + spatial] - eff;
      let o = (ceilMode ? Math.ceil(span / strides[k]) : Math.floor(span / strides[k])) + 1;
      // With ceil_mode the last window must start inside the input or its left padding.
      if (ceilMode && (o - 1) * strides[k] >= len + pads[k]) o -= 1;
      out.push(o);
    }
  }
  if (out.slice(2).some((d) => d <= 0)) gap(`the output would have spatial size [${out.slice(2).join(',')}]`);
  return out;
}

export function conv(c: InferContext, xIndex: number, wIndex: number, elemType?: number): Value[] {
  const x = input(c, xIndex), w = input(c, wIndex);
  const kernel = attrInts(c, 'kernel_shape') ?? w.shape.slice(2);
  return [{ shape: convLike(c, x, kernel, w.shape[0], false), elemType: elemType ?? x.elemType }];
}

export function pool(c: InferContext): Value[] {
  const x = input(c, 0);
  const kernel = attrInts(c, 'kernel_shape') ?? gap('kernel_shape is missing');
  const shape = convLike(c, x, kernel, x.shape[1], false);
  const out: Value[] = [{ shape, elemType: x.elemType }];
  if (c.node.outputs.length > 1) out.push({ shape, elemType: DT.INT64 });
  return out;
}

export function matmulShape(a: number[], b: number[]): number[] {
  if (a.length === 0 || b.length === 0) gap('MatMul of a scalar');
  const a2 = a.length === 1 ? [1, a[0]] : a, b2 = b.length === 1 ? [b[0], 1] : b;
  const k1 = a2[a2.length - 1], k2 = b2[b2.length - 2];
  if (k1 !== k2) gap(`inner dimensions differ: [${a.join(',')}] x [${b.join(',')}]`);
  const batch = broadcastShapes([a2.slice(0, -2), b2.slice(0, -2)]);
  const out = [...batch, a2[a2.length - 2], b2[b2.length - 1]];
  if (a.length === 1) out.splice(out.length - 2, 1);
  if (b.length === 1) out.splice(out.length - 1, 1);
  return out;
}
