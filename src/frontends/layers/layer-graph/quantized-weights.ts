// The weight a GEMM reads under a weight recipe, in the three ways TE keeps
// it (TransformerEngine d0067d0da6, transformer_engine/pytorch/module/):
// - perStep (default): a quantized copy cast every step and saved whole, both
//   usages, until the module's backward returns (linear.py
//   `_linear_forward_impl`: set_usage(rowwise=True, columnwise=is_grad_enabled),
//   update_usage(rowwise_usage=True) drops nothing, wt_save = weightmat goes to
//   prepare_for_saving);
// - cached: the workspace TE keeps across micro-batches when
//   `is_first_microbatch` is given (linear.py `Linear.forward` cache_name,
//   base.py `quantize_weight` with cache=True), persistent;
// - primary: the persistent quantized weight itself (fp8_model_params).
import type { Recipe } from '../../../formats/tensor-format.js';
import { type GraphState, invalid } from './graph-state.js';
import { optimizerState, param } from './parameters.js';
import { quantized, quantizedFormat } from './quantized-tensors.js';
import { type QuantizedTensor, type WeightOperands, all, use } from './values.js';

/**
 * The operands a GEMM reads for a weight: the weight itself (no weight
 * recipe), a quantized copy cast every step (`perStep`, default), a
 * quantized workspace cached across micro-batches (`cached`), or the
 * persistent quantized weight itself (`primary`, TE fp8_model_params).
 */
export function gemmWeight(g: GraphState, module: string, shape: number[]): WeightOperands {
  const recipe = g.roles.weights;
  if (recipe !== 'none' && g.spec.quantizedWeights === 'cached') return cachedWeight(g, module, shape, recipe);
  if (recipe !== 'none' && g.spec.quantizedWeights === 'primary') {
    const base = `${g.layer}.${module}.weight`;
    const cached = g.persistentWeights.get(base);
    if (cached) return cached;
    // Quantized whatever is_quantizable says: TE's modules quantize unconditionally.
    const q = persistentQuantized(g, base, module, shape, recipe, 'weight');
    optimizerState(g, base, module, shape);
    const operands = { fprop: use(q, 'rowwise'), dgrad: use(q, 'columnwise'), held: [] };
    g.persistentWeights.set(base, operands);
    return operands;
  }
  const weight = param(g, module, shape);
  const wq = quantized(g, `${module}.weight_q`, shape, recipe, ['rowwise', 'columnwise'], module, 'quantizedWeight');
  if (!wq) return { fprop: [weight], dgrad: [weight], held: [] };
  g.op(`${module}.weight_cast`, 'quantize', [weight], all(wq));
  // The per-step copy is saved whole, both usages; the caller holds `held`
  // until the op that ends the module's autograd node.
  return { fprop: use(wq, 'rowwise'), dgrad: use(wq, 'columnwise'), held: all(wq) };
}

/**
 * A persistent weight tensor of `recipe`, both usages, one persistent tensor
 * per inner buffer named `<base>.<buffer>`: the FP8 primary weight (role
 * `weight`) and the cached workspace (role `quantizedWeight`) are built alike.
 */
function persistentQuantized(g: GraphState, base: string, module: string, shape: number[], recipe: Recipe,
  role: 'weight' | 'quantizedWeight'): QuantizedTensor {
  let spec;
  try {
    spec = g.bufferSpec(quantizedFormat(g, shape, recipe, ['rowwise', 'columnwise'], false));
  } catch (error) {
    invalid(`${base}: ${(error as Error).message}`);
  }
  const buffers = spec.buffers.map((buf) => {
    const name = g.t(`${base}.${buf.name.replace(/^_/, '')}`, { bytes: buf.bytes }, module, role, true,
      { buffer: buf.name, recipe, because: role === 'weight' ? 'primaryQuantizedWeight' : 'cachedWeightWorkspace' });
    g.writer.persistent(name);
    return { tensor: name, name: buf.name, usages: buf.usages };
  });
  return { buffers, shape, quantizable: spec.quantizable };
}

/**
 * The weight workspace TE caches when `is_first_microbatch` is given
 * (linear.py `Linear.forward`: `cache_name = "weight"` unless
 * is_first_microbatch is None, the workspace kept in `self._fp8_workspaces`;
 * layernorm_linear.py, layernorm_mlp.py (`cache_name_fc1`, `cache_name_fc2`)
 * and grouped_linear.py do the same). base.py `quantize_weight` with
 * `cache=True` makes it a plain tensor that outlives the step
 * (`quantizer.internal = False`), with the usages the quantizer has in
 * training: rowwise and columnwise (linear.py `_linear_forward_impl`:
 * columnwise = is_grad_enabled). It is persistent; the first micro-batch
 * refreshes it in place (the cast op here), later ones reuse it, and backward
 * reads it without a per-step copy.
 */
function cachedWeight(g: GraphState, module: string, shape: number[], recipe: Recipe): WeightOperands {
  const base = `${g.layer}.${module}.weight_cache`;
  const cached = g.persistentWeights.get(base);
  if (cached) return cached;
  const weight = param(g, module, shape);
  const q = persistentQuantized(g, base, module, shape, recipe, 'quantizedWeight');
  g.op(`${module}.weight_cache_update`, 'quantize', [weight], all(q));
  const operands = { fprop: use(q, 'rowwise'), dgrad: use(q, 'columnwise'), held: [] };
  g.persistentWeights.set(base, operands);
  return operands;
}
