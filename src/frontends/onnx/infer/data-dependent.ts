// Shape rules for operators whose output length depends on the input's values (NonZero, Unique,
// Compress): where the values it depends on are known at import time the output is counted (by
// the rule, or for NonZero by the evaluator), and otherwise the rule gives the largest shape the
// output can have, which the plan sizes the output by. ONNX Runtime allocates these outputs once
// it has counted them (core/providers/cpu/tensor/non_zero_op.cc, unique.cc, compress.cc), so a
// plan by the bound holds what ORT allocates. Shapes: onnx 1.23.1 Operators.md (NonZero-13,
// Unique-11, Compress-11); the bound of each is stated on its rule.
import { DT } from '../onnx-model.js';
import { attr, gap, input, normAxis, numel } from '../infer-helpers.js';
import type { Rule, Value } from '../infer-helpers.js';
import type { Elements, Scalar } from '../fold/elements.js';

/** A value whose shape is an upper bound (the output's real length depends on element values): why. */
export interface BoundedValue extends Value {
  bound?: string;
}

const bounded = (shape: number[], elemType: number, why: string): BoundedValue => ({ shape, elemType, bound: why });

/** An element's identity for counting distinct values: NaNs are one value, and -0 is 0 (numpy's unique). */
const key = (v: Scalar): string => (typeof v === 'bigint' ? `${v}` : Number.isNaN(v) ? 'nan' : `${v === 0 ? 0 : v}`);
const nonzero = (v: Scalar): boolean => (typeof v === 'bigint' ? v !== 0n : v !== 0);

/**
 * NonZero: (rank, count) int64 indices of the nonzero elements; count <= numel(X). For a scalar
 * the spec's inference gives rank 0 rows, ONNX Runtime's kernel one (non_zero_op.cc: a scalar
 * is treated as shape [1]); the bound takes ORT's, which holds both. With X's elements known the
 * evaluator (fold/movement.ts, nonZero) computes the value and its shape.
 */
const nonZero: Rule = (c) => {
  const x = input(c, 0);
  if (x.data) gap('NonZero of known elements is computed by the evaluator');
  return [bounded([Math.max(x.shape.length, 1), numel(x.shape)], DT.INT64, 'NonZero: at most every element is nonzero')];
};

/**
 * Unique: without `axis`, Y is 1-D of U <= numel(X) elements, indices and counts (U), and
 * inverse_indices (numel(X)); with `axis`, Y is X with U <= X.shape[axis] slices on that axis,
 * inverse_indices (X.shape[axis]).
 */
const unique: Rule = (c) => {
  const x = input(c, 0);
  const axisAttr = attr(c, 'axis');
  const why = 'Unique: at most every element (slice) is distinct';
  const axis = axisAttr?.i === undefined ? undefined : normAxis(axisAttr.i, x.shape.length);
  const n = axis === undefined ? numel(x.shape) : x.shape[axis];
  const u = x.data ? distinct(x.data, axis === undefined ? [n] : x.shape, axis ?? 0) : undefined;
  const y = (count: number) => (axis === undefined ? [count] : x.shape.map((d, k) => (k === axis ? count : d)));
  const out = (shape: number[], elemType: number): Value => (u === undefined ? bounded(shape, elemType, why) : { shape, elemType });
  const count = u ?? n;
  return [out(y(count), x.elemType), out([count], DT.INT64), { shape: [n], elemType: DT.INT64 }, out([count], DT.INT64)];
};

/**
 * Compress: without `axis`, a 1-D output of the flattened input's elements whose condition is
 * true; with `axis`, the input with the selected slices on that axis. The condition may be shorter
 * than the input (the rest is not selected): at most min(length, condition length) are selected;
 * with the condition known, exactly its true entries within that length.
 */
const compress: Rule = (c) => {
  const x = input(c, 0), cond = input(c, 1);
  if (cond.shape.length !== 1) gap(`the condition has rank ${cond.shape.length}; Compress takes a 1-D condition`);
  const axisAttr = attr(c, 'axis');
  const axis = axisAttr?.i === undefined ? undefined : normAxis(axisAttr.i, x.shape.length);
  const length = axis === undefined ? numel(x.shape) : x.shape[axis];
  const limit = Math.min(length, cond.shape[0]);
  const known = cond.data ? cond.data.slice(0, limit).filter(nonzero).length : undefined;
  const n = known ?? limit;
  const shape = axis === undefined ? [n] : x.shape.map((d, k) => (k === axis ? n : d));
  return [known === undefined ? bounded(shape, x.elemType, 'Compress: at most every entry of the condition is true') : { shape, elemType: x.elemType }];
};

/** How many distinct slices `data` (of `shape`) has along `axis`. */
function distinct(data: Elements, shape: number[], axis: number): number {
  const outer = numel(shape.slice(0, axis)), n = shape[axis], inner = numel(shape.slice(axis + 1));
  const seen = new Set<string>();
  for (let i = 0; i < n; ++i) {
    const parts: string[] = [];
    for (let o = 0; o < outer; ++o) for (let k = 0; k < inner; ++k) parts.push(key(data[(o * n + i) * inner + k]));
    seen.add(parts.join(','));
  }
  return seen.size;
}

export const DATA_DEPENDENT_RULES: Record<string, Rule> = { NonZero: nonZero, Unique: unique, Compress: compress };
