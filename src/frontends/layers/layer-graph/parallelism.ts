// Tensor and sequence parallelism: the collectives TE's modules run and the
// buffers they write (TransformerEngine d0067d0da6, transformer_engine/pytorch/
// distributed.py `gather_along_first_dim`, `reduce_scatter_along_first_dim`,
// `allreduce`; module/linear.py `_linear_forward_impl`, `_linear_backward`).
// With SP a column-parallel input is all-gathered from `[M/tp, in]` to
// `[M, in]` (quantized where the format allows, else in high precision), and
// a row-parallel output is reduce-scattered back; without SP the partial
// results are all-reduced in place.
import { type GraphState, invalid } from './graph-state.js';
import type { LayerTensorRole } from './layer-graph-types.js';
import { quantized } from './quantized-tensors.js';
import { isPerTensorFp8 } from './role-recipes.js';
import { type Parallel, type QuantizedTensor, type Usage, all, use } from './values.js';

/**
 * Whether a GEMM input is quantized rowwise only because it is all-gathered:
 * FP8 per-tensor quantizers support only rowwise all-gather
 * (tensor/float8_tensor.py supports_only_rowwise_all_gather). With SP,
 * Linear, LayerNormLinear and LayerNormMLP then quantize the local input
 * rowwise only (module/linear.py _linear_forward_impl, layernorm_linear.py
 * _LayerNormLinear.forward, layernorm_mlp.py _LayerNormMLP._forward:
 * set_usage(columnwise=False)) and save it rowwise; backward gathers it
 * rowwise again and builds the columnwise usage on the gathered copy
 * (module/_common.py set_quantizer_usage_for_wgrad_all_gather, then
 * update_usage(columnwise_usage=True)).
 */
export function rowwiseOnlyGather(g: GraphState, parallel: Parallel): boolean {
  return g.sp && parallel === 'column' && isPerTensorFp8(g.roles.inputs);
}

/** A high-precision all-gather of `inputs` into a new `[rows, cols]` buffer `name`. */
export function allGather(g: GraphState, name: string, opName: string, inputs: (string | undefined)[], rows: number, cols: number,
  module: string): string {
  const full = g.hp(name, rows, cols, module, 'communication');
  g.op(opName, 'all_gather', inputs, [full]);
  return full;
}

/**
 * All-gathers the `usage` buffers of a rank-local quantized input into a new
 * quantized `[rows, cols]` tensor and returns it. When TE's `is_quantizable`
 * rejects the local shape, TE dequantizes it, gathers in high precision and
 * quantizes the result (distributed.py `_all_gather_fp8_blockwise`,
 * `_all_gather_nvfp4`, `_all_gather_mxfp8`).
 */
export function gatherQuantized(g: GraphState, name: string, opName: string, local: QuantizedTensor, usage: Usage, rows: number,
  cols: number, module: string): QuantizedTensor {
  const recipe = g.roles.inputs;
  const gq = quantized(g, name, [rows, cols], recipe, [usage], module, 'communication');
  if (!gq) invalid(`${g.prefix}${name}: no quantized buffers for recipe ${recipe}`);
  if (local.quantizable) {
    g.op(opName, 'all_gather', use(local, usage), all(gq));
  } else {
    const localHp = g.hp(`${name}_local_hp`, local.shape[0], cols, module, 'communication');
    g.op(`${opName}_dequantize`, 'dequantize', use(local, usage), [localHp]);
    const fullHp = g.hp(`${name}_hp`, rows, cols, module, 'communication');
    g.tag([localHp, fullHp], 'highPrecisionGather');
    g.op(opName, 'all_gather', [localHp], [fullHp]);
    g.op(`${opName}_cast`, 'quantize', [fullHp], all(gq));
  }
  return gq;
}

/** A reduce-scatter of `input` into a new `[rows, cols]` buffer `name`. */
export function reduceScatter(g: GraphState, name: string, opName: string, input: string, rows: number, cols: number,
  module: string, role: LayerTensorRole): string {
  const out = g.hp(name, rows, cols, module, role);
  g.op(opName, 'reduce_scatter', [input], [out]);
  return out;
}

/**
 * Sums the `[rows, cols]` partial results of the TP ranks (tp > 1): a
 * reduce-scatter to `<stem>_scattered` `[rows/tp, cols]` with SP, else an
 * in-place all-reduce to `<stem>_reduced`. Ops are `<opStem>reduce_scatter`
 * and `<opStem>all_reduce`.
 */
export function sumOverTp(g: GraphState, input: string, rows: number, cols: number, module: string, role: LayerTensorRole,
  stem: string, opStem: string): { name: string; rows: number } {
  if (g.sp) {
    const local = rows / g.tp;
    return { name: reduceScatter(g, `${stem}_scattered`, `${opStem}reduce_scatter`, input, local, cols, module, role), rows: local };
  }
  const out = g.hp(`${stem}_reduced`, rows, cols, module, role);
  g.op(`${opStem}all_reduce`, 'all_reduce', [input], [out]);
  g.writer.inPlace(out, input);
  return { name: out, rows };
}
