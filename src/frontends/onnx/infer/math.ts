// Shape rules for element-wise and linear-algebra operators onnx-infer.ts's tables do not list,
// onnx 1.23.1 onnx/defs/math/defs.cc (Acosh / Asinh / Atanh-22, CumProd-26, Det-22),
// onnx/defs/tensor/defs.cc (BitCast-26) and onnx/defs/nn/defs.cc (RMSNormalization-23).
import { attr, gap, input, normAxis } from '../infer-helpers.js';
import type { Rule } from '../infer-helpers.js';
import { ONNX_DTYPES } from '../onnx-model.js';

/** Y shaped and typed like input 0. */
const same: Rule = (c) => { const x = input(c, 0); return [{ shape: [...x.shape], elemType: x.elemType }]; };

/** Bits per element of an element type (packed types by their bits, others by bytes), or undefined (STRING). */
function bitsOf(t: number): number | undefined {
  const d = ONNX_DTYPES[t];
  if (!d) return undefined;
  if (d.bits) return d.bits;
  if (d.bytes) return 8 * d.bytes;
  const widths: Record<string, number> = { fp32: 32, uint8: 8, int8: 8, int16: 16, int32: 32, int64: 64, bool: 8, fp16: 16, fp64: 64, bf16: 16, fp8_e4m3: 8, fp8_e5m2: 8, fp4_e2m1: 4 };
  return d.dtype ? widths[d.dtype] : undefined;
}

/** BitCast: the input's shape, element type `to`, which must have the input type's bit width. */
const bitCast: Rule = (c) => {
  const x = input(c, 0);
  const to = attr(c, 'to')?.i ?? gap('the "to" attribute is missing');
  const from = bitsOf(x.elemType), width = bitsOf(to);
  if (from === undefined || width === undefined || from !== width) gap(`element types ${x.elemType} and ${to} do not have one bit width`);
  return [{ shape: [...x.shape], elemType: to }];
};

/** Det: X (*, M, M) gives (*). */
const det: Rule = (c) => {
  const x = input(c, 0);
  const r = x.shape.length;
  if (r < 2 || x.shape[r - 1] !== x.shape[r - 2]) gap(`X [${x.shape.join(',')}] is not (*, M, M)`);
  return [{ shape: x.shape.slice(0, -2), elemType: x.elemType }];
};

/**
 * RMSNormalization: Y has X's shape and type. The schema's constraint names Y's type V (the
 * scale's), but its inference function gives X's type (propagateElemTypeFromInputToOutput from
 * input 0), and the reference implementation (onnx/reference/ops/op_rms_normalization.py) returns
 * X's dtype: both agree on X's.
 */
const rmsNormalization: Rule = (c) => {
  const x = input(c, 0);
  input(c, 1);
  normAxis(attr(c, 'axis')?.i ?? -1, x.shape.length);
  return [{ shape: [...x.shape], elemType: x.elemType }];
};

export const MATH_RULES: Record<string, Rule> = {
  Acosh: same, Asinh: same, Atanh: same,
  CumProd: same,
  BitCast: bitCast,
  Det: det,
  RMSNormalization: rmsNormalization,
};
