// The recipe each role of a layer is quantized with (inputs, weights,
// gradients), from the spec's `recipe`. `fp8_block` is TE's
// Float8BlockScaling: 1x128 tiles for inputs and gradients, 128x128 for
// weights (TransformerEngine d0067d0da6, transformer_engine/common/recipe/
// __init__.py `Float8BlockScaling`: x_block_scaling_dim = 1,
// w_block_scaling_dim = 2, grad_block_scaling_dim = 1).
import type { Recipe } from '../../../formats/tensor-format.js';
import type { LayerSpec, RoleRecipe } from '../layer-spec.js';

/** The recipe of each role. */
export interface Roles { inputs: Recipe; weights: Recipe; gradients: Recipe }

const ROLE_RECIPES: Record<string, Recipe> = {
  none: 'none', bf16: 'none', fp8_delayed: 'fp8_delayed', fp8_current: 'fp8_current', mxfp8: 'mxfp8', nvfp4: 'nvfp4',
  fp8_block_1d: 'fp8_block_1d', fp8_block_2d: 'fp8_block_2d',
};

/** The spec's recipe, one per role. */
export function resolveRecipe(spec: LayerSpec): Roles {
  const r = spec.recipe ?? 'none';
  if (typeof r === 'string') {
    if (r === 'fp8_block') return { inputs: 'fp8_block_1d', weights: 'fp8_block_2d', gradients: 'fp8_block_1d' };
    const one = ROLE_RECIPES[r];
    return { inputs: one, weights: one, gradients: one };
  }
  const pick = (v: RoleRecipe | undefined) => ROLE_RECIPES[v ?? 'none'];
  return { inputs: pick(r.inputs), weights: pick(r.weights), gradients: pick(r.gradients) };
}

/** TE's per-tensor FP8 quantizers (tensor/float8_tensor.py `Float8Quantizer`, `Float8CurrentScalingQuantizer`). */
export function isPerTensorFp8(recipe: Recipe): boolean {
  return recipe === 'fp8_delayed' || recipe === 'fp8_current';
}
