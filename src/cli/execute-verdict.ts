import { createHash } from 'node:crypto';
import { EXIT_NEGATIVE, EXIT_OK } from './exit-codes.js';

/** The first byte where two executions' outputs differ. */
export interface OutputDifference {
  output: string;
  /** Byte index inside the output. */
  byte: number;
  /** The byte of the run being checked, or null past its end. */
  got: number | null;
  /** The byte of the oracle run, or null past its end. */
  expected: number | null;
}

/**
 * The first output (in `order`) whose bytes differ between two runs, and the
 * first byte index where they do; null when every output is bit-identical.
 * An output missing from one run differs at byte 0.
 */
export function firstDifference(order: readonly string[], got: Readonly<Record<string, Uint8Array>>,
  expected: Readonly<Record<string, Uint8Array>>): OutputDifference | null {
  for (const output of order) {
    const a = got[output] ?? new Uint8Array(0);
    const b = expected[output] ?? new Uint8Array(0);
    const n = Math.max(a.length, b.length);
    for (let byte = 0; byte < n; byte++) {
      if (byte >= a.length || byte >= b.length || a[byte] !== b[byte]) {
        return { output, byte, got: byte < a.length ? a[byte] : null, expected: byte < b.length ? b[byte] : null };
      }
    }
    if (!(output in got) !== !(output in expected)) return { output, byte: 0, got: null, expected: null };
  }
  return null;
}

/** The first 12 hex digits of the bytes' SHA-256: enough to compare runs by eye. */
export function shortChecksum(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 12);
}

/** `tensorplan execute`'s exit code: 1 when the trace was rejected or the oracle disagreed, else 0. */
export function executionExitCode(traceIssues: number, difference: OutputDifference | null): number {
  return traceIssues > 0 || difference !== null ? EXIT_NEGATIVE : EXIT_OK;
}
