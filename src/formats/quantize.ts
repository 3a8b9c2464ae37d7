// Reference quantization of a tensor format, its inverse, delayed scaling,
// and TE's flatten/unflatten of a quantized tensor.
import { callDelayedScalingUpdate, callDequantize, callQuantize } from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { byteArray, numberList, shown } from '../errors.js';
import type { DType } from './dtype.js';
import { type TensorFormat, dims, formatCodes, invalid } from './tensor-format.js';
import { checkBuffers, tensorSpecBuffers } from './tensor-spec.js';

/**
 * Parameters of the reference quantization.
 *
 * @group Formats
 */
export interface QuantizeParams {
  /** Amax floor for current / block scaling (default 0). */
  amaxEpsilon?: number;
  /** Delayed scaling: the quantizer's scale (default 1). */
  delayedScale?: number;
}

/**
 * The quantized tensor: every buffer's bytes in flatten order.
 *
 * @group Formats
 */
export interface QuantizedTensor {
  buffers: { name: string; bytes: Uint8Array }[];
  /** The amax the cast observed (per-tensor: `[amax]`; NVFP4: the stored amaxes). */
  amax: number[];
}

/**
 * Result of a delayed-scaling update.
 *
 * @group Formats
 */
export interface DelayedScalingUpdate {
  /** `[historyLen][count]` row-major, rolled with row 0 cleared. */
  amaxHistory: number[];
  scale: number[];
  amax: number[];
}

/**
 * Reference quantization (FORMATS.md §4): `input` holds the raw little-endian
 * bytes of the logical dtype (fp32/bf16/fp16), row-major.
 */
export function quantize(core: CoreBinding, format: TensorFormat, input: Uint8Array, params: QuantizeParams = {}): QuantizedTensor {
  const codes = formatCodes(format);
  const shape = dims(format.shape, 'format.shape');
  byteArray(input, 'input', 'a Uint8Array of raw fp32/bf16/fp16 bytes');
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
  if (!Array.isArray(buffers)) invalid(`buffers = ${shown(buffers)}: must be an array of Uint8Array, in flatten order`);
  Array.from(buffers).forEach((b, i) => byteArray(b, `buffers[${i}]`));
  const total = buffers.reduce((n, b) => n + b.length, 0);
  const joined = new Uint8Array(total);
  let at = 0;
  for (const b of buffers) {
    joined.set(b, at);
    at += b.length;
  }
  return callDequantize(core, { dims: shape, rank: shape.length, format: codes, buffers: joined, buffersBytes: total }).bytes;
}

/** Delayed scaling update (FORMATS.md §4.4) for `scale.length` quantizers. */
export function delayedScalingUpdate(core: CoreBinding, amaxHistory: readonly number[], historyLen: number,
  scale: readonly number[], options: { algo?: 'max' | 'most_recent'; fp8Max?: number; margin?: number } = {}): DelayedScalingUpdate {
  const history = numberList(amaxHistory, 'amaxHistory');
  const scales = numberList(scale, 'scale');
  const algo = options.algo ?? 'max';
  if (algo !== 'max' && algo !== 'most_recent') invalid(`algo = ${shown(algo)}: expected max or most_recent`);
  const r = callDelayedScalingUpdate(core, {
    amaxHistory: history, amaxHistoryCount: history.length, historyLen, scale: scales, count: scales.length,
    algo: algo === 'max' ? 0 : 1, fp8Max: options.fp8Max ?? 448, margin: options.margin ?? 0,
  });
  return { amaxHistory: Array.from(r.amaxHistory), scale: Array.from(r.scale), amax: Array.from(r.amax) };
}

/**
 * One inner tensor of a flattened quantized tensor (TE `__tensor_flatten__`).
 *
 * @group Formats
 */
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
    byteArray(given.bytes, `quantized.buffers[${i}].bytes`);
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
