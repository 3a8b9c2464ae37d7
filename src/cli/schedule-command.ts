import Table from 'cli-table3';
import { tableStyle } from './colour.js';
import { SCHEDULE_METHODS, init, parseGraph } from '../index.js';
import type { BackendChoice, ScheduleMethod } from '../index.js';
import { CliError } from './exit-codes.js';
import { formatBytes } from './format.js';
import { parseSeconds } from './parse-units.js';
import { readJsonFile } from './read-input.js';

/**
 * `tensorplan schedule GRAPH.json`: the op order with the smallest peak, every
 * baseline's peak beside it, and what is alive at the peak.
 */
export async function scheduleCommand(
  file: string,
  options: { json?: boolean; backend?: BackendChoice; method?: string; timeLimit?: string },
): Promise<number> {
  const method = (options.method ?? 'ours') as ScheduleMethod;
  if (!SCHEDULE_METHODS.includes(method)) throw new CliError(`--method ${method}: expected one of ${SCHEDULE_METHODS.join(', ')}`);
  const timeLimitSeconds = parseSeconds(options.timeLimit ?? '1s', '--time-limit', true);
  const graph = parseGraph(await readJsonFile(file), file);
  const tp = await init({ backend: options.backend ?? 'auto' });
  const result = tp.schedule(graph, { method, timeLimitSeconds });
  const live = tp.liveness(graph, result.order);
  if (options.json) {
    console.log(JSON.stringify({ backend: tp.backend, schedule: result, liveness: { ...live, storages: undefined } }, null, 2));
    return 0;
  }
  const table = new Table({ head: ['method', 'peak', 'vs chosen', 'ms'], style: tableStyle() });
  for (const [name, figure] of Object.entries(result.baselines)) {
    table.push([name, formatBytes(figure!.peakBytes), (figure!.peakBytes / Math.max(1, result.peakBytes)).toFixed(3), (figure!.seconds * 1e3).toFixed(2)]);
  }
  console.log(`schedule of ${graph.ops.length} ops (${file}), method ${method}, backend ${tp.backend}`);
  console.log(table.toString());
  console.log(`peak:        ${formatBytes(result.peakBytes)}${result.provedOptimal ? ' (proved optimal)' : ''}`);
  console.log(`lower bound: ${formatBytes(result.lowerBoundBytes)}${result.provedOptimal ? '' : ` (not proved: the peak is at most ${(100 * result.gap).toFixed(2)}% above the optimum)`}`);
  if (result.startedFrom) console.log(`started from ${result.startedFrom}, searched ${(result.searchSeconds * 1e3).toFixed(1)} ms`);
  if (live.peakOp !== null) {
    console.log(`at the peak (step ${live.peakStep}, op ${live.peakOp}, workspace ${formatBytes(live.peakWorkspaceBytes)}):`);
    const top = new Table({ head: ['storage', 'bytes', 'made by', 'last use'], style: tableStyle() });
    for (const c of live.peakContributors.slice(0, 10)) top.push([c.owner, formatBytes(c.bytes), c.producer ?? '(input)', c.lastUse ?? '']);
    console.log(top.toString());
  }
  console.log(`order: ${result.order.join(' ')}`);
  return 0;
}
