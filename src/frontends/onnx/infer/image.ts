// Shape rules for the image and region operators, onnx 1.23.1 onnx/defs/nn/defs.cc (GridSample-22,
// AffineGrid-20, DeformConv-22, Col2Im-18, MaxUnpool-22, MaxRoiPool-22), onnx/defs/object_detection/
// defs.cc (RoiAlign-22), onnx/defs/tensor/defs.cc (CenterCropPad-18) and onnx/defs/image/defs.cc
// (ImageDecoder-20); Operators.md gives each output's shape.
import { attrInt, attrInts, conv, constInput, gap, input, normAxis, numel } from '../infer-helpers.js';
import type { InferContext, Rule, Value } from '../infer-helpers.js';
import { imageSize } from './image-size.js';

/** GridSample: X (N, C, D1..Dr), grid (N, D1_out..Dr_out, r); Y (N, C, D1_out..Dr_out) of X's type. */
function gridSample(c: InferContext): Value[] {
  const x = input(c, 0), grid = input(c, 1);
  const r = x.shape.length - 2;
  if (r < 1 || grid.shape.length !== r + 2 || grid.shape[r + 1] !== r) gap(`X [${x.shape.join(',')}] and grid [${grid.shape.join(',')}] do not match (grid is (N, D1_out..Dr_out, r))`);
  return [{ shape: [x.shape[0], x.shape[1], ...grid.shape.slice(1, r + 1)], elemType: x.elemType }];
}

/** AffineGrid: size (N, C, H, W) gives (N, H, W, 2); size (N, C, D, H, W) gives (N, D, H, W, 3); theta's type. */
function affineGrid(c: InferContext): Value[] {
  const theta = input(c, 0);
  const size = constInput(c, 1, 'size') ?? gap('size is missing');
  if (size.length !== 4 && size.length !== 5) gap(`size has ${size.length} elements, expected 4 (2-D) or 5 (3-D)`);
  return [{ shape: [size[0], ...size.slice(2), size.length - 2], elemType: theta.elemType }];
}

/** RoiAlign: X (N, C, H, W), rois (num_rois, 4); Y (num_rois, C, output_height, output_width), defaults 1. */
function roiAlign(c: InferContext): Value[] {
  const x = input(c, 0), rois = input(c, 1);
  return [{ shape: [rois.shape[0], x.shape[1], attrInt(c, 'output_height', 1), attrInt(c, 'output_width', 1)], elemType: x.elemType }];
}

/** MaxRoiPool: X (N, C, H, W), rois (num_rois, 5); Y (num_rois, C, pooled_shape[0], pooled_shape[1]). */
function maxRoiPool(c: InferContext): Value[] {
  const x = input(c, 0), rois = input(c, 1);
  const pooled = attrInts(c, 'pooled_shape') ?? gap('the pooled_shape attribute is missing');
  return [{ shape: [rois.shape[0], x.shape[1], ...pooled], elemType: x.elemType }];
}

/** Col2Im: input (N, C * prod(block_shape), L), image_shape and block_shape constant; output (N, C, ...image_shape). */
function col2Im(c: InferContext): Value[] {
  const x = input(c, 0);
  const image = constInput(c, 1, 'image_shape') ?? gap('image_shape is missing');
  const block = constInput(c, 2, 'block_shape') ?? gap('block_shape is missing');
  const blocks = numel(block);
  if (x.shape.length !== 3 || blocks === 0 || x.shape[1] % blocks !== 0) gap(`input [${x.shape.join(',')}] is not (N, C * ${blocks}, L)`);
  return [{ shape: [x.shape[0], x.shape[1] / blocks, ...image], elemType: x.elemType }];
}

/** CenterCropPad: the input's shape with the `axes` (default all) set to `shape`. */
function centerCropPad(c: InferContext): Value[] {
  const x = input(c, 0);
  const sizes = constInput(c, 1, 'shape') ?? gap('shape is missing');
  const axes = (attrInts(c, 'axes') ?? x.shape.map((_, k) => k)).map((a) => normAxis(a, x.shape.length));
  if (axes.length !== sizes.length) gap(`shape has ${sizes.length} elements for ${axes.length} axes`);
  const shape = [...x.shape];
  axes.forEach((a, k) => { shape[a] = sizes[k]; });
  return [{ shape, elemType: x.elemType }];
}

/**
 * MaxUnpool: output_shape (input 2) when given; else per spatial axis
 * (in - 1) * stride + kernel - pad_begin - pad_end, batch and channels as X's.
 */
function maxUnpool(c: InferContext): Value[] {
  const x = input(c, 0);
  const given = constInput(c, 2, 'output_shape');
  if (given) return [{ shape: given, elemType: x.elemType }];
  const kernel = attrInts(c, 'kernel_shape') ?? gap('the kernel_shape attribute is missing');
  const n = kernel.length;
  const strides = attrInts(c, 'strides') ?? new Array(n).fill(1);
  const pads = attrInts(c, 'pads') ?? new Array(2 * n).fill(0);
  const spatial = kernel.map((k, i) => (x.shape[i + 2] - 1) * strides[i] + k - pads[i] - pads[i + n]);
  return [{ shape: [x.shape[0], x.shape[1], ...spatial], elemType: x.elemType }];
}

/**
 * ImageDecoder: the decoded image is (H, W, 3) for RGB / BGR, (H, W, 1) for Grayscale, uint8; its
 * height and width are written in the encoded bytes, so the output's shape is that of the image
 * when the stream is known at import time (image-size.ts reads the header of each format
 * ImageDecoder decodes), and is refused otherwise.
 */
function imageDecoder(c: InferContext): Value[] {
  const stream = input(c, 0);
  const channels = (c.node.attributes.get('pixel_format')?.s ?? 'RGB') === 'Grayscale' ? 1 : 3;
  if (!stream.data) gap('the decoded image\'s height and width are written in the encoded stream, which is not known at import time');
  const size = imageSize(stream.data!.map(Number));
  if (!size) gap('the encoded stream is not a JPEG, PNG, BMP, JPEG 2000, TIFF, WebP or PNM image whose header the importer reads');
  return [{ shape: [size![0], size![1], channels], elemType: 2 }];
}

export const IMAGE_RULES: Record<string, Rule> = {
  GridSample: gridSample,
  AffineGrid: affineGrid,
  RoiAlign: roiAlign,
  MaxRoiPool: maxRoiPool,
  DeformConv: (c) => conv(c, 0, 1),
  Col2Im: col2Im,
  CenterCropPad: centerCropPad,
  MaxUnpool: maxUnpool,
  ImageDecoder: imageDecoder,
};
