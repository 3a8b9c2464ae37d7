import Table from 'cli-table3';
import { SingleBar } from 'cli-progress';
import { tableStyle } from './colour.js';
import { init, parseLayerSpec } from '../index.js';
import type { BackendChoice, FitProbe, FitResult } from '../index.js';
import { CliError, EXIT_NEGATIVE, EXIT_OK } from './exit-codes.js';
import { formatBytes, formatShortBytes } from './format.js';
import { isLayerSpec } from './layers-plan.js';
import { parseBytes, parseSeconds } from './parse-units.js';
import { readJsonFile } from './read-input.js';

export interface FitCommandOptions {
  budget: string;
  vary: string;
  min?: string;
  max?: string;
  reserve?: string;
  timeLimit?: string;
  json?: boolean;
  backend?: BackendChoice;
}

function parseCount(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(Number(text))) throw new CliError(`${option} ${JSON.stringify(text)}: expected an integer >= 0`);
  return Number(text);
}

/** A progress bar on stderr, one tick per value planned; only on a terminal (never in pipes or --json). */
function fitProgressBar(vary: string): { onProbe?: (p: FitProbe) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { stop: () => undefined };
  // The number of plans is not known ahead (exponential probes, then bisection): the bar's end moves with it.
  const bar = new SingleBar({ format: `fit ${vary} {bar} {value} plans, last ${vary} = {last} {verdict}`, stream: process.stderr, clearOnComplete: true, hideCursor: true });
  let started = false;
  let count = 0;
  return {
    onProbe: (p) => {
      count++;
      if (!started) {
        bar.start(8, 0, { last: p.value, verdict: p.verdict });
        started = true;
      }
      if (count >= bar.getTotal()) bar.setTotal(count + 4);
      bar.update(count, { last: p.value, verdict: p.verdict });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

/** The JSON `--json` prints: the answer, the value above it, and how the search went. */
export function fitJson(r: FitResult) {
  return {
    vary: r.vary,
    path: r.path,
    value: r.value,
    peakBytes: r.peakBytes,
    totalBytes: r.totalBytes,
    persistentBytes: r.persistentBytes,
    budgetBytes: r.budgetBytes,
    reserveBytes: r.reserveBytes,
    next: r.next,
    monotone: r.monotone,
    probes: r.probes,
    unmodelled: r.unmodelled,
  };
}

function printFit(file: string, r: FitResult): void {
  const budget = `${formatShortBytes(r.budgetBytes)}${r.reserveBytes > 0 ? ` less a reserve of ${formatShortBytes(r.reserveBytes)}` : ''}`;
  if (r.value === null) {
    console.log(`${file}: no value of ${r.path} from the minimum fits ${budget}`);
  } else {
    console.log(`${file}: largest ${r.path} that fits ${budget}: ${r.value}`);
    console.log(`  peak ${formatBytes(r.peakBytes!)}, persistent ${formatBytes(r.persistentBytes!)}, arena + persistent ${formatBytes(r.totalBytes!)}`);
  }
  if (r.next) {
    console.log(`${r.path} = ${r.next.value} does not fit: arena + persistent ${formatBytes(r.next.totalBytes)} (peak ${formatShortBytes(r.next.peakBytes)}), over by ${formatShortBytes(r.next.overByBytes)}`);
    const table = new Table({ head: ['alive at its peak, by role', 'bytes'], style: tableStyle() });
    for (const e of r.next.aliveByRole) table.push([e.role, formatShortBytes(e.bytes)]);
    console.log(table.toString());
    console.log(`  largest by layer and role: ${r.next.aliveAtPeak.map((e) => `${e.layer} ${e.role} ${formatShortBytes(e.bytes)}`).join(', ')}`);
  } else if (r.value !== null) {
    console.log(`no larger valid value of ${r.path} was found that does not fit (the largest tried fits)`);
  }
  if (!r.monotone) {
    console.log(`note: memory did not grow with ${r.path} (a value fit above one that did not); ${r.value === null ? '' : `${r.value} is the largest value found to fit, not a proof`}`);
  }
  const skipped = r.probes.filter((p) => p.verdict === 'invalid');
  for (const p of skipped.slice(0, 4)) console.log(`skipped ${r.path} = ${p.value}: ${p.reason}`);
  if (skipped.length > 4) console.log(`skipped ${skipped.length - 4} more values the spec refuses`);
  console.log(`${r.probes.length - skipped.length} plans. Not modelled${r.reserveBytes > 0 ? ` (the reserve of ${formatShortBytes(r.reserveBytes)} stands for them)` : ' (give --reserve for them)'}:`);
  for (const u of r.unmodelled) console.log(`  - ${u}`);
}

/** `tensorplan fit SPEC.layers.json --budget 80GiB --vary model.microBatch`: the largest value that fits. */
export async function fitCommand(file: string, options: FitCommandOptions): Promise<number> {
  const input = await readJsonFile(file);
  if (!isLayerSpec(input)) throw new CliError(`${file}: fit needs a layer spec (format tensorplan.layers)`);
  const spec = parseLayerSpec(input, file);
  const budgetBytes = parseBytes(options.budget, '--budget');
  if (budgetBytes <= 0) throw new CliError(`--budget ${JSON.stringify(options.budget)}: must be more than 0 bytes`);
  const reserveBytes = options.reserve !== undefined ? parseBytes(options.reserve, '--reserve') : 0;
  const min = parseCount(options.min, '--min');
  const max = parseCount(options.max, '--max');
  if (min !== undefined && max !== undefined && max < min) throw new CliError(`--max ${max}: must be at least --min ${min}`);
  const timeLimitSeconds = options.timeLimit !== undefined ? parseSeconds(options.timeLimit, '--time-limit') : undefined;
  const tp = await init({ backend: options.backend ?? 'auto' });
  const progress = fitProgressBar(options.vary);
  let result: FitResult;
  try {
    result = tp.fit(spec, {
      vary: options.vary, budgetBytes, reserveBytes, min, max, onProbe: progress.onProbe,
      plan: { effort: timeLimitSeconds !== undefined ? 'thorough' : 'fast', timeLimitSeconds },
    });
  } finally {
    progress.stop();
  }
  if (options.json) console.log(JSON.stringify(fitJson(result), null, 2));
  else printFit(file, result);
  return result.value === null ? EXIT_NEGATIVE : EXIT_OK;
}
