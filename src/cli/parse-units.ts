import { CliError } from './exit-codes.js';

const BYTE_UNITS: Record<string, number> = {
  b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40,
};

/** `80GiB`, `1.5 GB`, `4096` (bytes) -> bytes. */
export function parseBytes(text: string, option: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = match ? (match[2] || 'b').toLowerCase() : '';
  if (!match || !(unit in BYTE_UNITS)) {
    throw new CliError(`${option} ${JSON.stringify(text)}: expected a size such as 80GiB, 1.5GB or 4096 (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)`);
  }
  return Math.floor(Number(match[1]) * BYTE_UNITS[unit]);
}

/**
 * `10s`, `500ms`, `2m`, `3` (seconds) -> seconds: the one duration form of every
 * command's options. `allowZero` where 0 has a meaning (schedule: no search).
 */
export function parseSeconds(text: string, option: string, allowZero = false): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(text);
  const value = match ? Number(match[1]) * ({ ms: 1e-3, s: 1, m: 60 }[match[2] ?? 's'] ?? 1) : Number.NaN;
  if (!match || !(value > 0 || (allowZero && value === 0))) {
    throw new CliError(`${option} ${JSON.stringify(text)}: expected a duration such as 10s, 500ms or 2m${allowZero ? ' (or 0)' : ''}`);
  }
  return value;
}

/** `4`, `0` -> a whole number (a count such as --threads). */
export function parseWholeNumber(text: string, option: string): number {
  const match = /^\s*(\d+)\s*$/.exec(text);
  if (!match || !Number.isSafeInteger(Number(match[1]))) throw new CliError(`${option} ${JSON.stringify(text)}: expected a whole number such as 4 or 0`);
  return Number(match[1]);
}
