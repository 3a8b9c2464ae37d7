// What the evaluator computes on: a tensor whose elements are known at import time, and the
// reading of a node's attributes and constant operands.
import type { OnnxAttribute, OnnxNode } from '../onnx-model.js';
import { FoldGap, toSafeInt } from './elements.js';
import type { Elements } from './elements.js';

/** A tensor known at import time. */
export interface Known {
  shape: number[];
  elemType: number;
  data: Elements;
}

/** What one evaluation sees: the node, its inputs (undefined where omitted) and the opset. */
export interface FoldContext {
  node: OnnxNode;
  inputs: (Known | undefined)[];
  opset: number;
}

export const attribute = (c: FoldContext, name: string): OnnxAttribute | undefined => c.node.attributes.get(name);
export const attrInt = (c: FoldContext, name: string, fallback: number): number => attribute(c, name)?.i ?? fallback;
export function attrInts(c: FoldContext, name: string): number[] | undefined {
  const a = attribute(c, name);
  return a && a.ints.length ? a.ints : undefined;
}

/** Input k, which the op requires. */
export function required(c: FoldContext, k: number): Known {
  return c.inputs[k] ?? (() => { throw new FoldGap(`input ${k} is missing`); })();
}

/** The elements of input k as dimensions or indices (checked to be within 2^53); undefined if omitted. */
export function intsOf(c: FoldContext, k: number, what: string): number[] | undefined {
  const v = c.inputs[k];
  return v?.data.map((x) => toSafeInt(x, `its ${what} (input ${k}, "${c.node.inputs[k]}")`));
}

/** An axis in [-rank, rank) made non-negative. */
export function axisOf(axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) throw new FoldGap(`axis ${axis} is out of range for rank ${rank}`);
  return a;
}
