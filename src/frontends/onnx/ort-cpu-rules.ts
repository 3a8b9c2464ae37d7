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
 * opset 14; Sigmoid, Tanh: float, double). The binary element-wise kernels (Add, Sub, Mul, Div in
 * onnxruntime/core/providers/cpu/math/element_wise_ops.cc, commit 04b13b22c03c,
 * REG_ELEMENTWISE_TYPED_KERNEL) declare no MayInplace, so ORT never writes them in place.
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
]);

/**
 * Op types whose CPU kernels are registered with `.Alias(0, 0)`: the output is input 0's buffer.
 * The importer makes these views already (VIEW_OPS), runtime or not.
 * onnxruntime/core/providers/cpu/tensor/reshape.cc (commit bad1e8c060080, Reshape 1-4, 5-12, 13,
 * 14: `.Alias(0, 0)`); tensor/identity_op.cc (commit 32f4cba61d82, Identity 1-12 and 13:
 * `.Alias(0, 0)`); tensor/squeeze.cc, tensor/unsqueeze.cc, nn/flatten.cc (the same builder call).
 */
export const ORT_CPU_ALIAS: readonly string[] = ['Reshape', 'Squeeze', 'Unsqueeze', 'Flatten', 'Identity'];

interface ConvShape {
  /** Input channels (dimension 1 of X). */
  channels: number;
  group: number;
  kernel: readonly number[];
  strides: readonly number[];
  pads: readonly number[];
  /** Spatial dimensions of the output. */
  output: readonly number[];
}

/**
 * Bytes of the im2col buffer a Conv / ConvInteger kernel allocates from the temp-space allocator
 * while it runs: kernel_dim * output_image_size elements of the input type, where kernel_dim =
 * C / group * prod(kernel_shape); none for a pointwise convolution (kernel size 1, strides 1, no
 * padding), which reads the input directly. onnxruntime/core/providers/cpu/nn/conv.cc (commit
 * f8b74ff7723b, Conv<T>::Compute, `col_buffer_size = kernel_dim * output_image_size`, registered
 * as ONNX_CPU_OPERATOR_KERNEL(Conv, 11, ...)) and quantization/conv_integer.cc (commit
 * 6c6e2ebcd5fe, ConvInteger::Compute, uint8 elements, ONNX_OPERATOR_KERNEL_EX(ConvInteger, 10)).
 * For float Conv of rank 1-3, MLAS chooses the algorithm (MlasConvPrepare's WorkingBufferSize);
 * its im2col path needs at most this buffer, its depthwise and pointwise paths none, so this is
 * the largest scratch the kernel can ask for.
 */
export function ortConvScratchBytes(conv: ConvShape, elementBytes: number): number {
  const kernelSize = conv.kernel.reduce((a, b) => a * b, 1);
  const pointwise = kernelSize === 1 && conv.strides.every((s) => s === 1) && conv.pads.every((p) => p === 0);
  if (pointwise) return 0;
  const kernelDim = Math.floor(conv.channels / conv.group) * kernelSize;
  return kernelDim * conv.output.reduce((a, b) => a * b, 1) * elementBytes;
}

/**
 * The scratch an ORT CPU kernel allocates while `node` runs (its op workspace), from its input X,
 * weight W and output Y: the im2col buffer of Conv and ConvInteger (ortConvScratchBytes); 0 for
 * other ops.
 */
export function ortCpuScratchBytes(node: OnnxNode, x: Value | undefined, w: Value | undefined, y: Value | undefined): number {
  if ((node.opType !== 'Conv' && node.opType !== 'ConvInteger') || (node.domain !== '' && node.domain !== 'ai.onnx')) return 0;
  if (!x || !w || !y || x.shape.length < 3) return 0;
  const rank = x.shape.length - 2;
  const ints = (name: string, fallback: number[]) => {
    const a = node.attributes.get(name);
    return a && a.ints.length ? a.ints : fallback;
  };
  const autoPad = node.attributes.get('auto_pad')?.s ?? 'NOTSET';
  const kernel = ints('kernel_shape', w.shape.slice(2));
  // SAME_* pads by the kernel's extent; only a kernel of size 1 stays unpadded.
  const pads = autoPad.startsWith('SAME') ? kernel.map((k) => k - 1) : ints('pads', new Array(2 * rank).fill(0));
  // ORT's CPU Conv kernels are float (conv.cc) and double; ConvInteger's buffer holds uint8 (conv_integer.cc).
  const elementBytes = node.opType === 'ConvInteger' ? 1 : ({ 1: 4, 10: 2, 11: 8, 16: 2 } as Record<number, number>)[x.elemType];
  if (!elementBytes) return 0;
  return ortConvScratchBytes({
    channels: x.shape[1], group: node.attributes.get('group')?.i ?? 1, kernel, strides: ints('strides', new Array(rank).fill(1)), pads, output: y.shape.slice(2),
  }, elementBytes);
}
