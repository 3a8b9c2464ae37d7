import { readFile, writeFile } from 'node:fs/promises';
import { formatMinimallocCsv, init, parseMinimallocCsv } from '../index.js';
import type { BackendChoice, PlaceAlgorithm } from '../index.js';
import { CliError, EXIT_NEGATIVE, EXIT_OK } from './exit-codes.js';
import { formatBytes } from './format.js';
import { parseBytes, parseSeconds, parseWholeNumber } from './parse-units.js';

export interface PlaceCommandOptions {
  capacity?: string;
  minimize?: boolean;
  timeLimit?: string;
  threads?: string;
  algorithm?: PlaceAlgorithm;
  output?: string;
  json?: boolean;
  backend?: BackendChoice;
}

/**
 * `tensorplan place FILE.csv`: offsets for a MiniMalloc CSV. Exit 0 when a
 * placement within the capacity was found, 1 when none was (proved or not).
 */
export async function placeCommand(file: string, options: PlaceCommandOptions): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const csv = parseMinimallocCsv(text, file);
  const capacity = options.capacity !== undefined ? parseBytes(options.capacity, '--capacity') : undefined;
  const timeLimitSeconds = options.timeLimit !== undefined ? parseSeconds(options.timeLimit, '--time-limit') : undefined;
  const threads = options.threads !== undefined ? parseWholeNumber(options.threads, '--threads') : undefined;
  const tp = await init({ backend: options.backend ?? 'auto' });
  const start = performance.now();
  const result = tp.place(csv.buffers, { algorithm: options.algorithm, capacity, timeLimitSeconds, minimize: options.minimize, threads });
  const timeMs = performance.now() - start;
  if (options.output) await writeFile(options.output, formatMinimallocCsv(csv, result.offsets));
  const proved = result.feasible ? result.provedOptimal : result.provedInfeasible;
  // Said plainly: the height is optimal, proved, or it is not proved, and the
  // optimum lies between the proved bound and the height found.
  const optimality = result.provedOptimal ? 'proved optimal' : 'not proved';
  if (options.json) {
    console.log(JSON.stringify({
      height: result.height, lowerBound: result.lowerBound, proved, feasible: result.feasible, timeMs,
      algorithm: result.algorithm, method: result.method, optimality, provedOptimal: result.provedOptimal,
      provedInfeasible: result.provedInfeasible, provedLowerBound: result.provedLowerBound, threads: result.stats.threads,
      ...(capacity !== undefined ? { capacity } : {}),
    }, null, 2));
  } else {
    console.log(`${file}: ${csv.buffers.length} buffers, lower bound ${formatBytes(result.lowerBound)}`);
    console.log(`height ${formatBytes(result.height)} (${(result.height / Math.max(1, result.lowerBound)).toFixed(4)} x LB), ` +
      `${result.provedOptimal ? 'proved optimal' : `not proved: bound ${formatBytes(result.provedLowerBound)}, best ${formatBytes(result.height)}`}, ` +
      `${result.algorithm} (${result.method}), ${timeMs.toFixed(1)} ms${result.stats.threads > 1 ? `, ${result.stats.threads} threads` : ''}`);
    if (capacity !== undefined) {
      console.log(result.feasible ? `fits the capacity ${formatBytes(capacity)}`
        : result.provedInfeasible ? `no placement fits the capacity ${formatBytes(capacity)} (proved)`
          : `no placement within the capacity ${formatBytes(capacity)} was found in time (not proved impossible)`);
    }
    if (options.output) console.log(`offsets written to ${options.output}`);
  }
  return result.feasible ? EXIT_OK : EXIT_NEGATIVE;
}
