// The values the module builders pass to each other: an activation or
// gradient (high precision, quantized or both), the inner buffers of a
// quantized tensor with the usages each serves (TE's rowwise and columnwise
// usages, TransformerEngine d0067d0da6, transformer_engine/pytorch/tensor/
// quantized_tensor.py `Quantizer.set_usage`), a GEMM's weight operands and a
// module's backward.

/** A usage of a quantized tensor: rowwise (fprop, dgrad's gradient) or columnwise (dgrad's weight, wgrad). */
export type Usage = 'rowwise' | 'columnwise';

/** How a Linear is split over the tensor-parallel group (TE `parallel_mode`). */
export type Parallel = 'column' | 'row' | 'none';

/** A quantized tensor: its inner buffers as graph tensors. */
export interface QuantizedTensor {
  buffers: { tensor: string; name: string; usages: Usage[] }[];
  shape: number[];
  /** TE's `is_quantizable`: whether a quantized all-gather of it is possible (else TE gathers in high precision). */
  quantizable: boolean;
}

/** An activation passed between modules: a high-precision tensor, a quantized one, or both. */
export interface Act {
  name?: string;
  q?: QuantizedTensor;
  rows: number;
  cols: number;
}

/** A module's backward: takes the gradient of its output, returns the gradient of its input. */
export type Bwd = (dy: Act) => Act;

/** A GEMM's weight operands, and the per-step quantized copy to hold until the module's backward ends. */
export interface WeightOperands { fprop: string[]; dgrad: string[]; held: string[] }

/** The buffers of `q` that serve `usage`. */
export function use(q: QuantizedTensor, usage: Usage): string[] {
  return q.buffers.filter((b) => b.usages.includes(usage)).map((b) => b.tensor);
}

/** Every buffer of `q`. */
export function all(q: QuantizedTensor): string[] {
  return q.buffers.map((b) => b.tensor);
}
