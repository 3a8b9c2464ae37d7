import Table from 'cli-table3';
import { tableStyle } from './colour.js';
import { init } from '../index.js';
import type { BackendChoice } from '../index.js';
import { CliError, EXIT_NEGATIVE, EXIT_OK } from './exit-codes.js';
import { readPlanAndGraph } from './plan-graph.js';

/** `tensorplan validate PLAN.json`: every violation as a typed diagnostic; exit 1 if any. */
export async function validateCommand(file: string, options: { graph?: string; json?: boolean; backend?: BackendChoice }): Promise<number> {
  // A referenced graph is found relative to the plan file.
  const { plan, graph } = await readPlanAndGraph(file, options.graph);
  const tp = await init({ backend: options.backend ?? 'auto' });
  const diagnostics = tp.validate(plan, graph);
  if (options.json) {
    console.log(JSON.stringify({ valid: diagnostics.length === 0, diagnostics }, null, 2));
  } else if (diagnostics.length === 0) {
    console.log(`${file}: valid (${plan.schedule.length} steps, ${plan.storages.length} storages, arena ${plan.arenaBytes} bytes)`);
  } else {
    console.log(`${file}: INVALID, ${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'}`);
    const table = new Table({ head: ['code', 'problem'], colWidths: [22, 96], wordWrap: true, style: tableStyle() });
    for (const d of diagnostics.slice(0, 50)) table.push([d.code, d.message]);
    console.log(table.toString());
    if (diagnostics.length > 50) console.log(`... and ${diagnostics.length - 50} more (use --json for all)`);
  }
  if (diagnostics.length > 0 && diagnostics.every((d) => d.code === 'GRAPH_INVALID') && !('format' in plan.graph) && !graph) {
    throw new CliError('no graph to validate against');
  }
  return diagnostics.length === 0 ? EXIT_OK : EXIT_NEGATIVE;
}
