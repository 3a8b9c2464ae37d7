// Byte counts as short text, for the library's explanations (layer-compare.ts)
// and the CLI's narrow tables alike.

/** A short byte figure: the largest binary unit, at most two decimals (`13.98 GiB`, `-462 MiB`). */
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
