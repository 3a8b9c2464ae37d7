// The GEMM swizzle of scale matrices (FORMATS.md §4.7).
import { callSwizzleScales } from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { byteArray } from '../errors.js';

/** GEMM swizzle of a row-major scale matrix (FORMATS.md §4.7), or its inverse. */
export function swizzleScales(core: CoreBinding, source: Uint8Array, rows: number, cols: number,
  options: { transpose?: boolean; validRows?: number; validCols?: number; inverse?: boolean } = {}): Uint8Array {
  byteArray(source, 'source');
  return callSwizzleScales(core, {
    source, sourceLength: source.length, srcRows: rows, srcCols: cols, transpose: options.transpose ? 1 : 0,
    validRows: options.validRows ?? (options.transpose ? cols : rows), validCols: options.validCols ?? (options.transpose ? rows : cols),
    inverse: options.inverse ? 1 : 0,
  }).bytes;
}
