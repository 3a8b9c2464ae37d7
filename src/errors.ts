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

/** The path of the first BigInt inside `value` (e.g. `tensors[0].shape[0]`), or undefined. */
function bigIntPath(value: unknown, path: string, seen: Set<unknown>, depth: number): string | undefined {
  if (typeof value === 'bigint') return path || 'the value';
  if (value === null || typeof value !== 'object' || seen.has(value) || depth > 64 || ArrayBuffer.isView(value)) return undefined;
  seen.add(value);
  for (const [key, item] of Object.entries(value)) {
    const found = bigIntPath(item, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key, seen, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * The error a public function throws for `error`: a TensorplanError as it is;
 * the engine's own TypeError or RangeError, which only malformed input reaches
 * (a missing field read as an object, a BigInt where a number belongs, input
 * nested deeper than the stack), becomes INVALID_ARGUMENT naming the function
 * and, for a BigInt, where it sits in `args` (issue #14: no raw TypeErrors). @internal
 */
export function asTensorplanError(error: unknown, where: string, args: readonly unknown[]): unknown {
  // DataCloneError: structuredClone of input holding a detached buffer or a function.
  const engine = error instanceof TypeError || error instanceof RangeError || (error instanceof Error && error.name === 'DataCloneError');
  if (error instanceof TensorplanError || !engine) return error;
  const message = error.message;
  if (/BigInt/i.test(message)) {
    for (const [i, arg] of args.entries()) {
      const path = bigIntPath(arg, '', new Set(), 0);
      if (path) return new TensorplanError('INVALID_ARGUMENT', `${where}: argument ${i + 1}: ${path} is a BigInt: must be a number`);
    }
  }
  if (error instanceof RangeError && /call stack/i.test(message)) {
    return new TensorplanError('INVALID_ARGUMENT', `${where}: the input is nested too deeply to process (${message})`);
  }
  return new TensorplanError('INVALID_ARGUMENT', `${where}: malformed input (${message})`);
}

/** Runs `body`, turning what {@link asTensorplanError} converts into a TensorplanError. @internal */
export function guarded<T>(where: string, args: readonly unknown[], body: () => T): T {
  try {
    const result = body();
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        throw asTensorplanError(error, where, args);
      }) as T;
    }
    return result;
  } catch (error) {
    throw asTensorplanError(error, where, args);
  }
}
