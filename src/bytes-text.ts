// Byte counts as text, for the library's explanations (layer-compare.ts), the
// HTML report's cards and the CLI's tables alike: one unit rule for all.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** |bytes| in the largest binary unit it reaches (up to TiB): the value and the unit's name. */
export function binaryUnit(bytes: number): { value: number; unit: string } {
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return { value, unit: UNITS[unit] };
}

/** A byte figure with two fixed decimals in its unit (`4.34 GiB`, `-1.00 MiB`); exact below 1 KiB (`512 B`). */
export function formatFixedBytes(bytes: number): string {
  const { value, unit } = binaryUnit(bytes);
  return unit === 'B' ? `${bytes} B` : `${bytes < 0 ? '-' : ''}${value.toFixed(2)} ${unit}`;
}

/** A short byte figure: the largest binary unit, at most two decimals (`13.98 GiB`, `-462 MiB`). */
export function formatShortBytes(bytes: number): string {
  const { value, unit } = binaryUnit(bytes);
  return `${bytes < 0 ? '-' : ''}${Number(value.toFixed(2))} ${unit}`;
}

/** A signed short byte figure: `+1.5 GiB`, `-462 MiB`, `0 B` (no parentheses for negatives). */
export const formatSignedBytes = (bytes: number): string => (bytes > 0 ? `+${formatShortBytes(bytes)}` : formatShortBytes(bytes));
