// A tensor format (dtype, recipe, usages, architecture, options) and its
// encoding as c_api.h codes; the other formats/ modules build on these helpers.
import {
  ARCH_CODE, ARCH_NAME, BUFFER_ROLE_NAMES, FORMAT_OPTION_CODE, RECIPE_ATTRIBUTE, USAGE_CODE,
} from '../abi/c-api.generated.js';
import type { CoreArray } from '../abi/core-binding.js';
import { type DType, DTYPES, dtypeCode } from './dtype.js';
import { TensorplanError, shown } from '../errors.js';

import { RECIPE_WORDS, type RecipeWord, canonicalRecipe, recipeCode } from './recipe-names.js';

export { RECIPES } from './recipe-names.js';
export type { Recipe, RecipeWord } from './recipe-names.js';

/**
 * GPU class: Hopper-class GPUs (SM < 10, SM 12.x) materialise an FP8
 * `_transpose` for columnwise use; Blackwell datacenter GPUs do not.
 *
 * @group Formats
 */
export type Arch = 'hopper' | 'blackwell';

/**
 * Options that change buffers or numerics.
 *
 * @group Formats
 */
export interface FormatOptions {
  /** MXFP8/NVFP4 scales in the GEMM-swizzled layout (TE `optimize_for_gemm`). */
  gemmSwizzledScales?: boolean;
  /** NVFP4: one amax per row (`row_scaled_nvfp4`); needs rowwise usage. */
  nvfp4RowScaled?: boolean;
  /** NVFP4: 16-point random Hadamard transform before the columnwise cast (bf16 input). */
  nvfp4Hadamard?: boolean;
  /** NVFP4 Hadamard without the random sign mask. */
  nvfp4HadamardNoSigns?: boolean;
  /** Current / block FP8: round scales down to powers of two. */
  pow2Scales?: boolean;
  /** FP8 element format (default `fp8_e4m3`). */
  fp8Dtype?: 'fp8_e4m3' | 'fp8_e5m2';
}

/**
 * A tensor format: what TE's `TensorSpec` holds besides data.
 *
 * @group Formats
 */
export interface TensorFormat {
  /** Logical shape. */
  shape: readonly number[];
  /** Logical (high-precision) dtype: fp32, bf16 or fp16 for quantized recipes. */
  dtype: DType;
  /** The recipe; `'bf16'` is another name for `'none'`. */
  recipe: RecipeWord;
  /** Rowwise usage (default true). */
  rowwise?: boolean;
  /** Columnwise usage (default true). */
  columnwise?: boolean;
  /**
   * Default: the lowest arch TransformerEngine runs the recipe on (`blackwell`
   * for `mxfp8` and `nvfp4`, else `hopper`: the last column of c_api.h TP_RECIPE_LIST).
   */
  arch?: Arch;
  options?: FormatOptions;
}

/**
 * The arch a format without one gets: the lowest arch TransformerEngine runs
 * the recipe on (c_api.h TP_RECIPE_LIST's last column: TE d0067d0da6
 * transformer_engine/pytorch/quantization.py `_compute_mxfp8_support` and
 * `_compute_nvfp4_support` refuse compute capability below 10.0).
 */
export function defaultArch(recipe: RecipeWord): Arch {
  return ARCH_NAME[RECIPE_ATTRIBUTE[canonicalRecipe(recipe) ?? 'none']] as Arch;
}

/** Buffer roles, in ABI code order (c_api.h). */
export const ROLES = BUFFER_ROLE_NAMES;
const OPTION_BITS = Object.entries(FORMAT_OPTION_CODE) as [keyof typeof FORMAT_OPTION_CODE, number][];

/** Throws INVALID_ARGUMENT with `message` (which names the field and value). */
export function invalid(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

/** A shape as the Float64Array the core reads; non-numbers become NaN for the core to reject. */
export function dims(shape: unknown, field: string): Float64Array {
  if (!Array.isArray(shape)) invalid(`${field} must be an array of dimensions`);
  return Float64Array.from(shape, (d) => (typeof d === 'number' ? d : Number.NaN));
}

/** Encodes a format (shape aside) as the `format[6]` codes of c_api.h. */
export function formatCodes(format: Omit<TensorFormat, 'shape'>, field = 'format'): Int32Array {
  if (format === null || typeof format !== 'object') invalid(`${field} must be an object`);
  const dtype = dtypeCode(format.dtype);
  if (dtype < 0) invalid(`${field}.dtype = ${shown(format.dtype)}: expected one of ${DTYPES.join(', ')}`);
  const recipe = recipeCode(format.recipe);
  if (recipe < 0) invalid(`${field}.recipe = ${shown(format.recipe)}: expected one of ${RECIPE_WORDS.join(', ')}`);
  const arch = format.arch ?? defaultArch(format.recipe);
  if (arch !== 'hopper' && arch !== 'blackwell') invalid(`${field}.arch = ${shown(arch)}: expected hopper or blackwell`);
  const canonical = canonicalRecipe(format.recipe)!;
  if (ARCH_CODE[arch] < RECIPE_ATTRIBUTE[canonical]) {
    invalid(`${field}.arch = ${arch}: recipe ${canonical} needs blackwell (compute capability 10.0 or higher); `
      + `TransformerEngine d0067d0da6 refuses it below (transformer_engine/pytorch/quantization.py _compute_${canonical}_support)`);
  }
  const usage = ((format.rowwise ?? true) ? USAGE_CODE.rowwise : 0) | ((format.columnwise ?? true) ? USAGE_CODE.columnwise : 0);
  const options = format.options ?? {};
  let bits = 0;
  for (const [key, bit] of OPTION_BITS) if (options[key]) bits |= bit;
  const fp8 = dtypeCode(options.fp8Dtype ?? 'fp8_e4m3');
  return Int32Array.from([dtype, recipe, usage, ARCH_CODE[arch], bits, fp8]);
}

/** Decodes a name list the core returns as one byte blob and its offsets. */
export function names(blob: CoreArray, offsets: CoreArray): string[] {
  const decoder = new TextDecoder();
  const out: string[] = [];
  for (let i = 0; i + 1 < offsets.length; i++) out.push(decoder.decode(blob.subarray(offsets[i], offsets[i + 1])));
  return out;
}

/** Decodes a list of shapes the core returns as offsets and values. */
export function shapes(offsets: CoreArray, values: CoreArray): number[][] {
  const out: number[][] = [];
  for (let i = 0; i + 1 < offsets.length; i++) out.push(Array.from(values.subarray(offsets[i], offsets[i + 1])));
  return out;
}

/** Decodes UTF-8 text the core returns. */
export function text(bytes: CoreArray): string {
  return new TextDecoder().decode(bytes);
}
