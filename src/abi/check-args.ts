import { TensorplanError } from '../errors.js';

// The type backstop of every C ABI call (issue #14): the generated
// encode<Op>Args of c-api.generated.ts checks each argument against its C
// parameter type here, before any backend sees it, so a wrong-typed value is
// the same TensorplanError on every backend instead of a heap pointer (WASM) or
// a raw TypeError (native). Public functions check their inputs first with the
// user's field names; this only catches what slips past them.

const ARRAY_CLASSES = {
  F64: Float64Array, F32: Float32Array, I32: Int32Array, U8: Uint8Array, U16: Uint16Array,
} as const;

/** The C parameter kinds c_api.h allows (scalars and arrays). @internal */
export type ParamKind = 'int32' | 'double' | keyof typeof ARRAY_CLASSES;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${(value as { length?: number }).length ?? value.byteLength})`;
  if (Array.isArray(value)) return `array(${value.length})`;
  return typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
}

function fail(operation: string, name: string, value: unknown, rule: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', `${operation}: ${name} = ${shown(value)}: must be ${rule}`);
}

/**
 * Checks one argument of `operation` against its C parameter kind: int32 an
 * integer in [-2^31, 2^31 - 1], double a number (the core names NaN and
 * infinite values where it refuses them), an array the declared typed array
 * (not detached) or null. @internal
 */
export function checkArg(operation: string, name: string, kind: ParamKind, value: unknown): void {
  if (kind === 'int32') {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
      fail(operation, name, value, 'an integer in [-2^31, 2^31 - 1]');
    }
  } else if (kind === 'double') {
    if (typeof value !== 'number') fail(operation, name, value, 'a number');
  } else if (value !== null) {
    const cls = ARRAY_CLASSES[kind];
    if (!(value instanceof cls)) fail(operation, name, value, `a ${cls.name} or null`);
    // A detached buffer reads as length 0 and would be passed as an empty array.
    if ((value.buffer as ArrayBuffer & { detached?: boolean }).detached === true) fail(operation, name, value, 'a typed array whose buffer is not detached');
  }
}

/**
 * Checks that the count stated for an array (the int32 parameter right after
 * it in c_api.h) does not exceed the array's length, so no backend is asked to
 * read past it. @internal
 */
export function checkCount(operation: string, arrayName: string, array: ArrayLike<number> | null, countName: string, count: number): void {
  // NULL with a count is the core's to judge (some arrays may be NULL: "all default").
  if (array === null) return;
  const length = array.length;
  if (count > length) {
    throw new TensorplanError('INVALID_ARGUMENT', `${operation}: ${countName} = ${count}: exceeds the length of ${arrayName} = ${length}`);
  }
}
