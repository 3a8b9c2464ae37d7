import {
  ARCH_CODE, BUFFER_ROLE_NAMES, FORMAT_OPTION_CODE, GROUPED_KIND_NAMES, RECIPE_CODE, RECIPE_NAMES, USAGE_CODE,
  callDelayedScalingUpdate, callDequantize, callGroupedLayout, callQuantize, callSplitQuantizeLayout, callSwizzleScales,
  callTensorSpecBuffers, callTensorSpecCheckBuffers, callTensorSpecUpdateUsage,
} from '../abi/c-api.generated.js';
import type { CoreArray, CoreBinding } from '../abi/core-binding.js';
import { type DType, DTYPES, dtypeCode } from './dtype.js';
import { TensorplanError } from '../errors.js';

/** Quantization recipes, in ABI code order (c_api.h TP_RECIPE_LIST). */
export const RECIPES = RECIPE_NAMES;

/** A quantization recipe of FORMATS.md §2. */
export type Recipe = (typeof RECIPES)[number];

/**
 * GPU class: Hopper-class GPUs (SM < 10, SM 12.x) materialise an FP8
 * `_transpose` for columnwise use; Blackwell datacenter GPUs do not.
 */
export type Arch = 'hopper' | 'blackwell';

/** Options that change buffers or numerics. */
export interface FormatOptions {
  /** MXFP8/NVFP4 scales in the GEMM-swizzled layout (TE `optimize_for_gemm`). */
  gemmSwizzledScales?: boolean;
  /** NVFP4: one amax per row (`row_scaled_nvfp4`); needs rowwise usage. */
  nvfp4RowScaled?: boolean;
  /** NVFP4: 16-point random Hadamard transform before the columnwise cast (bf16 input). */
  nvfp4Hadamard?: boolean;
  /** NVFP4 Hadamard without the random sign mask. */
  nvfp4HadamardNoSigns?: boolean;
  /** Current / block FP8: round scales down to powers of two. */
  pow2Scales?: boolean;
  /** FP8 element format (default `fp8_e4m3`). */
  fp8Dtype?: 'fp8_e4m3' | 'fp8_e5m2';
}

/** A tensor format: what TE's `TensorSpec` holds besides data. */
export interface TensorFormat {
  /** Logical shape. */
  shape: readonly number[];
  /** Logical (high-precision) dtype: fp32, bf16 or fp16 for quantized recipes. */
  dtype: DType;
  recipe: Recipe;
  /** Rowwise usage (default true). */
  rowwise?: boolean;
  /** Columnwise usage (default true). */
  columnwise?: boolean;
  /** Default `'hopper'`. */
  arch?: Arch;
  options?: FormatOptions;
}

/** One inner buffer of a quantized tensor, in TE's flatten order. */
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
  /** A second shape TE's C++ path produces for the same bytes (NVFP4), if any. */
  altShape?: number[];
}

/** The buffers of a tensor format and TE's class names for its metadata. */
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
}

/** A buffer handed to an unflatten, to be checked against a format. */
export interface GivenBuffer {
  name: string;
  shape: readonly number[];
  /** Storage dtype or element format. */
  dtype: DType;
  bytes: number;
}

/** One entry of a split-quantize bulk layout (FORMATS.md §1). */
export interface SplitQuantizeEntry {
  member: number;
  name: string;
  shape: number[];
  offset: number;
  bytes: number;
  alignment: number;
  role: 'data' | 'scale' | 'amax';
}

/** TE split_quantize's bulk allocation for one usage. */
export interface SplitQuantizeLayout {
  entries: SplitQuantizeEntry[];
  usedBytes: number;
  baseAlignment: number;
  allocationBytes: number;
  /** NVFP4: data and scales sit back to back without gaps. */
  contiguousDataAndScale: boolean;
}

/** One 1-D buffer of a grouped tensor (FORMATS.md §3). */
export interface GroupedBuffer {
  /** GroupedTensorStorage attribute, e.g. `columnwise_scale_inv`. */
  name: string;
  dtype: DType;
  element: DType;
  /** Length in element-format units, per-member sizing (Python path). */
  elements: number;
  bytes: number;
  /** Length and bytes as TE's C++ create_grouped_tensor sizes them (total shape). */
  cppElements: number;
  cppBytes: number;
  /** Start of each member in elements (N+1 entries); empty for shape descriptors. */
  memberOffsets: number[];
}

/** A grouped tensor layout. */
export interface GroupedLayout {
  kind: 'uniform' | 'varying_first' | 'varying_last' | 'varying_both';
  logicalShape: [number, number];
  /** Element offsets of the members (N+1); TE stores them only when not uniform. */
  tensorOffsets: number[];
  hasTensorOffsets: boolean;
  buffers: GroupedBuffer[];
  totalBytes: number;
  cppTotalBytes: number;
}

/** Parameters of the reference quantization. */
export interface QuantizeParams {
  /** Amax floor for current / block scaling (default 0). */
  amaxEpsilon?: number;
  /** Delayed scaling: the quantizer's scale (default 1). */
  delayedScale?: number;
}

/** The quantized tensor: every buffer's bytes in flatten order. */
export interface QuantizedTensor {
  buffers: { name: string; bytes: Uint8Array }[];
  /** The amax the cast observed (per-tensor: `[amax]`; NVFP4: the stored amaxes). */
  amax: number[];
}

/** Result of a delayed-scaling update. */
export interface DelayedScalingUpdate {
  /** `[historyLen][count]` row-major, rolled with row 0 cleared. */
  amaxHistory: number[];
  scale: number[];
  amax: number[];
}

const ROLES = BUFFER_ROLE_NAMES;
const GROUPED_KINDS = GROUPED_KIND_NAMES;
const OPTION_BITS = Object.entries(FORMAT_OPTION_CODE) as [keyof typeof FORMAT_OPTION_CODE, number][];

function invalid(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

function dims(shape: unknown, field: string): Float64Array {
  if (!Array.isArray(shape)) invalid(`${field} must be an array of dimensions`);
  return Float64Array.from(shape, (d) => (typeof d === 'number' ? d : Number.NaN));
}

/** Encodes a format (shape aside) as the `format[6]` codes of c_api.h. */
function formatCodes(format: Omit<TensorFormat, 'shape'>, field = 'format'): Int32Array {
  if (format === null || typeof format !== 'object') invalid(`${field} must be an object`);
  const dtype = dtypeCode(format.dtype);
  if (dtype < 0) invalid(`${field}.dtype = ${JSON.stringify(format.dtype)}: expected one of ${DTYPES.join(', ')}`);
  const recipe = Object.hasOwn(RECIPE_CODE, format.recipe) ? RECIPE_CODE[format.recipe] : -1;
  if (recipe < 0) invalid(`${field}.recipe = ${JSON.stringify(format.recipe)}: expected one of ${RECIPES.join(', ')}`);
  const arch = format.arch ?? 'hopper';
  if (arch !== 'hopper' && arch !== 'blackwell') invalid(`${field}.arch = ${JSON.stringify(arch)}: expected hopper or blackwell`);
  const usage = ((format.rowwise ?? true) ? USAGE_CODE.rowwise : 0) | ((format.columnwise ?? true) ? USAGE_CODE.columnwise : 0);
  const options = format.options ?? {};
  let bits = 0;
  for (const [key, bit] of OPTION_BITS) if (options[key]) bits |= bit;
  const fp8 = dtypeCode(options.fp8Dtype ?? 'fp8_e4m3');
  return Int32Array.from([dtype, recipe, usage, ARCH_CODE[arch], bits, fp8]);
}

function names(blob: CoreArray, offsets: CoreArray): string[] {
  const decoder = new TextDecoder();
  const out: string[] = [];
  for (let i = 0; i + 1 < offsets.length; i++) out.push(decoder.decode(blob.subarray(offsets[i], offsets[i + 1])));
  return out;
}

function shapes(offsets: CoreArray, values: CoreArray): number[][] {
  const out: number[][] = [];
  for (let i = 0; i + 1 < offsets.length; i++) out.push(Array.from(values.subarray(offsets[i], offsets[i + 1])));
  return out;
}

function text(bytes: CoreArray): string {
  return new TextDecoder().decode(bytes);
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
  if (mode !== 'proto' && mode !== 'storage') invalid(`mode = ${JSON.stringify(mode)}: expected proto or storage`);
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
  buffers.forEach((buffer, i) => {
    if (buffer === null || typeof buffer !== 'object' || typeof buffer.name !== 'string') invalid(`buffers[${i}].name must be a string`);
    nameBytes.push(...encoder.encode(buffer.name));
    nameOffsets[i + 1] = nameBytes.length;
    bufferDims.push(...dims(buffer.shape, `buffers[${i}].shape`));
    shapeOffsets[i + 1] = bufferDims.length;
    const code = dtypeCode(buffer.dtype);
    if (code < 0) invalid(`buffers[${i}].dtype = ${JSON.stringify(buffer.dtype)}: expected one of ${DTYPES.join(', ')}`);
    dtypes[i] = code;
    bytes[i] = typeof buffer.bytes === 'number' ? buffer.bytes : Number.NaN;
  });
  callTensorSpecCheckBuffers(core, {
    dims: shape, rank: shape.length, format: codes, names: Uint8Array.from(nameBytes), namesLength: nameBytes.length,
    nameOffsets, shapeOffsets, bufferDims: Float64Array.from(bufferDims), dtypes, bytes, count: buffers.length,
  });
}

/** TE split_quantize's bulk layout (FORMATS.md §1) of members for one usage. */
export function splitQuantizeLayout(core: CoreBinding, members: readonly (readonly number[])[],
  format: Omit<TensorFormat, 'shape' | 'rowwise' | 'columnwise'>, usage: 'rowwise' | 'columnwise'): SplitQuantizeLayout {
  const codes = formatCodes(format);
  if (!Array.isArray(members)) invalid('members must be an array of shapes');
  if (usage !== 'rowwise' && usage !== 'columnwise') invalid(`usage = ${JSON.stringify(usage)}: expected rowwise or columnwise`);
  const offsets = new Int32Array(members.length + 1);
  const all: number[] = [];
  members.forEach((shape, i) => {
    all.push(...dims(shape, `members[${i}]`));
    offsets[i + 1] = all.length;
  });
  const r = callSplitQuantizeLayout(core, {
    shapeOffsets: offsets, dims: Float64Array.from(all), count: members.length, format: codes, columnwise: usage === 'columnwise' ? 1 : 0,
  });
  const entryNames = names(r.names, r.nameOffsets);
  const entryShapes = shapes(r.shapeOffsets, r.dims);
  return {
    entries: entryNames.map((name, i) => ({
      member: r.members[i], name, shape: entryShapes[i], offset: r.offsets[i], bytes: r.bytes[i], alignment: r.alignments[i],
      role: ROLES[r.roles[i]],
    })),
    usedBytes: r.totals[0],
    baseAlignment: r.totals[1],
    allocationBytes: r.totals[2],
    contiguousDataAndScale: r.contiguous[0] === 1,
  };
}

/** The grouped tensor layout (FORMATS.md §3) of 2-D members, with both scale sizings. */
export function groupedLayout(core: CoreBinding, members: readonly (readonly number[])[],
  format: Omit<TensorFormat, 'shape'>): GroupedLayout {
  const codes = formatCodes(format);
  if (!Array.isArray(members)) invalid('members must be an array of [rows, cols]');
  const flat = new Float64Array(members.length * 2);
  members.forEach((shape, i) => {
    if (!Array.isArray(shape) || shape.length !== 2) invalid(`members[${i}] must be [rows, cols]`);
    flat[2 * i] = typeof shape[0] === 'number' ? shape[0] : Number.NaN;
    flat[2 * i + 1] = typeof shape[1] === 'number' ? shape[1] : Number.NaN;
  });
  const r = callGroupedLayout(core, { memberDims: flat, count: members.length, format: codes });
  const bufferNames = names(r.names, r.nameOffsets);
  const memberOffsets = shapes(r.memberOffsetCsr, r.memberOffsets);
  return {
    kind: GROUPED_KINDS[r.info[0]],
    logicalShape: [r.logical[0], r.logical[1]],
    tensorOffsets: Array.from(r.tensorOffsets),
    hasTensorOffsets: r.info[1] === 1,
    buffers: bufferNames.map((name, i) => ({
      name, dtype: DTYPES[r.dtypes[i]], element: DTYPES[r.elements[i]], elements: r.elementCounts[i], bytes: r.bytes[i],
      cppElements: r.cppElementCounts[i], cppBytes: r.cppBytes[i], memberOffsets: memberOffsets[i],
    })),
    totalBytes: r.totals[0],
    cppTotalBytes: r.totals[1],
  };
}

/**
 * Reference quantization (FORMATS.md §4): `input` holds the raw little-endian
 * bytes of the logical dtype (fp32/bf16/fp16), row-major.
 */
export function quantize(core: CoreBinding, format: TensorFormat, input: Uint8Array, params: QuantizeParams = {}): QuantizedTensor {
  const codes = formatCodes(format);
  const shape = dims(format.shape, 'format.shape');
  if (!(input instanceof Uint8Array)) invalid('input must be a Uint8Array of raw fp32/bf16/fp16 bytes');
  const r = callQuantize(core, {
    dims: shape, rank: shape.length, format: codes, input, inputBytes: input.length, amaxEpsilon: params.amaxEpsilon ?? 0,
    delayedScale: params.delayedScale ?? 1,
  });
  const spec = tensorSpecBuffers(core, format);
  return {
    buffers: spec.buffers.map((b, i) => ({ name: b.name, bytes: r.bytes.slice(r.bufferOffsets[i], r.bufferOffsets[i + 1]) })),
    amax: Array.from(r.amax),
  };
}

/** Reference dequantization back to raw bytes of the logical dtype. */
export function dequantize(core: CoreBinding, format: TensorFormat, buffers: readonly Uint8Array[]): Uint8Array {
  const codes = formatCodes(format);
  const shape = dims(format.shape, 'format.shape');
  if (!Array.isArray(buffers)) invalid('buffers must be an array of Uint8Array, in flatten order');
  const total = buffers.reduce((n, b) => n + b.length, 0);
  const joined = new Uint8Array(total);
  let at = 0;
  for (const b of buffers) {
    joined.set(b, at);
    at += b.length;
  }
  return callDequantize(core, { dims: shape, rank: shape.length, format: codes, buffers: joined, buffersBytes: total }).bytes;
}

/** GEMM swizzle of a row-major scale matrix (FORMATS.md §4.7), or its inverse. */
export function swizzleScales(core: CoreBinding, source: Uint8Array, rows: number, cols: number,
  options: { transpose?: boolean; validRows?: number; validCols?: number; inverse?: boolean } = {}): Uint8Array {
  if (!(source instanceof Uint8Array)) invalid('source must be a Uint8Array');
  return callSwizzleScales(core, {
    source, srcRows: rows, srcCols: cols, transpose: options.transpose ? 1 : 0,
    validRows: options.validRows ?? (options.transpose ? cols : rows), validCols: options.validCols ?? (options.transpose ? rows : cols),
    inverse: options.inverse ? 1 : 0,
  }).bytes;
}

/** Delayed scaling update (FORMATS.md §4.4) for `scale.length` quantizers. */
export function delayedScalingUpdate(core: CoreBinding, amaxHistory: readonly number[], historyLen: number,
  scale: readonly number[], options: { algo?: 'max' | 'most_recent'; fp8Max?: number; margin?: number } = {}): DelayedScalingUpdate {
  if (!Array.isArray(amaxHistory) || !Array.isArray(scale)) invalid('amaxHistory and scale must be arrays of numbers');
  const algo = options.algo ?? 'max';
  if (algo !== 'max' && algo !== 'most_recent') invalid(`algo = ${JSON.stringify(algo)}: expected max or most_recent`);
  const r = callDelayedScalingUpdate(core, {
    amaxHistory: Float64Array.from(amaxHistory), historyLen, scale: Float64Array.from(scale), count: scale.length,
    algo: algo === 'max' ? 0 : 1, fp8Max: options.fp8Max ?? 448, margin: options.margin ?? 0,
  });
  return { amaxHistory: Array.from(r.amaxHistory), scale: Array.from(r.scale), amax: Array.from(r.amax) };
}

/** JSON form of a tensor format (version 1): the format plus TE-style metadata. */
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
  if (format.recipe === 'none') {
    metadata = { is_tensor: true, is_quantized: false, dtype: format.dtype, requires_grad: requiresGrad };
  } else {
    const kwargs: Record<string, unknown> = { quantizer: spec.quantizerClass, fake_dtype: format.dtype };
    if (format.recipe === 'nvfp4') {
      kwargs.fp4_dtype = 'fp4_e2m1';
      kwargs.with_gemm_swizzled_scales = options.gemmSwizzledScales;
      kwargs.row_scaled_nvfp4 = options.nvfp4RowScaled;
    } else {
      kwargs.fp8_dtype = options.fp8Dtype;
      if (format.recipe === 'mxfp8') kwargs.with_gemm_swizzled_scales = options.gemmSwizzledScales;
      if (format.recipe === 'fp8_block_1d' || format.recipe === 'fp8_block_2d') kwargs.is_2D_scaled = format.recipe === 'fp8_block_2d';
    }
    const internal = extra.internal ?? false;
    metadata = {
      cls: internal ? spec.storageClass : spec.tensorClass, is_tensor: !internal, requires_grad: requiresGrad, nontensor_kwargs: kwargs,
    };
  }
  return {
    version: 1, shape: Array.from(format.shape), dtype: format.dtype, recipe: format.recipe,
    rowwise: format.rowwise ?? true, columnwise: format.columnwise ?? true, arch: format.arch ?? 'hopper',
    options, requiresGrad, metadata,
  };
}

/** Reads the JSON form back into a format, checking every field and the format itself. */
export function tensorSpecFromJson(core: CoreBinding, json: unknown): TensorFormat {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) invalid('tensor spec JSON must be an object');
  const j = json as Record<string, unknown>;
  if (j.version !== 1) invalid(`version = ${JSON.stringify(j.version)}: expected 1`);
  if (!Array.isArray(j.shape) || j.shape.some((d) => typeof d !== 'number')) invalid('shape must be an array of numbers');
  for (const key of ['rowwise', 'columnwise'] as const) {
    if (typeof j[key] !== 'boolean') invalid(`${key} = ${JSON.stringify(j[key])}: expected a boolean`);
  }
  const options = j.options ?? {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) invalid('options must be an object');
  for (const [key, value] of Object.entries(options)) {
    if (!(key in DEFAULT_OPTIONS)) invalid(`options.${key}: unknown option`);
    if (key === 'fp8Dtype' ? value !== 'fp8_e4m3' && value !== 'fp8_e5m2' : typeof value !== 'boolean') {
      invalid(`options.${key} = ${JSON.stringify(value)}: ${key === 'fp8Dtype' ? 'expected fp8_e4m3 or fp8_e5m2' : 'expected a boolean'}`);
    }
  }
  const format: TensorFormat = {
    shape: j.shape as number[], dtype: j.dtype as DType, recipe: j.recipe as Recipe,
    rowwise: j.rowwise as boolean, columnwise: j.columnwise as boolean, arch: (j.arch ?? 'hopper') as Arch,
    options: { ...DEFAULT_OPTIONS, ...(options as FormatOptions) },
  };
  tensorSpecBuffers(core, format);  // the core checks dtype, recipe, arch, shape rules
  return format;
}

/** One inner tensor of a flattened quantized tensor (TE `__tensor_flatten__`). */
export interface InnerTensor {
  shape: number[];
  /** Storage dtype (`uint8`, `fp32`, or the plain dtype). */
  dtype: DType;
  data: Uint8Array;
}

/** Flattens a quantized tensor into its named inner tensors, in flatten order. */
export function flatten(core: CoreBinding, format: TensorFormat, quantized: QuantizedTensor): Record<string, InnerTensor> {
  const spec = tensorSpecBuffers(core, format);
  if (quantized === null || typeof quantized !== 'object' || !Array.isArray(quantized.buffers)) invalid('quantized must be a quantize() result');
  const out: Record<string, InnerTensor> = {};
  spec.buffers.forEach((buffer, i) => {
    const given = quantized.buffers[i];
    if (!given || given.name !== buffer.name) invalid(`quantized.buffers[${i}] should be "${buffer.name}"`);
    out[buffer.name] = { shape: buffer.shape, dtype: buffer.dtype, data: given.bytes };
  });
  return out;
}

/**
 * Rebuilds the buffer list of a format from named inner tensors (TE
 * `__tensor_unflatten__`): every buffer is checked by the core (name, shape,
 * dtype, bytes); the result is in flatten order, ready for dequantize().
 */
export function unflatten(core: CoreBinding, format: TensorFormat, inner: Readonly<Record<string, InnerTensor>>): Uint8Array[] {
  if (inner === null || typeof inner !== 'object') invalid('inner must be an object of named inner tensors');
  const entries = Object.entries(inner);
  entries.forEach(([name, t]) => {
    if (t === null || typeof t !== 'object' || !(t.data instanceof Uint8Array)) invalid(`inner["${name}"].data must be a Uint8Array`);
  });
  checkBuffers(core, format, entries.map(([name, t]) => ({ name, shape: t.shape, dtype: t.dtype, bytes: t.data.length })));
  return tensorSpecBuffers(core, format).buffers.map((b) => inner[b.name].data);
}
