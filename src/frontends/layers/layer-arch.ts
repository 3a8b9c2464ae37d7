import { ARCH_CODE, RECIPE_ATTRIBUTE } from '../../abi/c-api-tables.generated.js';

/**
 * The parts of a layer spec the arch rule reads (structural, so that
 * layer-spec.ts can call this file without an import cycle).
 */
interface ArchFields {
  recipe?: string | { inputs?: string; weights?: string; gradients?: string };
  arch?: LayerArch;
}

/** The GPU generations a layer spec can name, in order of compute capability (Hopper SM 9.0, Blackwell SM 10.0). */
export type LayerArch = 'hopper' | 'blackwell';

/**
 * Where TransformerEngine refuses a recipe below Blackwell. TE main at
 * d0067d0da6 (transformer_engine/pytorch/quantization.py): `_compute_mxfp8_support`
 * and `_compute_nvfp4_support` answer false below compute capability 10.0, and
 * `FP8GlobalStateManager.autocast_enter` asserts them when autocast is entered
 * with MXFP8BlockScaling or NVFP4BlockScaling. (MXFP8 is also refused at 12.0
 * and above; `blackwell` here is SM 10.x, where both are accepted.)
 */
function needsBlackwell(recipe: string): boolean {
  return Object.hasOwn(RECIPE_ATTRIBUTE, recipe) && RECIPE_ATTRIBUTE[recipe as keyof typeof RECIPE_ATTRIBUTE] === ARCH_CODE.blackwell;
}

/** The recipe names of the spec's roles (inputs, weights, gradients), as written. */
function roleRecipes(spec: ArchFields): { role: string; recipe: string }[] {
  const r = spec.recipe ?? 'none';
  if (typeof r === 'string') return r === 'fp8_block' ? [] : [{ role: 'recipe', recipe: r }];
  return (['inputs', 'weights', 'gradients'] as const)
    .filter((role) => r[role] !== undefined)
    .map((role) => ({ role: `recipe.${role}`, recipe: r[role]! }));
}

/** The first role whose recipe TE runs only on Blackwell, with the TE function that says so. */
function blackwellRecipe(spec: ArchFields): { role: string; recipe: string; rule: string } | undefined {
  for (const { role, recipe } of roleRecipes(spec)) {
    // The lowest arch per recipe is c_api.h TP_RECIPE_LIST's last column.
    if (needsBlackwell(recipe)) return { role, recipe, rule: `_compute_${recipe}_support` };
  }
  return undefined;
}

/** The spec's arch: as given, else Blackwell when a recipe needs it, else Hopper. */
export function layerArch(spec: ArchFields): LayerArch {
  return spec.arch ?? (blackwellRecipe(spec) ? 'blackwell' : 'hopper');
}

/** Why TE would refuse the spec's recipe on its arch, or undefined when it runs there. */
export function archRefusal(spec: ArchFields): string | undefined {
  const need = blackwellRecipe(spec);
  if (!need || layerArch(spec) === 'blackwell') return undefined;
  return `arch = ${spec.arch}: ${need.role} = ${need.recipe} needs compute capability 10.0 or higher (blackwell); `
    + `TransformerEngine d0067d0da6 refuses it below (transformer_engine/pytorch/quantization.py ${need.rule}, `
    + 'asserted by FP8GlobalStateManager.autocast_enter)';
}
