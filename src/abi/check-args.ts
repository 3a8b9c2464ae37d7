import { TensorplanError, isDetached } from '../errors.js';

// The type backstop of every C ABI call: the generated
// encode<Op>Args of c-api.generated.ts checks each argument against its C
// parameter type here, and each array against the length c_api.h states for
// it (with a CSR's last entry) and each double c_api.h marks finite, before
// any backend sees it, so a wrong-typed value or a short array is the same
// TensorplanError on every backend instead of a heap pointer or a read past
// the caller's buffer. The addon's generated wrappers repeat the length and
// finite checks with the same messages (cuda/addon/abi_marshal.h) for callers
// of the addon itself. Public functions check their inputs first with the
// user's field names; this only catches what slips past them.

const ARRAY_CLASSES = {
  F64: Float64Array, F32: Float32Array, I32: Int32Array, U8: Uint8Array, U16: Uint16Array,
} as const;

/** The C parameter kinds c_api.h allows (scalars and arrays). @internal */
export type ParamKind = 'int32' | 'double' | 'finite' | keyof typeof ARRAY_CLASSES;

/** An array argument of a C ABI operation. */
type CheckedArray = Float64Array | Float32Array | Int32Array | Uint8Array | Uint16Array;

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
 * A number as the native wrappers print it too (cuda/addon/abi_marshal.h
 * js_number): an integer below 1e21 in full digits (the exact value, as C's
 * "%.0f" prints it, even beyond 2^53), anything else as JavaScript prints it.
 */
export function shownNumber(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < 1e21 ? BigInt(value).toString() : String(value);
}

/**
 * Checks one argument of `operation` against its C parameter kind: int32 an
 * integer in [-2^31, 2^31 - 1], double a number, finite a finite number
 * (c_api.h marks a double `/*finite*\/`: sizes, offsets, limits), an array
 * the declared typed array (not detached) or null. @internal
 */
export function checkArg(operation: string, name: string, kind: ParamKind, value: unknown): void {
  if (kind === 'int32') {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
      fail(operation, name, value, 'an integer in [-2^31, 2^31 - 1]');
    }
  } else if (kind === 'double') {
    if (typeof value !== 'number') fail(operation, name, value, 'a number');
  } else if (kind === 'finite') {
    if (typeof value !== 'number' || !Number.isFinite(value)) fail(operation, name, value, 'a finite number');
  } else if (value !== null) {
    const cls = ARRAY_CLASSES[kind];
    if (!(value instanceof cls)) fail(operation, name, value, `a ${cls.name} or null`);
    // A detached buffer reads as length 0 and would be passed as an empty array.
    if (isDetached(value)) fail(operation, name, value, 'a typed array whose buffer is not detached');
  }
}

/** A required length the core can be held to: a whole number of elements (else the core judges the value that states it). */
const isLength = (required: number): boolean => Number.isInteger(required) && required > 0;

/**
 * Checks an array argument against the length c_api.h states for it
 * (`/*[expression]*\/`, evaluated by the generated caller as `required`), so no
 * backend is asked to read past the caller's buffer; returns the array cut to
 * exactly that length, which is all the core reads (and all the WASM binding
 * copies). NULL passes where the header allows it or nothing is read. A
 * required length that is not a positive integer (a negative count, a
 * fractional byte count) is left to the core, which refuses it by name.
 * @internal
 */
export function checkLength<T extends CheckedArray>(operation: string, name: string, kind: keyof typeof ARRAY_CLASSES, array: T | null,
  expression: string, required: number, nullable: boolean): T | null {
  if (!isLength(required)) return array;
  if (array === null) {
    if (nullable) return null;
    throw new TensorplanError('INVALID_ARGUMENT',
      `${operation}: ${name} = null: must be of length >= ${expression} = ${shownNumber(required)}`);
  }
  if (array.length < required) {
    throw new TensorplanError('INVALID_ARGUMENT',
      `${operation}: ${name} = ${ARRAY_CLASSES[kind].name}(${array.length}): must be of length >= ${expression} = ${shownNumber(required)}`);
  }
  return (array.length === required ? array : array.subarray(0, required)) as T;
}

/**
 * Checks the last entry of a CSR offsets array (at `index` = required - 1)
 * against the length of the array it indexes, where c_api.h states it
 * (`last == n`: the offsets end at n; `last <= n`: they stay within n).
 * Runs after checkLength, on the array it returned. @internal
 */
export function checkLast(operation: string, name: string, array: CheckedArray | null, index: string, required: number,
  relation: '==' | '<=', boundName: string, bound: number): void {
  if (array === null || !isLength(required) || array.length < required) return;
  const last = array[required - 1];
  if (relation === '==' ? last !== bound : last > bound) {
    throw new TensorplanError('INVALID_ARGUMENT', `${operation}: ${name}[${index}] = ${shownNumber(last)}: must ${
      relation === '==' ? 'equal' : 'be <='} ${boundName} = ${shownNumber(bound)}`);
  }
}
