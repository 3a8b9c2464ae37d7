// The one vocabulary of recipe names: the core's names (c_api.h
// TP_RECIPE_LIST) plus the aliases people use for them. The CLI, tensor formats,
// op attributes and layer specs all accept exactly RECIPE_WORDS.
import { RECIPE_CODE, RECIPE_NAMES } from '../abi/c-api-tables.generated.js';

/**
 * Quantization recipes, in ABI code order (c_api.h TP_RECIPE_LIST). `'bf16'` is accepted everywhere as another name for `'none'`.
 *
 * @group Formats
 */
export const RECIPES = RECIPE_NAMES;

/**
 * A quantization recipe of FORMATS.md §2, by its canonical name.
 *
 * @group Formats
 */
export type Recipe = (typeof RECIPES)[number];

/**
 * Other names of a recipe. `bf16` is how TransformerEngine users name "no
 * quantization" (te.fp8_autocast(enabled=False) trains in the model dtype),
 * so it means `none`, whatever the model dtype is.
 */
export const RECIPE_ALIASES: Readonly<Record<Exclude<RecipeWord, Recipe>, Recipe>> = { bf16: 'none' };

/**
 * A recipe name as a user may write it: a canonical name, or `'bf16'` (another name for `'none'`).
 *
 * @group Formats
 */
export type RecipeWord = Recipe | 'bf16';

/** Every name accepted for a recipe: the canonical ones in code order, each followed by its aliases (none, bf16, fp8_delayed, ...). */
export const RECIPE_WORDS: readonly RecipeWord[] = RECIPES.flatMap((recipe): RecipeWord[] => [
  recipe, ...(Object.keys(RECIPE_ALIASES) as (keyof typeof RECIPE_ALIASES)[]).filter((alias) => RECIPE_ALIASES[alias] === recipe),
]);

/** The canonical name of a recipe name (alias or not); undefined for anything else. */
export function canonicalRecipe(name: unknown): Recipe | undefined {
  if (typeof name !== 'string') return undefined;
  if (Object.hasOwn(RECIPE_CODE, name)) return name as Recipe;
  return Object.hasOwn(RECIPE_ALIASES, name) ? RECIPE_ALIASES[name as keyof typeof RECIPE_ALIASES] : undefined;
}

/** The ABI code of a recipe name, or -1. */
export function recipeCode(name: unknown): number {
  const canonical = canonicalRecipe(name);
  return canonical === undefined ? -1 : RECIPE_CODE[canonical];
}
