// Facts the layer-graph builder asks the core instead of deciding them: which
// recipes TE's split_quantize bulk-allocates, the FP8 element of forward
// tensors and gradients (tp_recipe_facts, cited in core-cpp recipe_facts.h),
// and element sizes from the core's dtype table (tp_dtype_facts).
import type { CoreBinding } from '../backend/core-binding.js';
import { DTYPES, type DType, dtypeCode } from '../dtype.js';
import { RECIPES, type Recipe } from '../formats.js';

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

const fp8 = (code: number): 'fp8_e4m3' | 'fp8_e5m2' => DTYPES[code] as 'fp8_e4m3' | 'fp8_e5m2';

/** tp_recipe_facts, decoded (the one place that reads its result arrays). */
export function recipeFacts(core: CoreBinding, recipe: Recipe): RecipeFacts {
  let cache = recipeCache.get(core);
  if (!cache) recipeCache.set(core, (cache = new Map()));
  let facts = cache.get(recipe);
  if (!facts) {
    const [splitBulk, forward, gradient] = core.call('tp_recipe_facts', [(RECIPES as readonly string[]).indexOf(recipe)]);
    facts = { splitBulk: splitBulk[0] === 1, forwardFp8: fp8(forward[0]), gradientFp8: fp8(gradient[0]) };
    cache.set(recipe, facts);
  }
  return facts;
}

/** tp_dtype_facts, decoded (the one place that reads its result arrays). */
export function dtypeFacts(core: CoreBinding, dtype: DType): DTypeFacts {
  let cache = dtypeCache.get(core);
  if (!cache) dtypeCache.set(core, (cache = new Map()));
  let facts = cache.get(dtype);
  if (!facts) {
    const [bits, bytes] = core.call('tp_dtype_facts', [dtypeCode(dtype)]);
    facts = { elementBits: bits[0], elementBytes: bytes[0] };
    cache.set(dtype, facts);
  }
  return facts;
}
