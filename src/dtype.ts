/**
 * Element types, by the names the core and the CLI use. The position in this
 * list is the dtype code that crosses the C ABI (core-cpp dtype.h; append only).
 */
export const DTYPES = [
  'fp32', 'fp16', 'bf16', 'fp8_e4m3', 'fp8_e5m2', 'fp4_e2m1', 'e8m0',
  'int8', 'uint8', 'int32', 'int64', 'bool', 'fp64', 'int16',
] as const;

/** An element type name, e.g. `'bf16'` or `'fp8_e4m3'`. */
export type DType = (typeof DTYPES)[number];

/** The ABI code of a dtype name, or -1 when the name is unknown. */
export function dtypeCode(name: string): number {
  return (DTYPES as readonly string[]).indexOf(name);
}
