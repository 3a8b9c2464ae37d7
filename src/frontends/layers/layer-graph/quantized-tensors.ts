// Quantized tensors as graph tensors: each inner buffer (`_rowwise_data`,
// `_columnwise_scale_inv`, ...) its own allocation, as TE's `create_tensor`
// makes them (TransformerEngine d0067d0da6, transformer_engine/pytorch/csrc/
// quantizer.cpp), with the sizes the core computes for the recipe and arch;
// and the columnwise usage built later from a rowwise-only tensor, as
// `update_usage(columnwise_usage=True)` does in backward.
import type { Recipe, TensorFormat } from '../../../formats/tensor-format.js';
import type { LayerTensorRole } from './layer-graph-types.js';
import { type GraphState, invalid } from './graph-state.js';
import { type QuantizedTensor, type Usage, all } from './values.js';

/** The format of a `shape` tensor of `recipe` with `usages`, forward tensor or gradient. */
export function quantizedFormat(g: GraphState, shape: number[], recipe: Recipe, usages: Usage[], gradient: boolean): TensorFormat {
  return {
    shape, dtype: g.dtype, recipe, arch: g.arch,
    rowwise: usages.includes('rowwise'), columnwise: usages.includes('columnwise'), options: { fp8Dtype: g.fp8Element(recipe, gradient) },
  };
}

/**
 * The inner buffers of a quantized tensor as graph tensors; undefined when the
 * recipe is none. TE's modules quantize whatever `is_quantizable` says: that
 * check only picks a high-precision all-gather (distributed.py
 * `_all_gather_fp8_blockwise`, `_all_gather_nvfp4`; see gatherQuantized in
 * parallelism.ts).
 */
export function quantized(g: GraphState, name: string, shape: number[], recipe: Recipe, usages: Usage[], module: string,
  role: LayerTensorRole, gradient = false): QuantizedTensor | undefined {
  if (recipe === 'none') return undefined;
  let spec;
  try {
    spec = g.bufferSpec(quantizedFormat(g, shape, recipe, usages, gradient));
  } catch (error) {
    invalid(`${g.prefix}${name}: ${(error as Error).message}`);
  }
  const buffers = spec.buffers.map((buf) => ({
    tensor: g.t(`${name}.${buf.name.replace(/^_/, '')}`, { bytes: buf.bytes }, module, role, false, { buffer: buf.name, recipe }),
    name: buf.name, usages: buf.usages,
  }));
  return { buffers, shape, quantizable: spec.quantizable };
}

/**
 * The columnwise buffers of a quantized `[rows, cols]` tensor that was made
 * without them, as TE's `update_usage(columnwise_usage=True)` builds them in
 * backward: buffers the columnwise usage shares with the rowwise one are
 * reused, the rest (FP8 per-tensor `_transpose` on Hopper) come from a
 * transpose op named `opName`.
 */
export function columnwiseOf(g: GraphState, name: string, opName: string, q: QuantizedTensor, rows: number, cols: number, module: string): string[] {
  const byName = new Map(q.buffers.map((buf) => [buf.name, buf.tensor]));
  const spec = g.bufferSpec(quantizedFormat(g, [rows, cols], g.roles.inputs, ['columnwise'], false));
  const fresh: string[] = [];
  const buffers = spec.buffers.map((buf) => {
    const have = byName.get(buf.name);
    if (have) return have;
    const t = g.t(`${name}.${buf.name.replace(/^_/, '')}`, { bytes: buf.bytes }, module, 'quantizedActivation', false,
      { buffer: buf.name, recipe: g.roles.inputs });
    fresh.push(t);
    return t;
  });
  if (fresh.length > 0) g.op(opName, 'transpose', all(q), fresh);
  return buffers;
}
