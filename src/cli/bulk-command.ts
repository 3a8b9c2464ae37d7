import Table from 'cli-table3';
import { tableStyle } from './colour.js';
import { init } from '../index.js';
import type { BackendChoice, BulkTensor } from '../index.js';
import { CliError } from './exit-codes.js';
import { formatBytes } from './format.js';
import { readJsonFile } from './read-input.js';

/** `tensorplan bulk FILE.json`: the TE bulk_allocate layout of a list of tensors. */
export async function bulkCommand(file: string, options: { json?: boolean; backend?: BackendChoice }): Promise<number> {
  const input = await readJsonFile(file);
  const tensors = (input as { tensors?: unknown })?.tensors;
  if (!Array.isArray(tensors)) throw new CliError(`${file}: expected an object with a "tensors" array`);
  const tp = await init({ backend: options.backend ?? 'auto' });
  const layout = tp.bulkLayout(tensors as BulkTensor[]);
  if (options.json) {
    console.log(JSON.stringify({ backend: tp.backend, ...layout }, null, 2));
    return 0;
  }
  const table = new Table({ head: ['#', 'tensor', 'shape', 'dtype', 'offset', 'bytes', 'align'], style: tableStyle() });
  layout.entries.forEach((entry, i) => {
    const tensor = tensors[i] as BulkTensor;
    table.push([
      i,
      entry.name ?? '',
      `[${tensor.shape.join(', ')}]`,
      tensor.dtype,
      entry.offset,
      entry.separateAllocation ? '0 (separate)' : entry.bytes,
      entry.alignment,
    ]);
  });
  console.log(`bulk layout of ${layout.entries.length} tensors (${file}), backend ${tp.backend}`);
  console.log(table.toString());
  console.log(`used:       ${formatBytes(layout.usedBytes)}`);
  console.log(`base align: ${layout.baseAlignment} B`);
  console.log(`allocated:  ${formatBytes(layout.allocationBytes)}`);
  return 0;
}
