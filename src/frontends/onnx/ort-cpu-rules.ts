// ONNX Runtime's CPU execution provider, as far as it decides memory: which kernels may write
// their output into an input (KernelDefBuilder().MayInplace), which return a view of an input
// (.Alias), and which allocate scratch while they run. The importer's `runtime: 'ort-cpu'` makes
// these aliases and op workspaces, so a plan is comparable with what ORT allocates. Read from
// microsoft/onnxruntime (MIT), files and kernel registrations cited per rule; no code is copied.
import type { DType } from '../../formats/dtype.js';
import type { Value } from './onnx-infer.js';
import type { OnnxNode } from './onnx-model.js';

/** The runtimes whose rules the importer knows (`--runtime`). */
export const RUNTIMES = ['ort-cpu'] as const;
export type OnnxRuntimeName = (typeof RUNTIMES)[number];

/**
 * Op types whose CPU kernels are registered with `.MayInplace(0, 0)`, with the element types of
 * those registrations. onnxruntime/core/providers/cpu/activation/activations.cc (commit
 * 0fa60acbf6da): the REGISTER_*UNARY_ELEMENTWISE* macros (Elu, HardSigmoid, LeakyRelu, Selu,
 * Softplus, Softsign, Celu, ThresholdedRelu: float; Relu: float, double, and int8/int32 from
 * opset 14; Sigmoid, Tanh: float, double). onnxruntime/core/providers/cpu/math/softmax.cc: Softmax
 * and LogSoftmax (opsets 1-10, 11-12 and 13) on float, `KernelDefBuilder().MayInplace(0, 0)`; their
 * double registrations have none. So an attention's Softmax writes its probabilities over its scores
 * (Whisper's encoder: one [heads, frames, frames] buffer instead of two; measured on onnxruntime
 * 1.30.0 by test/frontends/onnx/ort-cpu-in-place.test.ts). onnxruntime/core/providers/cpu/math/clip.cc
 * (commit 033181a87b83): Clip 6-10 (float), 11 (float, double), 12 and 13 (float, double, int8,
 * uint8, int64, uint64), `.MayInplace(0, 0)`. The binary element-wise kernels (Add, Sub, Mul, Div in
 * onnxruntime/core/providers/cpu/math/element_wise_ops.cc, commit 04b13b22c03c,
 * REG_ELEMENTWISE_TYPED_KERNEL) declare no MayInplace, so ORT never writes them in place.
 * ORT's planner takes a MayInplace pair only where the input's buffer has no other use left and the
 * output has the input's element size and shape (onnxruntime/core/framework/allocation_planner.cc,
 * commit 005c192599b3, PlannerImpl::FindReusableInput, tried by ComputeSingleStreamReusePlan before
 * any freed buffer); the core's in-place rule (in-place-rule.ts) asks the same of these ops, whose
 * output has the input's shape and dtype.
 * Contrib kernels (domain com.microsoft): QuickGelu (onnxruntime/contrib_ops/cpu/activations.cc,
 * ONNX_OPERATOR_KERNEL_EX(QuickGelu, kMSDomain, 1, ...)) and FastGelu
 * (contrib_ops/cpu/bert/fast_gelu.cc, commit 577b8d6bf9a8) are registered without MayInplace, so
 * they are not listed; the fused attention and normalization kernels write fresh outputs.
 */
export const ORT_CPU_MAY_INPLACE: ReadonlyMap<string, readonly DType[]> = new Map<string, readonly DType[]>([
  ...['Elu', 'HardSigmoid', 'LeakyRelu', 'Selu', 'Softplus', 'Softsign', 'Celu', 'ThresholdedRelu'].map((op) => [op, ['fp32']] as const),
  ['Relu', ['fp32', 'fp64', 'int8', 'int32']],
  ['Sigmoid', ['fp32', 'fp64']],
  ['Tanh', ['fp32', 'fp64']],
  ['Softmax', ['fp32']],
  ['LogSoftmax', ['fp32']],
  ['Clip', ['fp32', 'fp64', 'int8', 'uint8', 'int64']],
]);

/**
 * Op types whose CPU kernels are registered with `.Alias(0, 0)`: the output is input 0's buffer.
 * The importer makes these views already (VIEW_OPS), runtime or not.
 * onnxruntime/core/providers/cpu/tensor/reshape.cc (commit bad1e8c060080, Reshape 1-4, 5-12, 13,
 * 14: `.Alias(0, 0)`); tensor/identity_op.cc (commit 32f4cba61d82, Identity 1-12 and 13:
 * `.Alias(0, 0)`); tensor/squeeze.cc, tensor/unsqueeze.cc, nn/flatten.cc (the same builder call).
 */
export const ORT_CPU_ALIAS: readonly string[] = ['Reshape', 'Squeeze', 'Unsqueeze', 'Flatten', 'Identity'];

/**
 * ONNX Runtime's intra-op thread count when a session does not set one, as the importer assumes
 * it (`ortThreads`). ORT's own default (SessionOptions.intra_op_num_threads = 0) is one thread per
 * physical core of the machine that runs the session, which a plan made elsewhere cannot know; a
 * plan must not depend on the machine that makes it, so the importer assumes 1 (the value of
 * `intra_op_num_threads = 1`, and of any default session on a one-core machine: ORT creates no
 * intra-op pool then). Only the MLAS Conv working buffer depends on it.
 */
export const ORT_DEFAULT_THREADS = 1;

// MLAS constants, onnxruntime/core/mlas/lib/mlasi.h (commit 7c8b0950e0fc): MLAS_SGEMM_STRIDEN and
// MLAS_SGEMM_STRIDEK 128 (convolve.cpp's MLAS_CONV_WORKING_BUFFER_SIZE_PER_THREAD is their
// product), MLAS_MAXIMUM_THREAD_COUNT 16, MLAS_SGEMM_STRIDEN_THREAD_ALIGN 16,
// MLAS_SGEMM_THREAD_COMPLEXITY 64 * 1024.
const SGEMM_STRIDEN = 128;
const SGEMM_STRIDEK = 128;
const WORKING_BUFFER_PER_THREAD = SGEMM_STRIDEN * SGEMM_STRIDEK;
const MAXIMUM_THREAD_COUNT = 16;
const STRIDEN_THREAD_ALIGN = 16;
const SGEMM_THREAD_COMPLEXITY = 64 * 1024;

/** A float convolution as MlasConvPrepare receives it from conv.cc (per group: channels and filters). */
export interface MlasConvShape {
  /** N, dimension 0 of X. */
  batch: number;
  group: number;
  /** C / group: input channels per group. */
  inputChannels: number;
  /** M / group: filters per group. */
  filterCount: number;
  /** Spatial dimensions of X (1 to 3). */
  input: readonly number[];
  kernel: readonly number[];
  dilations: readonly number[];
  /** Begin pads then end pads, as InferPadsAndOutputShape leaves them (auto_pad resolved). */
  pads: readonly number[];
  strides: readonly number[];
  /** Spatial dimensions of Y. */
  output: readonly number[];
}

/**
 * Elements of the working buffer MLAS asks for a float Conv of rank 1-3: MlasConvPrepare's
 * `*WorkingBufferSize`, which conv.cc (Conv<float>::Compute) allocates as that many floats from the
 * temp-space allocator. onnxruntime/core/mlas/lib/convolve.cpp (commit 00b8ce23ed3b,
 * MlasConvPrepare), for x86-64 and the generic targets (the KleidiAI override on Arm64 Linux and
 * the WebAssembly-scalar depthwise kernel are not modelled):
 * - all strides 1 and no padding: a pointwise kernel (K = input channels) is GemmDirect, 0; so is a
 *   rank-1 or rank-2 kernel with one input channel per group, dilations 1, whose width is the
 *   input's, or whose height is the input's and width 1 (rank 1 is promoted to [1, W] first);
 * - else FilterCount > OutputSize: ExpandThenGemm, the whole im2col, OutputSize * K;
 * - else ExpandThenGemmSegmented: T threads of MLAS_SGEMM_STRIDEN * MLAS_SGEMM_STRIDEK each, T from
 *   the complexity FilterCount * OutputSize * K (one thread per 64Ki multiplies, at most 16), at
 *   most `threads`, less when the N dimension split into 16-aligned strides leaves a thread idle;
 *   with a batch or groups above 1 instead min(threads, batch * group) buffers of
 *   max(OutputSize * K, FilterCount * OutputSize, MLAS_SGEMM_STRIDEN * MLAS_SGEMM_STRIDEK).
 * `threads` is MlasGetMaximumThreadCount: ThreadPool::DegreeOfParallelism (core/common/threadpool.cc),
 * the pool's threads plus the caller, which is intra_op_num_threads (1 without a pool).
 */
export function mlasConvWorkingBufferElements(conv: MlasConvShape, threads: number): number {
  const dims = conv.kernel.length;
  const product = (a: readonly number[]) => a.reduce((x, y) => x * y, 1);
  const outputSize = product(conv.output);
  const k = conv.inputChannels * product(conv.kernel);
  const stridesOne = conv.strides.every((s) => s === 1);
  const noPadding = conv.pads.every((p) => p === 0);
  if (stridesOne && noPadding) {
    if (k === conv.inputChannels) return 0;
    // MLAS promotes rank 1 to rank 2 as [1, W] before this test.
    const input = dims === 1 ? [1, conv.input[0]] : conv.input;
    const kernel = dims === 1 ? [1, conv.kernel[0]] : conv.kernel;
    if (dims <= 2 && conv.dilations.every((d) => d === 1) && conv.inputChannels === 1) {
      if (kernel[1] === input[1]) return 0;
      if (kernel[0] === input[0] && kernel[1] === 1) return 0;
    }
  }
  if (conv.filterCount > outputSize) return outputSize * k;
  const complexity = conv.filterCount * outputSize * k;
  let target = complexity < SGEMM_THREAD_COMPLEXITY * MAXIMUM_THREAD_COUNT ? Math.floor(complexity / SGEMM_THREAD_COMPLEXITY) + 1 : MAXIMUM_THREAD_COUNT;
  if (target >= threads) target = threads;
  let strideN = Math.ceil(outputSize / target);
  if (target > 1) {
    strideN = Math.ceil(strideN / STRIDEN_THREAD_ALIGN) * STRIDEN_THREAD_ALIGN;
    if (strideN >= outputSize) target = 1;
    else if (strideN * (target - 1) >= outputSize) target--;
  }
  if (conv.batch > 1 || conv.group > 1) {
    const perThread = Math.max(outputSize * k, conv.filterCount * outputSize, WORKING_BUFFER_PER_THREAD);
    return Math.min(threads, conv.batch * conv.group) * perThread;
  }
  return target * WORKING_BUFFER_PER_THREAD;
}

/**
 * Bytes of the im2col buffer ConvInteger allocates from the temp-space allocator while it runs:
 * kernel_dim * output_image_size uint8 elements, kernel_dim = C / group * prod(kernel_shape); none
 * when the kernel size is 1 with strides 1 and no pads (the GEMM reads X directly).
 * onnxruntime/core/providers/cpu/quantization/conv_integer.cc (commit 009855cfa44f,
 * ConvInteger::Compute; registered for uint8 X and W only, ONNX_OPERATOR_KERNEL_EX(ConvInteger, 10)).
 */
export function ortConvIntegerScratchBytes(channels: number, group: number, kernel: readonly number[], strides: readonly number[], pads: readonly number[], output: readonly number[]): number {
  const kernelSize = kernel.reduce((a, b) => a * b, 1);
  if (kernelSize === 1 && strides.every((s) => s === 1) && pads.every((p) => p === 0)) return 0;
  return Math.floor(channels / group) * kernelSize * output.reduce((a, b) => a * b, 1);
}

/**
 * Bytes of the col buffer ConvTranspose<float> allocates from the temp-space allocator: kernel_dim
 * * input_image_size floats, kernel_dim = M / group * prod(kernel_shape) with M = W's dimension 1
 * times group, always (no pointwise shortcut). onnxruntime/core/providers/cpu/nn/conv_transpose.cc
 * (commit 009855cfa44f, ConvTranspose<float>::DoConvTranspose; registered for float only).
 */
export function ortConvTransposeScratchBytes(filtersPerGroup: number, kernel: readonly number[], input: readonly number[]): number {
  return filtersPerGroup * kernel.reduce((a, b) => a * b, 1) * input.reduce((a, b) => a * b, 1) * 4;
}

/** Pads as ORT's ConvAttributes::InferPadsAndOutputShape resolves them (auto_pad SAME_* / VALID / NOTSET). */
function resolvedPads(autoPad: string, pads: readonly number[], input: readonly number[], kernel: readonly number[], strides: readonly number[], dilations: readonly number[]): number[] {
  const rank = input.length;
  if (autoPad === 'VALID') return new Array(2 * rank).fill(0);
  if (!autoPad.startsWith('SAME')) return [...pads];
  const out = new Array(2 * rank).fill(0);
  for (let d = 0; d < rank; d++) {
    const o = Math.ceil(input[d] / strides[d]);
    const total = Math.max(0, (o - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1 - input[d]);
    out[d] = autoPad === 'SAME_LOWER' ? Math.ceil(total / 2) : Math.floor(total / 2);
    out[d + rank] = total - out[d];
  }
  return out;
}

/**
 * The scratch an ORT CPU kernel allocates while `node` runs (its op workspace), from its input X,
 * weight W and output Y, with `threads` intra-op threads: the MLAS working buffer of a float Conv
 * of rank 1-3 (mlasConvWorkingBufferElements, 4 bytes each), conv.cc's full im2col for a float
 * Conv of higher rank, ConvInteger's im2col (uint8), ConvTranspose's col buffer (float); 0 for
 * other ops and for element types ORT's CPU kernels of these ops do not take.
 */
export function ortCpuScratchBytes(node: OnnxNode, x: Value | undefined, w: Value | undefined, y: Value | undefined, threads: number = ORT_DEFAULT_THREADS): number {
  if (!['Conv', 'ConvInteger', 'ConvTranspose'].includes(node.opType) || (node.domain !== '' && node.domain !== 'ai.onnx')) return 0;
  if (!x || !w || !y || x.shape.length < 3) return 0;
  const rank = x.shape.length - 2;
  const ints = (name: string, fallback: number[]) => {
    const a = node.attributes.get(name);
    return a && a.ints.length ? a.ints : fallback;
  };
  const group = node.attributes.get('group')?.i ?? 1;
  const kernel = ints('kernel_shape', w.shape.slice(2));
  const strides = ints('strides', new Array(rank).fill(1));
  const dilations = ints('dilations', new Array(rank).fill(1));
  const input = x.shape.slice(2), output = y.shape.slice(2);
  const autoPad = node.attributes.get('auto_pad')?.s ?? 'NOTSET';
  const pads = resolvedPads(autoPad, ints('pads', new Array(2 * rank).fill(0)), input, kernel, strides, dilations);
  // ONNX TensorProto element types: 1 float, 2 uint8.
  if (node.opType === 'ConvTranspose') return x.elemType === 1 ? ortConvTransposeScratchBytes(w.shape[1], kernel, input) : 0;
  if (node.opType === 'ConvInteger') {
    // HasStridesOneAndNoPadding reads the pads attribute (empty under auto_pad), not the resolved pads.
    return x.elemType === 2 && w.elemType === 2 ? ortConvIntegerScratchBytes(x.shape[1], group, kernel, strides, ints('pads', new Array(2 * rank).fill(0)), output) : 0;
  }
  if (x.elemType !== 1) return 0;
  if (rank > 3) return Math.floor(x.shape[1] / group) * kernel.reduce((a, b) => a * b, 1) * output.reduce((a, b) => a * b, 1) * 4;
  return 4 * mlasConvWorkingBufferElements({
    batch: x.shape[0], group, inputChannels: Math.floor(x.shape[1] / group), filterCount: Math.floor(w.shape[0] / group),
    input, kernel, dilations, pads, strides, output,
  }, threads);
}
