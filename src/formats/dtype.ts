import { DTYPE_CODE, DTYPE_NAMES } from '../abi/c-api-tables.generated.js';

/**
 * Element types, by the names the core and the CLI use. The position in this
 * list is the dtype code that crosses the C ABI (c_api.h TP_DTYPE_LIST; append only).
 *
 * @group Formats
 */
export const DTYPES = DTYPE_NAMES;

/**
 * An element type name, e.g. `'bf16'` or `'fp8_e4m3'`.
 *
 * @group Formats
 */
export type DType = (typeof DTYPES)[number];

/** The ABI code of a dtype name, or -1 when the name is unknown. */
export function dtypeCode(name: unknown): number {
  // Only a string is looked up: hasOwn would convert anything else to a key (a detached buffer's toString throws).
  return typeof name === 'string' && Object.hasOwn(DTYPE_CODE, name) ? DTYPE_CODE[name as DType] : -1;
}
