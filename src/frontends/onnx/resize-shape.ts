// Resize's output shape from `scales` or `sizes`, for every opset: Resize-10 (X, scales),
// Resize-11/13 (X, roi, scales, sizes), Resize-18/19 (the `axes` and `keep_aspect_ratio_policy`
// attributes). Sources: onnx 1.23.1 Operators.md "Resize" (output_dimension = floor(input_dimension
// * (roi_end - roi_start) * scale) without sizes; the policies: scale = Min / Max(sizes[i] /
// in_size[d]) over the axes, out_size[d] = round_int(scale * in_size[d]), halves up; axes not
// listed keep their size), ONNX's shape inference (onnx/defs/tensor/utils.cc: floor of in * scale
// in DOUBLE; KeepAspectRatioHelper in DOUBLE; scales with a policy other than stretch refused), and
// ONNX Runtime 1.30 core/providers/cpu/tensor/upsamplebase.h (ComputeOutputShape:
// static_cast<int64_t>(scales[i] * input_dims[i]) in FLOAT, roi not used; AdjustOutputSizeAsPolicy:
// sizes[i] / in[i] in FLOAT, std::round of scale * in). Where exact arithmetic (the spec, and
// ONNX's DOUBLE) and ORT's FLOAT give different sizes (10 x FLOAT(0.7): 6 and 7), the shape is not
// claimed: an InferenceGap that names both.
import { attr, attrStr, constInput, gap, input, normAxis } from './infer-helpers.js';
import type { InferContext, Value } from './infer-helpers.js';

const f32 = Math.fround;

/**
 * floor(in * scale) in exact arithmetic (scale is a FLOAT, in an integer: the double product is
 * exact below 2^29), or a gap where ORT's FLOAT product truncates to another size. Upsample-7/9
 * (output_dimension = floor(input_dimension * scale)) shares ORT's ComputeOutputShape.
 */
export function scaledSize(d: number, scale: number, k: number): number {
  const exact = Math.floor(d * scale);
  const ort = Math.trunc(f32(d * scale));
  if (exact !== ort) gap(`axis ${k}: ${d} x scale ${scale} is ${exact} rounded down exactly (the spec), ${ort} in FLOAT (ONNX Runtime)`);
  return exact;
}

/** out = round_int(scale * in) with scale = min or max of sizes[i] / in[i]: exactly (rationals) and in FLOAT as ORT does. */
function policySizes(inDims: number[], sizes: number[], axes: number[], policy: string): number[] {
  // Exact: compare the ratios sizes[i] / in[d] as fractions (cross-multiplication of integers).
  let best = 0;
  axes.forEach((d, i) => {
    const better = policy === 'not_larger' ? sizes[i] * inDims[axes[best]] < sizes[best] * inDims[d] : sizes[i] * inDims[axes[best]] > sizes[best] * inDims[d];
    if (better) best = i;
  });
  const [p, q] = [sizes[best], inDims[axes[best]]];
  if (q === 0) gap(`axis ${axes[best]} has size 0: the ratio sizes / input size is not defined`);
  const ortScale = axes.reduce((s, d, i) => {
    const r = f32(f32(sizes[i]) / f32(inDims[d]));
    return policy === 'not_larger' ? Math.min(s, r) : Math.max(s, r);
  }, policy === 'not_larger' ? Infinity : 0);
  const out = [...inDims];
  for (const d of axes) {
    // round_int(p * in / q), halves up: floor((2 * p * in + q) / (2 * q)), in integers.
    const exact = Math.floor((2 * p * inDims[d] + q) / (2 * q));
    const ort = Math.round(f32(ortScale * inDims[d]));
    if (exact !== ort) gap(`axis ${d}: keep_aspect_ratio_policy "${policy}" gives ${exact} exactly (the spec), ${ort} in FLOAT (ONNX Runtime)`);
    out[d] = exact;
  }
  return out;
}

export function resizeShape(c: InferContext): Value[] {
  const x = input(c, 0);
  const rank = x.shape.length;
  const scales = c.opset >= 11 ? constInput(c, 2, 'scales') : constInput(c, 1, 'scales');
  const sizes = c.opset >= 11 ? constInput(c, 3, 'sizes') : undefined;
  const hasScales = !!scales && scales.length > 0, hasSizes = !!sizes && sizes.length > 0;
  if (hasScales && hasSizes) gap('both scales and sizes are given (the spec allows one)');
  if (!hasScales && !hasSizes) gap('neither scales nor sizes are given');
  const axesAttr = c.opset >= 18 ? attr(c, 'axes')?.ints : undefined;
  const axes = axesAttr?.length ? axesAttr.map((a) => normAxis(a, rank, c)) : x.shape.map((_, k) => k);
  if (new Set(axes).size !== axes.length) gap(`axes [${axesAttr!.join(',')}] repeat an axis`);
  const given = (hasScales ? scales : sizes)!;
  if (given.length !== axes.length) gap(`${hasScales ? 'scales' : 'sizes'} has ${given.length} values for ${axes.length} axes (rank ${rank}${axesAttr?.length ? `, axes [${axesAttr.join(',')}]` : ''})`);
  const policy = c.opset >= 18 ? attrStr(c, 'keep_aspect_ratio_policy', 'stretch') : 'stretch';
  if (!['stretch', 'not_larger', 'not_smaller'].includes(policy)) gap(`keep_aspect_ratio_policy "${policy}" is not one of stretch, not_larger, not_smaller`);
  let shape: number[];
  if (hasSizes) {
    if (sizes!.some((s) => s < 0)) gap(`sizes [${sizes!.join(',')}] has a negative size`);
    if (policy === 'stretch') {
      shape = [...x.shape];
      axes.forEach((d, i) => { shape[d] = sizes![i]; });
    } else {
      // ORT 1.30 matches the policy's axes against `axes` as written (AdjustOutputSizeAsPolicy,
      // axes_set.count(i)): a negative axis matches none, and the input size is kept.
      if (axesAttr?.some((a) => a < 0)) gap(`axes [${axesAttr.join(',')}] hold a negative axis: with keep_aspect_ratio_policy "${policy}" ONNX Runtime 1.30 keeps the input's sizes, the spec resizes`);
      shape = policySizes(x.shape, sizes!, axes, policy);
    }
  } else {
    if (scales!.some((s) => !(s > 0))) gap(`scales [${scales!.join(',')}] has a value that is not > 0`);
    if (policy !== 'stretch') gap(`keep_aspect_ratio_policy "${policy}" applies to sizes, and scales are given (ONNX's shape inference refuses the pair)`);
    // roi scales the size only in tf_crop_and_resize mode (the spec's formula); ORT ignores it: a roi other than [0, 1] is not claimed.
    if (c.opset >= 11 && attrStr(c, 'coordinate_transformation_mode', 'half_pixel') === 'tf_crop_and_resize') {
      const roi = constInput(c, 1, 'roi') ?? gap('coordinate_transformation_mode is tf_crop_and_resize and roi is missing');
      const n = axes.length;
      if (roi.length !== 2 * n || roi.some((v, k) => (k < n ? v !== 0 : v !== 1))) {
        gap(`roi [${roi.join(',')}] with tf_crop_and_resize: the spec scales the size by roi_end - roi_start, ONNX Runtime 1.30 does not`);
      }
    }
    shape = [...x.shape];
    axes.forEach((d, i) => { shape[d] = scaledSize(x.shape[d], scales![i], d); });
  }
  return [{ shape, elemType: x.elemType }];
}
