import { TensorplanError } from '../errors.js';

/** An argument of a C ABI operation: a flat array, a scalar, or null for NULL. */
export type CoreArg = Float64Array | Float32Array | Int32Array | Uint8Array | Uint16Array | number | null;

/** One array of a core result, copied out of the core. */
export type CoreArray = Float64Array | Float32Array | Int32Array | Uint8Array | Uint16Array;

/**
 * The C ABI as both backends present it: call an operation of c_api.h by name
 * with its arguments (without the trailing `tp_result** out`) and get the
 * result's arrays back, or a {@link TensorplanError} built from the core's
 * status and message. Same bytes in, same bytes out on every backend.
 */
export interface CoreBinding {
  /** `TP_ABI_VERSION` of the loaded core. */
  readonly abiVersion: number;
  /** Version string of the loaded core. */
  readonly coreVersion: string;
  /** Calls `tp_<operation>`; `operation` includes the `tp_` prefix. */
  call(operation: string, args: readonly CoreArg[]): CoreArray[];
}

/** The ABI version this facade was written against. */
export const EXPECTED_ABI_VERSION = 3;

/** Fails loudly when a backend's core speaks another ABI version. */
export function checkAbiVersion(backend: string, abiVersion: number): void {
  if (abiVersion !== EXPECTED_ABI_VERSION) {
    throw new TensorplanError(
      'BACKEND_UNAVAILABLE',
      `${backend} core has ABI version ${abiVersion}, this facade needs ${EXPECTED_ABI_VERSION}: rebuild it`,
    );
  }
}
