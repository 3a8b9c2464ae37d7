import type { CoreArray } from './core-binding.js';
import { TensorplanError } from '../errors.js';

const ARRAY_CLASSES = {
  F64: Float64Array, I32: Int32Array, U8: Uint8Array, F32: Float32Array, U16: Uint16Array,
} as const;

/**
 * Holds a result to the fields its operation declares in c_api.h
 * (TP_RESULT_FIELDS_<name>): same count, same array types. The core checks
 * the same on its side; this catches a binding or transport that reorders or
 * drops arrays. @internal
 */
export function checkFields(operation: string, fields: readonly (readonly [string, keyof typeof ARRAY_CLASSES])[],
  arrays: readonly CoreArray[]): void {
  if (arrays.length !== fields.length) {
    throw new TensorplanError('INTERNAL', `${operation} returned ${arrays.length} result arrays, c_api.h declares ${fields.length}`);
  }
  fields.forEach(([name, type], i) => {
    if (!(arrays[i] instanceof ARRAY_CLASSES[type])) {
      throw new TensorplanError('INTERNAL', `${operation}: result field ${name} (array ${i}) is ${arrays[i]?.constructor?.name}, c_api.h declares ${type}`);
    }
  });
}
