import Table from 'cli-table3';
import { tableStyle } from './colour.js';
import { info } from '../index.js';
import type { BackendChoice } from '../index.js';
import { formatBytes } from './format.js';

/** `tensorplan info`: which backend runs, and why the others do not. */
export async function infoCommand(options: { json?: boolean; backend?: BackendChoice }): Promise<number> {
  const report = await info({ backend: options.backend ?? 'auto' });
  if (options.json) {
    console.log(JSON.stringify(report, null, 2));
    return 0;
  }
  console.log(`tensorplan ${report.version}`);
  console.log(`backend in use: ${report.backend ?? `none (${report.reason})`}`);
  const table = new Table({ head: ['backend', 'priority', 'available', 'reason / source'], wordWrap: true, colWidths: [10, 10, 11, 70], style: tableStyle() });
  for (const b of report.backends) {
    table.push([b.name, b.priority, b.available ? 'yes' : 'no', b.available ? (b.source ?? '') : b.reason]);
  }
  console.log(table.toString());
  if (report.cuda) {
    const runtime = report.cuda.compiled ? `CUDA runtime ${report.cuda.runtimeVersion}` : 'addon built without CUDA';
    console.log(`cuda: ${runtime}, driver ${report.cuda.driverVersion || 'none'}`);
    for (const d of report.cuda.devices) {
      console.log(`  device ${d.index}: ${d.name}, ${formatBytes(d.totalMemoryBytes)}, compute ${d.computeCapability}`);
    }
    if (report.cuda.reason) console.log(`  ${report.cuda.reason}`);
  }
  return 0;
}
