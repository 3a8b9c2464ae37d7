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

/** A short byte figure for narrow tables: the largest binary unit, at most two decimals (`13.98 GiB`, `-462 MiB`). */
export function formatShortBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${bytes < 0 ? '-' : ''}${Number(value.toFixed(2))} ${units[unit]}`;
}

/** A signed short byte figure: `+1.5 GiB`, `-462 MiB`, `0 B` (no parentheses for negatives). */
export const formatSignedBytes = (bytes: number): string => (bytes > 0 ? `+${formatShortBytes(bytes)}` : formatShortBytes(bytes));
