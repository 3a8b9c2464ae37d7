// Constant folding by evaluation: a node whose inputs are all known at import time gets its
// outputs' elements computed, for the ops shape computations are written with. Any subgraph of
// these ops over known values folds, however an exporter writes it (PyTorch's F.pad lowering:
// Concat -> Reshape([-1,2]) -> Slice(step -1) -> Transpose -> Reshape([-1]) -> Cast -> Pad).
import { BOOL, MAX_FOLD_ELEMENTS, isFoldableType, numel } from './elements.js';
import { ARITHMETIC_OPS } from './arithmetic.js';
import { MOVEMENT } from './movement.js';
import { isSmallFloat } from './small-floats.js';
import { attrInt, required } from './tensor.js';
import type { FoldContext, Known } from './tensor.js';
import { ValueUnknown } from './value-unknown.js';

export type { FoldContext, Known } from './tensor.js';
export { ValueUnknown } from './value-unknown.js';

/** Ops whose output keeps input 0's elements in order (only the shape changes; the shape rule gives it). */
const SAME_ELEMENTS = new Set(['Reshape', 'Squeeze', 'Unsqueeze', 'Flatten', 'Identity']);
/** Ops that take FLOAT8 / FLOAT4E2M1 values (exact in a double) without computing on them. */
const TAKE_SMALL_FLOATS = new Set([...SAME_ELEMENTS, 'Cast', 'CastLike']);

/**
 * Dropout: the input and an all-true mask where nothing is dropped, else ValueUnknown (a random
 * mask). Dropout-1/6 (onnx 1.23.1 Operators.md): `is_test` nonzero is Y = X, 0 (default) is
 * training. Dropout-7/10 have no mode in the file; ONNX Runtime 1.30 runs them as a copy (ratio
 * 0.5, graph optimizations off: test/frontends/onnx/onnx-dropout.test.ts). Dropout-12/13/22: training_mode false
 * (default) or ratio 0 is a copy (the spec's ratio and training_mode inputs; ONNX Runtime
 * core/providers/cpu/nn/dropout_op.h, Dropout::Compute, "drop none"), which fails on a ratio
 * outside [0, 1) even when not training, where the spec ignores it: that stays unknown.
 */
function dropout(c: FoldContext): Known[] {
  const x = required(c, 0);
  if (c.opset < 7) {
    if (attrInt(c, 'is_test', 0) === 0) throw new ValueUnknown('Dropout with is_test=0 (the default before opset 7) runs in training mode: its output is random', true);
  } else if (c.opset >= 12) {
    const ratio = c.inputs[1] ? Number(c.inputs[1].data[0]) : 0.5;
    const training = c.inputs[2] ? c.inputs[2].data[0] !== 0n : false;
    if (!(ratio >= 0 && ratio < 1)) throw new ValueUnknown(`Dropout ratio ${ratio} is outside [0, 1): ONNX Runtime fails on it, the spec ignores it outside training`);
    if (training && ratio !== 0) throw new ValueUnknown(`Dropout with training_mode true and ratio ${ratio}: its output is a random mask times 1/(1-ratio)`, true);
  }
  return [{ shape: [...x.shape], elemType: x.elemType, data: x.data }, { shape: [...x.shape], elemType: BOOL, data: new Array(x.data.length).fill(1n) }];
}

const EVALUATED: Record<string, (c: FoldContext) => Known[] | undefined> = { ...MOVEMENT, ...ARITHMETIC_OPS, Dropout: dropout };

/** Operator types (default domain) the evaluator computes, besides Shape, Size and Constant, which the importer folds itself. */
export const FOLDED_OPS: readonly string[] = [...new Set([...Object.keys(EVALUATED), ...SAME_ELEMENTS])].sort();

/**
 * The outputs of a node whose inputs are all known, or undefined when the op is not evaluated,
 * an input is not a numeric type the evaluator computes, or an output would exceed
 * MAX_FOLD_ELEMENTS. `shapes` are the shape rule's outputs when it has one: they size the result
 * before it is computed, and give the shape of the ops in SAME_ELEMENTS. Throws FoldGap when the
 * values are invalid for the op (an index out of range, an integer division by zero), and
 * ValueUnknown when the op's value is not one the importer can stand behind (random, or the spec
 * and ONNX Runtime differ).
 */
export function evaluateNode(c: FoldContext, shapes?: readonly number[][]): Known[] | undefined {
  const op = c.node.domain === '' || c.node.domain === 'ai.onnx' ? c.node.opType : undefined;
  if (!op) return undefined;
  const live = c.inputs.filter((v): v is Known => !!v);
  if (!live.every((v) => isFoldableType(v.elemType) || (TAKE_SMALL_FLOATS.has(op) && isSmallFloat(v.elemType)))) return undefined;
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
