// Facts the layer-graph builder asks the core instead of deciding them: which
// recipes TE's split_quantize bulk-allocates, the FP8 element of forward
// tensors and gradients (tp_recipe_facts, cited in core-cpp recipe_facts.h),
// and element sizes from the core's dtype table (tp_dtype_facts).
import { callDtypeFacts, callRecipeFacts } from '../../abi/c-api.generated.js';
import { DTYPE_NAME, RECIPE_CODE } from '../../abi/c-api-tables.generated.js';
import type { CoreBinding } from '../../abi/core-binding.js';
import { type DType, dtypeCode } from '../../formats/dtype.js';
import type { Recipe } from '../../formats/tensor-format.js';

/** What the core says about a recipe. */
export interface RecipeFacts {
  /** TE's split_quantize bulk-allocates this recipe's outputs (one allocation per usage). */
  splitBulk: boolean;
  /** FP8 element of forward tensors. */
  forwardFp8: 'fp8_e4m3' | 'fp8_e5m2';
  /** FP8 element of gradients (E5M2 for per-tensor FP8: TE's HYBRID format). */
  gradientFp8: 'fp8_e4m3' | 'fp8_e5m2';
}

/** What the core says about a dtype. */
export interface DTypeFacts {
  elementBits: number;
  /** Bytes per element rounded up to a whole byte. */
  elementBytes: number;
}

const recipeCache = new WeakMap<CoreBinding, Map<Recipe, RecipeFacts>>();
const dtypeCache = new WeakMap<CoreBinding, Map<DType, DTypeFacts>>();

const fp8 = (code: number): 'fp8_e4m3' | 'fp8_e5m2' => DTYPE_NAME[code] as 'fp8_e4m3' | 'fp8_e5m2';

/** tp_recipe_facts, decoded (the one place that calls it). */
export function recipeFacts(core: CoreBinding, recipe: Recipe): RecipeFacts {
  let cache = recipeCache.get(core);
  if (!cache) recipeCache.set(core, (cache = new Map()));
  let facts = cache.get(recipe);
  if (!facts) {
    const r = callRecipeFacts(core, { recipe: RECIPE_CODE[recipe] });
    facts = { splitBulk: r.splitBulk[0] === 1, forwardFp8: fp8(r.forwardFp8Dtype[0]), gradientFp8: fp8(r.gradientFp8Dtype[0]) };
    cache.set(recipe, facts);
  }
  return facts;
}

/** tp_dtype_facts, decoded (the one place that calls it). */
export function dtypeFacts(core: CoreBinding, dtype: DType): DTypeFacts {
  let cache = dtypeCache.get(core);
  if (!cache) dtypeCache.set(core, (cache = new Map()));
  let facts = cache.get(dtype);
  if (!facts) {
    const r = callDtypeFacts(core, { dtype: dtypeCode(dtype) });
    facts = { elementBits: r.elementBits[0], elementBytes: r.elementBytes[0] };
    cache.set(dtype, facts);
  }
  return facts;
}
