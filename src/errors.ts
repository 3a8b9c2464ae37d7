import { STATUS_NAME } from './abi/c-api-tables.generated.js';

/**
 * Why a tensorplan call failed. Codes mirror the core's `tp_status`, plus the
 * facade's own backend-selection failures.
 *
 * @group Errors
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


/**
 * The error every tensorplan function throws or rejects with.
 *
 * @group Errors
 */
export class TensorplanError extends Error {
  /** Machine-readable reason. */
  readonly code: TensorplanErrorCode;
  /** For backend failures: each backend's reason, by backend name. */
  readonly reasons: Readonly<Record<string, string>>;

  constructor(code: TensorplanErrorCode, message: string, reasons: Record<string, string> = {}) {
    // Constructing one with the wrong types is itself a TensorplanError
    // (a message that is not a string could not even be turned into one).
    if (typeof code !== 'string' || typeof message !== 'string' || reasons === null || typeof reasons !== 'object') {
      throw new TensorplanError('INVALID_ARGUMENT', `new TensorplanError(code = ${shown(code)}, message = ${shown(message)}, reasons = ${shown(reasons)}): `
        + 'code and message must be strings, reasons an object');
    }
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

/** How deeply `value` nests (arrays and objects), counted without recursion and stopping at `limit`. */
function nesting(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  const seen = new Set<unknown>();
  while (stack.length > 0 && deepest < limit) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object' || ArrayBuffer.isView(item) || seen.has(item)) continue;
    seen.add(item);
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Runs `body` (a public function's work on `args`). Input nested deeper than
 * the engine's stack ends in RangeError "Maximum call stack size exceeded"
 * somewhere in a recursive walk (the schema validator, structuredClone, our
 * own walks); a depth check up front would cost every call a full walk, so
 * that one RangeError becomes INVALID_ARGUMENT naming the deepest argument.
 * Nothing else is converted: any other exception is a bug and stays visible.
 * @internal
 */
export function guarded<T>(where: string, args: readonly unknown[], body: () => T): T {
  const convert = (error: unknown): unknown => {
    if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) return error;
    const depths = args.map((arg) => nesting(arg, 1_000_000));
    const index = depths.indexOf(Math.max(...depths));
    return new TensorplanError('INVALID_ARGUMENT', `${where}: argument ${index + 1} is nested too deeply to process (${depths[index]} levels of arrays or objects)`);
  };
  try {
    const result = body();
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        throw convert(error);
      }) as T;
    }
    return result;
  } catch (error) {
    throw convert(error);
  }
}

/**
 * A value as an error message shows it: JSON for what JSON can write, `10n`
 * for a BigInt, `Uint8Array(8)` for a typed array (or `(detached)`), nested
 * values cut short. Never throws, whatever the value (a BigInt, a detached
 * buffer, input nested 10^5 deep), so a message about bad input cannot
 * itself fail. @internal
 */
export function shown(value: unknown, depth = 0): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}...` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'object') return typeof value;
  if (ArrayBuffer.isView(value)) {
    return `${value.constructor.name}(${isDetached(value) ? 'detached' : (value as { length?: number }).length ?? value.byteLength})`;
  }
  if (depth >= 3) return Array.isArray(value) ? '[...]' : '{...}';
  const entries = Object.entries(value);
  const items = entries.slice(0, 8).map(([key, item]) => (Array.isArray(value) ? '' : `${JSON.stringify(key)}:`) + shown(item, depth + 1));
  if (entries.length > 8) items.push('...');
  return Array.isArray(value) ? `[${items.join(',')}]` : `{${items.join(',')}}`;
}

/** An options argument: `{}` when omitted, else it must be an object (named `name` in the error). @internal */
export function optionsObject<T extends object>(value: T | undefined, name: string): T | Record<string, never> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TensorplanError('INVALID_ARGUMENT', `${name} = ${shown(value)}: must be an object`);
  }
  return value;
}

/**
 * Whether a typed array's buffer was transferred away (detached): it then reads
 * as empty, and most uses of it throw. Node 20 has no `ArrayBuffer.detached`;
 * there, an empty buffer is detached when a view on it cannot be made. @internal
 */
export function isDetached(view: ArrayBufferView): boolean {
  const buffer = view.buffer as ArrayBuffer & { detached?: boolean };
  if (typeof buffer.detached === 'boolean') return buffer.detached;
  if (buffer.byteLength !== 0 || !(buffer instanceof ArrayBuffer)) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/** A byte argument: a Uint8Array whose buffer is not detached, or INVALID_ARGUMENT naming `name` and `rule`. @internal */
export function byteArray(value: unknown, name: string, rule = 'a Uint8Array'): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TensorplanError('INVALID_ARGUMENT', `${name} = ${shown(value)}: must be ${rule}`);
  if (isDetached(value)) throw new TensorplanError('INVALID_ARGUMENT', `${name} = ${shown(value)}: its buffer is detached (transferred away)`);
  return value;
}

/** A list of numbers (`name[i] = 10n: must be a number` otherwise), as the Float64Array the core reads. @internal */
export function numberList(value: unknown, name: string): Float64Array {
  if (!Array.isArray(value)) throw new TensorplanError('INVALID_ARGUMENT', `${name} = ${shown(value)}: must be an array of numbers`);
  value.forEach((item, i) => {
    if (typeof item !== 'number') throw new TensorplanError('INVALID_ARGUMENT', `${name}[${i}] = ${shown(item)}: must be a number`);
  });
  return Float64Array.from(value as number[]);
}
