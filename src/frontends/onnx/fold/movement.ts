// Ops that move elements without computing on them: Transpose, Slice, Gather, GatherElements,
// Concat, Tile, Expand, Where, NonZero, Split, and the reshapes (whose shape the shape rule gives).
import { FoldGap, INT64, broadcastIndex, numel, stridesOf, toClampedInt } from './elements.js';
import type { Elements } from './elements.js';
import { attrInt, attrInts, axisOf, intsOf, required } from './tensor.js';
import type { FoldContext, Known } from './tensor.js';

/** numpy broadcasting of shapes; a mismatch is a gap. */
export function broadcast(shapes: readonly number[][]): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let k = 0; k < rank; ++k) {
    let d = 1;
    for (const s of shapes) {
      const e = s[s.length - rank + k] ?? 1;
      if (e === 1) continue;
      if (d !== 1 && d !== e) throw new FoldGap(`shapes [${shapes.map((x) => x.join(',')).join('] and [')}] do not broadcast`);
      d = e;
    }
    out.push(d);
  }
  return out;
}

/** A tensor of `shape` whose element i is `x.data[index(i)]`. */
function gathered(x: Known, shape: number[], index: (i: number) => number): Known {
  const n = numel(shape);
  const data: Elements = new Array(n);
  for (let i = 0; i < n; ++i) data[i] = x.data[index(i)];
  return { shape, elemType: x.elemType, data };
}

/** Calls f with the coordinates of each element of `shape`, row-major. */
function forEachCoord(shape: readonly number[], f: (coord: number[], i: number) => void): void {
  const n = numel(shape);
  const coord = new Array<number>(shape.length).fill(0);
  for (let i = 0; i < n; ++i) {
    f(coord, i);
    for (let k = shape.length - 1; k >= 0; --k) {
      if (++coord[k] < shape[k]) break;
      coord[k] = 0;
    }
  }
}

export function transpose(x: Known, perm: number[]): Known {
  const rank = x.shape.length;
  if (perm.length !== rank || new Set(perm).size !== rank || perm.some((p) => p < 0 || p >= rank)) {
    throw new FoldGap(`perm [${perm.join(',')}] is not a permutation of ${rank} axes`);
  }
  const shape = perm.map((p) => x.shape[p]);
  const inStrides = stridesOf(x.shape);
  const data: Elements = new Array(numel(shape));
  forEachCoord(shape, (coord, i) => {
    let src = 0;
    for (let k = 0; k < rank; ++k) src += coord[k] * inStrides[perm[k]];
    data[i] = x.data[src];
  });
  return { shape, elemType: x.elemType, data };
}

/** ONNX Slice's start, count and step per axis (negative indices, clamping as the spec says). */
export function sliceRanges(shape: readonly number[], starts: number[], ends: number[], axes?: number[], steps?: number[]): { begin: number[]; count: number[]; step: number[] } {
  const rank = shape.length;
  const begin = new Array<number>(rank).fill(0), step = new Array<number>(rank).fill(1), count = [...shape];
  if (ends.length !== starts.length) throw new FoldGap(`starts has ${starts.length} values, ends ${ends.length}`);
  const ax = axes ?? starts.map((_, k) => k);
  if (new Set(ax.map((a) => axisOf(a, rank))).size !== ax.length) throw new FoldGap(`axes [${ax.join(',')}] repeat an axis`);
  ax.forEach((a0, k) => {
    const a = axisOf(a0, rank);
    const d = shape[a], s = steps?.[k] ?? 1;
    if (s === 0) throw new FoldGap('a slice step is 0');
    let b = toClampedInt(starts[k]), e = toClampedInt(ends[k]);
    if (b < 0) b += d;
    if (e < 0) e += d;
    if (s > 0) { b = Math.min(Math.max(b, 0), d); e = Math.min(Math.max(e, 0), d); }
    else { b = Math.min(Math.max(b, 0), d - 1); e = Math.min(Math.max(e, -1), d - 1); }
    begin[a] = b; step[a] = s;
    count[a] = Math.max(0, s > 0 ? Math.ceil((e - b) / s) : Math.ceil((b - e) / -s));
  });
  return { begin, count, step };
}

export function slice(x: Known, starts: number[], ends: number[], axes?: number[], steps?: number[]): Known {
  const { begin, count, step } = sliceRanges(x.shape, starts, ends, axes, steps);
  const inStrides = stridesOf(x.shape);
  const data: Elements = new Array(numel(count));
  forEachCoord(count, (coord, i) => {
    let src = 0;
    for (let k = 0; k < coord.length; ++k) src += (begin[k] + coord[k] * step[k]) * inStrides[k];
    data[i] = x.data[src];
  });
  return { shape: count, elemType: x.elemType, data };
}

export function gather(x: Known, indices: Known, axis0: number): Known {
  const rank = x.shape.length;
  const axis = axisOf(axis0, rank);
  const d = x.shape[axis];
  const idx = indices.data.map((v) => {
    const i = Number(v);
    if (i < -d || i >= d) throw new FoldGap(`index ${v} is out of range for an axis of size ${d}`);
    return i < 0 ? i + d : i;
  });
  const shape = [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)];
  const outer = numel(x.shape.slice(0, axis)), inner = numel(x.shape.slice(axis + 1));
  const data: Elements = [];
  for (let o = 0; o < outer; ++o) {
    for (const i of idx) for (let r = 0; r < inner; ++r) data.push(x.data[(o * d + i) * inner + r]);
  }
  return { shape, elemType: x.elemType, data };
}

export function gatherElements(x: Known, indices: Known, axis0: number): Known {
  const rank = x.shape.length;
  if (indices.shape.length !== rank) throw new FoldGap(`indices have rank ${indices.shape.length}, the data ${rank}`);
  const axis = axisOf(axis0, rank);
  const inStrides = stridesOf(x.shape);
  const d = x.shape[axis];
  const data: Elements = new Array(numel(indices.shape));
  forEachCoord(indices.shape, (coord, i) => {
    let j = Number(indices.data[i]);
    if (j < -d || j >= d) throw new FoldGap(`index ${indices.data[i]} is out of range for an axis of size ${d}`);
    if (j < 0) j += d;
    let src = 0;
    for (let k = 0; k < rank; ++k) src += (k === axis ? j : coord[k]) * inStrides[k];
    data[i] = x.data[src];
  });
  return { shape: [...indices.shape], elemType: x.elemType, data };
}

export function concat(xs: Known[], axis0: number): Known {
  // Some exporters concatenate an empty 1-D tensor with tensors of another rank: it adds nothing.
  const parts = xs.length > 1 ? xs.filter((v) => !(v.shape.length === 1 && v.shape[0] === 0)) : xs;
  if (parts.length === 0) return { ...xs[0] };
  const rank = parts[0].shape.length;
  const axis = axisOf(axis0, rank);
  for (const p of parts) {
    if (p.shape.length !== rank || p.shape.some((d, k) => k !== axis && d !== parts[0].shape[k])) {
      throw new FoldGap(`cannot concatenate [${p.shape.join(',')}] with [${parts[0].shape.join(',')}] on axis ${axis}`);
    }
  }
  const shape = [...parts[0].shape];
  shape[axis] = parts.reduce((s, p) => s + p.shape[axis], 0);
  const outer = numel(shape.slice(0, axis));
  const data: Elements = [];
  for (let o = 0; o < outer; ++o) {
    for (const p of parts) {
      const block = numel(p.shape.slice(axis));
      for (let r = 0; r < block; ++r) data.push(p.data[o * block + r]);
    }
  }
  return { shape, elemType: parts[0].elemType, data };
}

export function tile(x: Known, repeats: number[]): Known {
  if (repeats.length !== x.shape.length || repeats.some((r) => r < 0)) throw new FoldGap(`repeats [${repeats.join(',')}] do not fit rank ${x.shape.length}`);
  const shape = x.shape.map((d, k) => d * repeats[k]);
  const inStrides = stridesOf(x.shape);
  const data: Elements = new Array(numel(shape));
  forEachCoord(shape, (coord, i) => {
    let src = 0;
    for (let k = 0; k < coord.length; ++k) src += (coord[k] % x.shape[k]) * inStrides[k];
    data[i] = x.data[src];
  });
  return { shape, elemType: x.elemType, data };
}

export function expand(x: Known, target: number[]): Known {
  const shape = broadcast([x.shape, target]);
  const index = broadcastIndex(x.shape, shape);
  return gathered(x, shape, (i) => index[i]);
}

export function where(cond: Known, x: Known, y: Known): Known {
  const shape = broadcast([cond.shape, x.shape, y.shape]);
  const [ci, xi, yi] = [cond, x, y].map((v) => broadcastIndex(v.shape, shape));
  const data: Elements = new Array(numel(shape));
  for (let i = 0; i < data.length; ++i) data[i] = cond.data[ci[i]] ? x.data[xi[i]] : y.data[yi[i]];
  return { shape, elemType: x.elemType, data };
}

export function nonZero(x: Known): Known {
  const hits: number[][] = [];
  // NaN is not zero: ONNX's NonZero follows numpy.nonzero, and ORT's kernel
  // (onnxruntime/core/providers/cpu/tensor/nonzero_op.cc) tests `!= 0`.
  const isNonZero = (v: unknown): boolean => (typeof v === 'number' ? v !== 0 : Boolean(v));
  forEachCoord(x.shape, (coord, i) => { if (isNonZero(x.data[i])) hits.push([...coord]); });
  const rank = x.shape.length;
  const data: Elements = [];
  for (let k = 0; k < rank; ++k) for (const h of hits) data.push(BigInt(h[k]));
  return { shape: [rank, hits.length], elemType: INT64, data };
}

/**
 * The sizes of Split's outputs along an axis of size `d`. `split` (the input from Split-13, the
 * attribute before) gives them; else `num_outputs` (Split-18) cuts ceil(d / n) each, the last
 * part smaller; else (before opset 18) the parts are equal and must divide d. Sources: onnx
 * 1.23.1 Split-18 / Split-13 doc and shape inference (onnx/defs/tensor/defs.cc: "The input is not
 * evenly splittable", "Neither 'split' input nor 'num_outputs' attribute has been given"), and
 * ONNX Runtime 1.30 (core/providers/cpu/tensor/split.cc, PrepareForCompute), which fails where a
 * part would be negative (d = 5 in 4 parts: "Split size 2 exceeds the remaining size").
 */
export function splitSizes(d: number, outputs: number, opset: number, split?: number[], numOutputs?: number): number[] {
  if (split) {
    if (split.length !== outputs) throw new FoldGap(`split has ${split.length} sizes [${split.join(',')}] for ${outputs} outputs`);
    if (split.some((p) => p < 0) || split.reduce((a, b) => a + b, 0) !== d) throw new FoldGap(`split sizes [${split.join(',')}] do not add up to ${d}`);
    return split;
  }
  if (numOutputs !== undefined && opset >= 18) {
    if (numOutputs !== outputs) throw new FoldGap(`num_outputs is ${numOutputs}, the node has ${outputs} outputs`);
    const each = Math.ceil(d / numOutputs);
    const last = d - each * (numOutputs - 1);
    if (last < 0) throw new FoldGap(`an axis of size ${d} cannot be cut into ${numOutputs} parts of ${each} with a smaller last part`);
    return Array.from({ length: numOutputs }, (_, k) => (k === numOutputs - 1 ? last : each));
  }
  if (opset >= 18) throw new FoldGap("neither the split input nor the num_outputs attribute is given (Split-18 needs one)");
  if (d % outputs !== 0) throw new FoldGap(`an axis of size ${d} does not split evenly into ${outputs} outputs`);
  return new Array<number>(outputs).fill(d / outputs);
}

/** Split along `axis` into parts of `sizes`. */
export function split(x: Known, axis0: number, sizes: number[]): Known[] {
  const axis = axisOf(axis0, x.shape.length);
  let start = 0;
  return sizes.map((size) => {
    const begin = x.shape.map(() => 0);
    begin[axis] = start;
    start += size;
    const shape = [...x.shape];
    shape[axis] = size;
    const strides = stridesOf(x.shape);
    const data: Elements = new Array(numel(shape));
    forEachCoord(shape, (coord, i) => {
      let src = 0;
      for (let k = 0; k < coord.length; ++k) src += (begin[k] + coord[k]) * strides[k];
      data[i] = x.data[src];
    });
    return { shape, elemType: x.elemType, data };
  });
}

/** Movement ops by name (the reshapes are in evaluate.ts: their shape is the shape rule's). */
export const MOVEMENT: Record<string, (c: FoldContext) => Known[]> = {
  Transpose: (c) => {
    const x = required(c, 0);
    return [transpose(x, attrInts(c, 'perm') ?? x.shape.map((_, k) => x.shape.length - 1 - k))];
  },
  Slice: (c) => {
    const x = required(c, 0);
    if (c.opset < 10) {
      return [slice(x, attrInts(c, 'starts') ?? [], attrInts(c, 'ends') ?? [], attrInts(c, 'axes'))];
    }
    // starts and ends may be INT64_MAX / INT64_MIN ("to the end"): clamped, not checked.
    const ends = (k: number) => required(c, k).data.map(toClampedInt);
    return [slice(x, ends(1), ends(2), intsOf(c, 3, 'axes'), intsOf(c, 4, 'steps'))];
  },
  Gather: (c) => [gather(required(c, 0), required(c, 1), attrInt(c, 'axis', 0))],
  GatherElements: (c) => [gatherElements(required(c, 0), required(c, 1), attrInt(c, 'axis', 0))],
  Concat: (c) => [concat(c.inputs.filter((v): v is Known => !!v), attrInt(c, 'axis', 0))],
  Tile: (c) => [tile(required(c, 0), intsOf(c, 1, 'repeats')!)],
  Expand: (c) => [expand(required(c, 0), intsOf(c, 1, 'shape')!)],
  Where: (c) => [where(required(c, 0), required(c, 1), required(c, 2))],
  NonZero: (c) => [nonZero(required(c, 0))],
  Split: (c) => {
    const x = required(c, 0);
    const axis = axisOf(attrInt(c, 'axis', 0), x.shape.length);
    const given = c.opset >= 13 || (c.opset < 2 && c.inputs[1]) ? intsOf(c, 1, 'split') : attrInts(c, 'split');
    const sizes = given?.length ? given : undefined;
    const numOutputs = c.node.attributes.get('num_outputs')?.i;
    return split(x, axis, splitSizes(x.shape[axis], c.node.outputs.length, c.opset, sizes, numOutputs));
  },
};
