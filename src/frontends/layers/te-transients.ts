/**
 * Which quantizing kernels of TransformerEngine go through a high-precision
 * temporary (the normQuantizeTemporary, activationQuantizeTemporary and
 * dactTemporary behaviours, te-behaviours.ts). Each answer is a fact about TE
 * d0067d0da6cb01811b8072a7d304f0e00344ce2b, read from its source (not copied):
 * the graph builder turns a `true` into a tensor written by the kernel and read
 * by a separate quantize op, so it lives across exactly that op pair.
 */
import type { Recipe } from '../../formats/tensor-format.js';
import type { Activation } from './layer-spec.js';

/**
 * Norm-then-quantize (`layernorm_fwd` / `rmsnorm_fwd`,
 * transformer_engine/pytorch/csrc/extensions/normalization.cpp): only FP8
 * delayed scaling (`IsFloat8Quantizers`) is FULLY_FUSED. MXFP8 is UNFUSED
 * unless `NVTE_NORM_FWD_USE_CUDNN` is set and both dimensions are multiples
 * of 128 (the cuDNN MXFP8 kernel needs whole 128x128 tiles). FP8 current
 * scaling and NVFP4 write a high-precision output and its amax, then quantize
 * (FUSED_NORM_AMAX_*, or UNFUSED with cuDNN); block FP8 is UNFUSED.
 */
export function normHasTemporary(recipe: Recipe, cudnnNorms: boolean, rows: number, cols: number): boolean {
  if (recipe === 'none' || recipe === 'fp8_delayed') return false;
  if (recipe === 'mxfp8') return !(cudnnNorms && rows % 128 === 0 && cols % 128 === 0);
  return true;
}

/**
 * Activation-then-quantize in LayerNormMLP's forward: `activation_helper`
 * (csrc/extensions/activation.cpp) is FULLY_FUSED for FP8 delayed scaling and
 * MXFP8; FP8 current scaling and NVFP4 compute the activation (and amax) into
 * a high-precision temporary, then quantize. Block FP8 never passes its
 * quantizer to the activation (module/layernorm_mlp.py `_LayerNormMLP._forward`:
 * `activation_func(fc1_out, None)` then `tex.quantize`).
 */
export function activationHasTemporary(recipe: Recipe): boolean {
  return recipe !== 'none' && recipe !== 'fp8_delayed' && recipe !== 'mxfp8';
}

/**
 * The activation gradient in LayerNormMLP's backward
 * (module/layernorm_mlp.py `_LayerNormMLP.backward`): a fused
 * dbias+dact+quantize exists only for non-gated activations (gelu, relu, ...)
 * under FP8 delayed scaling and MXFP8 (`_get_act_func_supported_list`, third
 * entry). Every other case, every gated one (swiglu, geglu) included, computes
 * `dact` in high precision (`activation_func_bwd(..., None)`) and quantizes it
 * after (`tex.bgrad_quantize` or the quantizer call).
 */
export function dactHasTemporary(recipe: Recipe, kind: Activation): boolean {
  if (recipe === 'none') return false;
  const gated = kind === 'swiglu' || kind === 'geglu';
  return gated || (recipe !== 'fp8_delayed' && recipe !== 'mxfp8');
}
