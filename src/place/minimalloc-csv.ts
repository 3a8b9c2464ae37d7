import { TensorplanError, shown } from '../errors.js';
import type { PlaceBuffer } from './place.js';

/**
 * A MiniMalloc CSV file: its buffers, and what is needed to write it back with offsets.
 *
 * @group Files
 */
export interface MinimallocCsv {
  buffers: PlaceBuffer[];
  /** The `id` column, as written. */
  ids: string[];
  /** The header's column names, as written. */
  columns: string[];
  /** The data rows' cells, as written (kept so output preserves every column). */
  rows: string[][];
}

const REQUIRED = ['id', 'lower', 'size'];
const KNOWN = new Set(['id', 'lower', 'upper', 'end', 'size', 'alignment', 'hint', 'gaps', 'offset']);

/**
 * Reads MiniMalloc's CSV: `id,lower,upper,size` plus optional `alignment`
 * (and `hint`, `gaps`, which are kept but not used). A column named `end`
 * instead of `upper` is inclusive. Errors name the line and the column.
 *
 * @param source - names the file in errors
 *
 * @group Files
 */
export function parseMinimallocCsv(text: string, source = 'input.csv'): MinimallocCsv {
  // Wrong-typed arguments are named, not a TypeError.
  if (typeof source !== 'string') throw new TensorplanError('INVALID_ARGUMENT', `source = ${shown(source)}: must be a string`);
  if (typeof text !== 'string') throw new TensorplanError('INVALID_ARGUMENT', `${source}: text = ${shown(text)}: must be the CSV text`);
  const lines = text.split(/\r?\n/);
  const fail = (line: number, message: string): never => {
    throw new TensorplanError('INVALID_ARGUMENT', `${source}:${line}: ${message}`);
  };
  const header = (lines[0] ?? '').split(',').map((c) => c.trim());
  for (const name of header) if (!KNOWN.has(name)) fail(1, `unknown column ${shown(name)} (expected id, lower, upper or end, size, alignment, hint, gaps)`);
  for (const name of REQUIRED) if (!header.includes(name)) fail(1, `missing column "${name}"`);
  const inclusive = header.includes('end');
  if (inclusive === header.includes('upper')) fail(1, 'expected exactly one of the columns "upper" (exclusive) and "end" (inclusive)');
  const at = (name: string) => header.indexOf(name);
  const buffers: PlaceBuffer[] = [];
  const ids: string[] = [];
  const rows: string[][] = [];
  const seen = new Map<string, number>();
  lines.slice(1).forEach((raw, k) => {
    const line = k + 2;
    if (raw.trim() === '') return;
    const cells = raw.split(',').map((c) => c.trim());
    if (cells.length !== header.length) fail(line, `expected ${header.length} columns, found ${cells.length}`);
    const integer = (name: string, min: number) => {
      const cell = cells[at(name)];
      const value = Number(cell);
      if (cell === '' || !Number.isInteger(value) || value < min || value > 2 ** 53) {
        fail(line, `column "${name}" = ${shown(cell)}: expected an integer >= ${min}`);
      }
      return value;
    };
    const id = cells[at('id')];
    if (seen.has(id)) fail(line, `column "id" = ${shown(id)}: already used on line ${seen.get(id)}`);
    seen.set(id, line);
    const lower = integer('lower', 0);
    const upper = inclusive ? integer('end', 0) + 1 : integer('upper', 0);
    if (upper <= lower) fail(line, `the lifetime [${lower}, ${upper}) is empty: ${inclusive ? 'end' : 'upper'} must be ${inclusive ? '>=' : '>'} lower`);
    const buffer: PlaceBuffer = { lower, upper, size: integer('size', 0) };
    if (at('alignment') >= 0) {
      const alignment = integer('alignment', 1);
      if ((alignment & (alignment - 1)) !== 0) fail(line, `column "alignment" = ${alignment}: must be a power of two`);
      buffer.alignment = alignment;
    }
    buffers.push(buffer);
    ids.push(id);
    rows.push(cells);
  });
  return { buffers, ids, columns: header, rows };
}

/**
 * The CSV back, with an `offset` column added (or replaced).
 *
 * @group Files
 */
export function formatMinimallocCsv(csv: MinimallocCsv, offsets: readonly number[]): string {
  // What is written is checked first, and named when wrong.
  const bad = (field: string, value: unknown, rule: string): never => {
    throw new TensorplanError('INVALID_ARGUMENT', `${field} = ${shown(value)}: must be ${rule}`);
  };
  if (csv === null || typeof csv !== 'object') bad('csv', csv, 'what parseMinimallocCsv returned');
  const strings = (field: string, value: unknown) => {
    if (!Array.isArray(value)) bad(field, value, 'an array of strings');
    (value as unknown[]).forEach((cell, i) => typeof cell === 'string' || bad(`${field}[${i}]`, cell, 'a string'));
  };
  strings('csv.columns', csv.columns);
  if (!Array.isArray(csv.rows)) bad('csv.rows', csv.rows, 'an array of rows');
  csv.rows.forEach((row, i) => strings(`csv.rows[${i}]`, row));
  if (!Array.isArray(offsets) || offsets.length !== csv.rows.length) bad('offsets', offsets, `an array of ${csv.rows.length} offsets, one per row`);
  offsets.forEach((offset, i) => typeof offset === 'number' || bad(`offsets[${i}]`, offset, 'a number'));
  const offsetColumn = csv.columns.indexOf('offset');
  const columns = offsetColumn >= 0 ? csv.columns : [...csv.columns, 'offset'];
  const lines = [columns.join(',')];
  csv.rows.forEach((cells, i) => {
    const row = [...cells];
    if (offsetColumn >= 0) row[offsetColumn] = String(offsets[i]);
    else row.push(String(offsets[i]));
    lines.push(row.join(','));
  });
  return lines.join('\n') + '\n';
}
