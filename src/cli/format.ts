/** Byte counts for people: exact bytes plus a binary-unit figure when large. */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes;
  let unit = -1;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${bytes.toLocaleString('en-US')} B (${value.toFixed(2)} ${units[unit]})`;
}

export { formatShortBytes, formatSignedBytes } from '../bytes-text.js';
