import { STATUS_NAME } from './abi/c-api-tables.generated.js';

/**
 * Why a tensorplan call failed. Codes mirror the core's `tp_status`, plus the
 * facade's own backend-selection failures.
 */
export type TensorplanErrorCode =
  | 'INVALID_ARGUMENT'
  | 'OUT_OF_RANGE'
  | 'UNSUPPORTED'
  | 'INFEASIBLE'
  | 'OUT_OF_MEMORY'
  | 'INTERNAL'
  | 'BACKEND_UNAVAILABLE'
  | 'NO_BACKEND';


/** The error every tensorplan function throws or rejects with. */
export class TensorplanError extends Error {
  /** Machine-readable reason. */
  readonly code: TensorplanErrorCode;
  /** For backend failures: each backend's reason, by backend name. */
  readonly reasons: Readonly<Record<string, string>>;

  constructor(code: TensorplanErrorCode, message: string, reasons: Record<string, string> = {}) {
    super(message);
    this.name = 'TensorplanError';
    this.code = code;
    this.reasons = reasons;
  }

  /** Builds the error for a failed core call from its status and message. */
  static fromStatus(status: number, message: string, operation: string): TensorplanError {
    // TP_STATUS_LIST names are the error codes; OK (0) never becomes an error.
    const name = STATUS_NAME[status];
    const code: TensorplanErrorCode = name === undefined || name === 'OK' ? 'INTERNAL' : name;
    return new TensorplanError(code, message || `${operation} failed with status ${status}`);
  }
}
