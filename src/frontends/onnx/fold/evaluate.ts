// Constant folding by evaluation: a node whose inputs are all known at import time gets its
// outputs' elements computed, for the ops shape computations are written with. Any subgraph of
// these ops over known values folds, however an exporter writes it (PyTorch's F.pad lowering:
// Concat -> Reshape([-1,2]) -> Slice(step -1) -> Transpose -> Reshape([-1]) -> Cast -> Pad).
import { MAX_FOLD_ELEMENTS, isFoldableType, numel } from './elements.js';
import { ARITHMETIC_OPS } from './arithmetic.js';
import { MOVEMENT } from './movement.js';
import type { FoldContext, Known } from './tensor.js';

export type { FoldContext, Known } from './tensor.js';

/** Ops whose output keeps input 0's elements in order (only the shape changes; the shape rule gives it). */
const SAME_ELEMENTS = new Set(['Reshape', 'Squeeze', 'Unsqueeze', 'Flatten', 'Identity', 'Dropout']);

const EVALUATED: Record<string, (c: FoldContext) => Known[] | undefined> = { ...MOVEMENT, ...ARITHMETIC_OPS };

/** Operator types (default domain) the evaluator computes, besides Shape, Size and Constant, which the importer folds itself. */
export const FOLDED_OPS: readonly string[] = [...new Set([...Object.keys(EVALUATED), ...SAME_ELEMENTS])].sort();

/**
 * The outputs of a node whose inputs are all known, or undefined when the op is not evaluated,
 * an input is not a numeric type the evaluator computes, or an output would exceed
 * MAX_FOLD_ELEMENTS. `shapes` are the shape rule's outputs when it has one: they size the result
 * before it is computed, and give the shape of the ops in SAME_ELEMENTS. Throws FoldGap when the
 * values are invalid for the op (an index out of range, an integer division by zero).
 */
export function evaluateNode(c: FoldContext, shapes?: readonly number[][]): Known[] | undefined {
  const op = c.node.domain === '' || c.node.domain === 'ai.onnx' ? c.node.opType : undefined;
  if (!op) return undefined;
  const live = c.inputs.filter((v): v is Known => !!v);
  if (!live.every((v) => isFoldableType(v.elemType))) return undefined;
  if (shapes?.some((s) => numel(s) > MAX_FOLD_ELEMENTS)) return undefined;
  if (SAME_ELEMENTS.has(op)) {
    const x = c.inputs[0];
    if (!x || !shapes?.[0] || numel(shapes[0]) !== x.data.length) return undefined;
    return [{ shape: [...shapes[0]], elemType: x.elemType, data: x.data }];
  }
  const f = EVALUATED[op];
  if (!f) return undefined;
  // Ops without a shape rule (NonZero) are bounded by their input; all others by `shapes`.
  if (!shapes && live.some((v) => v.data.length > MAX_FOLD_ELEMENTS)) return undefined;
  return f(c);
}
