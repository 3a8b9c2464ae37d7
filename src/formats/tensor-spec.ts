// The inner buffers of a tensor format (TE's TensorSpec), usage updates,
// buffer checks, and the format's JSON form.
import {
  USAGE_CODE, callTensorSpecBuffers, callTensorSpecCheckBuffers, callTensorSpecUpdateUsage,
} from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { shown } from '../errors.js';
import { type DType, DTYPES, dtypeCode } from './dtype.js';
import { canonicalRecipe } from './recipe-names.js';
import {
  type Arch, type FormatOptions, type Recipe, type TensorFormat, ROLES, defaultArch, dims, formatCodes, invalid, names, shapes, text,
} from './tensor-format.js';

/**
 * One inner buffer of a quantized tensor, in TE's flatten order.
 *
 * @group Formats
 */
export interface InnerBuffer {
  /** TE attribute name, e.g. `_rowwise_scale_inv`. */
  name: string;
  shape: number[];
  /** Storage dtype as PyTorch holds it (`uint8` for FP8/FP4/E8M0, `fp32` scales). */
  dtype: DType;
  /** What the bytes mean (`fp8_e4m3`, `fp4_e2m1` two per byte, `e8m0`, ...). */
  element: DType;
  bytes: number;
  /** 256 for data, 16 for scales and amaxes (TE's bulk allocation alignments). */
  alignment: number;
  role: 'data' | 'scale' | 'amax';
  /** The usages this buffer serves. */
  usages: ('rowwise' | 'columnwise')[];
  /**
   * The shape TE's Python `inner_tensor_specs` gives where it differs from the
   * C++ allocation that `shape` and `bytes` follow (NVFP4 `_columnwise_data` of
   * rank >= 3, row-scaled `_amax_columnwise`); its byte count may differ.
   */
  altShape?: number[];
}

/**
 * The buffers of a tensor format and TE's class names for its metadata.
 *
 * @group Formats
 */
export interface TensorSpecBuffers {
  buffers: InnerBuffer[];
  totalBytes: number;
  /** TE storage class (internal quantizer), e.g. `MXFP8TensorStorage`. */
  storageClass: string;
  /** TE tensor subclass, e.g. `MXFP8Tensor`. */
  tensorClass: string;
  /** TE quantizer class, e.g. `MXFP8Quantizer` (`''` for none). */
  quantizerClass: string;
  /**
   * Whether TE's `is_quantizable` accepts the shape, so TE's modules quantize
   * it rather than keep it in high precision (block FP8 allocates any shape
   * but quantizes only M, K multiples of 128).
   */
  quantizable: boolean;
  /** The rule that fails when not quantizable, else `''`. */
  quantizableReason: string;
  /**
   * Why TE's quantize refuses an output of this format, else `''`: per-tensor
   * FP8 columnwise-only on Hopper (TE `check_per_tensor_fp8_quantize_output`).
   * `quantize` throws with this message.
   */
  quantizeRefusal: string;
}

/**
 * A buffer handed to an unflatten, to be checked against a format.
 *
 * @group Formats
 */
export interface GivenBuffer {
  name: string;
  shape: readonly number[];
  /** Storage dtype or element format. */
  dtype: DType;
  bytes: number;
}

/** The inner buffers of a tensor format (FORMATS.md §2, §6), in TE flatten order. */
export function tensorSpecBuffers(core: CoreBinding, format: TensorFormat): TensorSpecBuffers {
  const codes = formatCodes(format);
  const shape = dims(format.shape, 'format.shape');
  const r = callTensorSpecBuffers(core, { dims: shape, rank: shape.length, format: codes });
  const bufferNames = names(r.names, r.nameOffsets);
  const bufferShapes = shapes(r.shapeOffsets, r.dims);
  const altShapes = shapes(r.altShapeOffsets, r.altDims);
  const buffers = bufferNames.map((name, i): InnerBuffer => {
    const usages: ('rowwise' | 'columnwise')[] = [];
    if (r.usages[i] & USAGE_CODE.rowwise) usages.push('rowwise');
    if (r.usages[i] & USAGE_CODE.columnwise) usages.push('columnwise');
    const buffer: InnerBuffer = {
      name, shape: bufferShapes[i], dtype: DTYPES[r.dtypes[i]], element: DTYPES[r.elements[i]], bytes: r.bytes[i],
      alignment: r.alignments[i], role: ROLES[r.roles[i]], usages,
    };
    if (altShapes[i].length > 0) buffer.altShape = altShapes[i];
    return buffer;
  });
  return {
    buffers, totalBytes: r.totals[0], storageClass: text(r.storageClass), tensorClass: text(r.tensorClass),
    quantizerClass: text(r.quantizerClass), quantizable: r.quantizable[0] === 1, quantizableReason: text(r.quantizableReason),
    quantizeRefusal: text(r.quantizeRefusal),
  };
}

/**
 * Usage update (FORMATS.md §6). `'proto'`: TE's TensorSpec.update_usage (any
 * change of a quantized format); `'storage'`: a real storage's update_usage,
 * which can only create a usage the format can derive. Returns the new format.
 */
export function updateUsage(core: CoreBinding, format: TensorFormat, usage: { rowwise?: boolean; columnwise?: boolean },
  mode: 'proto' | 'storage' = 'proto'): TensorFormat {
  const codes = formatCodes(format);
  const shape = dims(format.shape, 'format.shape');
  const flag = (v: boolean | undefined) => (v === undefined ? -1 : v ? 1 : 0);
  if (mode !== 'proto' && mode !== 'storage') invalid(`mode = ${shown(mode)}: expected proto or storage`);
  const { usageBits } = callTensorSpecUpdateUsage(core, {
    dims: shape, rank: shape.length, format: codes, rowwise: flag(usage?.rowwise), columnwise: flag(usage?.columnwise),
    mode: mode === 'storage' ? 1 : 0,
  });
  return { ...format, rowwise: (usageBits[0] & USAGE_CODE.rowwise) !== 0, columnwise: (usageBits[0] & USAGE_CODE.columnwise) !== 0 };
}

/** Checks buffers handed to an unflatten against a format; throws naming the first mismatch. */
export function checkBuffers(core: CoreBinding, format: TensorFormat, buffers: readonly GivenBuffer[]): void {
  const codes = formatCodes(format);
  const shape = dims(format.shape, 'format.shape');
  if (!Array.isArray(buffers)) invalid('buffers must be an array');
  const encoder = new TextEncoder();
  const nameBytes: number[] = [];
  const nameOffsets = new Int32Array(buffers.length + 1);
  const shapeOffsets = new Int32Array(buffers.length + 1);
  const bufferDims: number[] = [];
  const dtypes = new Int32Array(buffers.length);
  const bytes = new Float64Array(buffers.length);
  Array.from(buffers).forEach((buffer, i) => {
    if (buffer === null || typeof buffer !== 'object' || typeof buffer.name !== 'string') invalid(`buffers[${i}].name must be a string`);
    nameBytes.push(...encoder.encode(buffer.name));
    nameOffsets[i + 1] = nameBytes.length;
    bufferDims.push(...dims(buffer.shape, `buffers[${i}].shape`));
    shapeOffsets[i + 1] = bufferDims.length;
    const code = dtypeCode(buffer.dtype);
    if (code < 0) invalid(`buffers[${i}].dtype = ${shown(buffer.dtype)}: expected one of ${DTYPES.join(', ')}`);
    dtypes[i] = code;
    bytes[i] = typeof buffer.bytes === 'number' ? buffer.bytes : Number.NaN;
  });
  callTensorSpecCheckBuffers(core, {
    dims: shape, rank: shape.length, format: codes, names: Uint8Array.from(nameBytes), namesLength: nameBytes.length,
    nameOffsets, shapeOffsets, bufferDims: Float64Array.from(bufferDims), bufferDimsCount: bufferDims.length, dtypes, bytes, count: buffers.length,
  });
}

/**
 * JSON form of a tensor format (version 1): the format plus TE-style metadata.
 *
 * @group Formats
 */
export interface TensorSpecJson {
  version: 1;
  shape: number[];
  dtype: DType;
  recipe: Recipe;
  rowwise: boolean;
  columnwise: boolean;
  arch: Arch;
  options: Required<FormatOptions>;
  requiresGrad: boolean;
  /**
   * What TE's `Quantizer.create_metadata` / `__tensor_flatten__` context holds
   * (FORMATS.md §6); for a plain tensor `{is_tensor, is_quantized: false, dtype, requires_grad}`.
   */
  metadata: Record<string, unknown>;
}

const DEFAULT_OPTIONS: Required<FormatOptions> = {
  gemmSwizzledScales: false, nvfp4RowScaled: false, nvfp4Hadamard: false, nvfp4HadamardNoSigns: false,
  pow2Scales: false, fp8Dtype: 'fp8_e4m3',
};

/**
 * Serialises a format (checked by the core first) to its JSON form, with TE's
 * metadata dict: class name, is_tensor, requires_grad and nontensor_kwargs.
 */
export function tensorSpecToJson(core: CoreBinding, format: TensorFormat,
  extra: { requiresGrad?: boolean; internal?: boolean } = {}): TensorSpecJson {
  const spec = tensorSpecBuffers(core, format);
  const options = { ...DEFAULT_OPTIONS, ...(format.options ?? {}) };
  const requiresGrad = extra.requiresGrad ?? false;
  let metadata: Record<string, unknown>;
  // The JSON form names the recipe canonically ('bf16' is 'none').
  const recipe = canonicalRecipe(format.recipe) ?? format.recipe;
  if (recipe === 'none') {
    metadata = { is_tensor: true, is_quantized: false, dtype: format.dtype, requires_grad: requiresGrad };
  } else {
    const kwargs: Record<string, unknown> = { quantizer: spec.quantizerClass, fake_dtype: format.dtype };
    if (recipe === 'nvfp4') {
      kwargs.fp4_dtype = 'fp4_e2m1';
      kwargs.with_gemm_swizzled_scales = options.gemmSwizzledScales;
      kwargs.row_scaled_nvfp4 = options.nvfp4RowScaled;
    } else {
      kwargs.fp8_dtype = options.fp8Dtype;
      if (recipe === 'mxfp8') kwargs.with_gemm_swizzled_scales = options.gemmSwizzledScales;
      if (recipe === 'fp8_block_1d' || recipe === 'fp8_block_2d') kwargs.is_2D_scaled = recipe === 'fp8_block_2d';
    }
    const internal = extra.internal ?? false;
    metadata = {
      cls: internal ? spec.storageClass : spec.tensorClass, is_tensor: !internal, requires_grad: requiresGrad, nontensor_kwargs: kwargs,
    };
  }
  return {
    version: 1, shape: Array.from(format.shape), dtype: format.dtype, recipe: recipe as Recipe,
    rowwise: format.rowwise ?? true, columnwise: format.columnwise ?? true, arch: format.arch ?? defaultArch(format.recipe),
    options, requiresGrad, metadata,
  };
}

/** Reads the JSON form back into a format, checking every field and the format itself. */
export function tensorSpecFromJson(core: CoreBinding, json: unknown): TensorFormat {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) invalid('tensor spec JSON must be an object');
  const j = json as Record<string, unknown>;
  if (j.version !== 1) invalid(`version = ${shown(j.version)}: expected 1`);
  if (!Array.isArray(j.shape) || j.shape.some((d) => typeof d !== 'number')) invalid('shape must be an array of numbers');
  for (const key of ['rowwise', 'columnwise'] as const) {
    if (typeof j[key] !== 'boolean') invalid(`${key} = ${shown(j[key])}: expected a boolean`);
  }
  const options = j.options ?? {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) invalid('options must be an object');
  for (const [key, value] of Object.entries(options)) {
    if (!(key in DEFAULT_OPTIONS)) invalid(`options.${key}: unknown option`);
    if (key === 'fp8Dtype' ? value !== 'fp8_e4m3' && value !== 'fp8_e5m2' : typeof value !== 'boolean') {
      invalid(`options.${key} = ${shown(value)}: ${key === 'fp8Dtype' ? 'expected fp8_e4m3 or fp8_e5m2' : 'expected a boolean'}`);
    }
  }
  const format: TensorFormat = {
    shape: j.shape as number[], dtype: j.dtype as DType, recipe: j.recipe as Recipe,
    rowwise: j.rowwise as boolean, columnwise: j.columnwise as boolean, arch: (j.arch ?? defaultArch(j.recipe as Recipe)) as Arch,
    options: { ...DEFAULT_OPTIONS, ...(options as FormatOptions) },
  };
  tensorSpecBuffers(core, format);  // the core checks dtype, recipe, arch, shape rules
  return format;
}
