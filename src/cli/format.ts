import { binaryUnit } from '../bytes-text.js';

/** Byte counts for people: exact bytes plus a binary-unit figure when large. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const { value, unit } = binaryUnit(bytes);
  return `${bytes.toLocaleString('en-US')} B (${value.toFixed(2)} ${unit})`;
}

export { formatShortBytes, formatSignedBytes } from '../bytes-text.js';
