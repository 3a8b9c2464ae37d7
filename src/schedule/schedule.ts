// Choosing an op order: the core's scheduler and its baselines. The option
// checks and order encoding here are shared by liveness, fusion and trace checks.
import {
  SCHEDULE_METHOD_CODE, SCHEDULE_METHOD_NAMES, callGraphSchedule,
} from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { TensorplanError, shown } from '../errors.js';
import type { GraphDocument } from '../graph/graph-document.js';
import { type EncodedGraph, encodeGraph } from '../graph/encode-graph.js';

/**
 * How to order the ops (PLANNING.md §3). The baselines are the published
 * heuristics of PyTorch Inductor and XLA; `'ours'` starts from the best of
 * them, proves the optimum by exact search on small graphs and, beyond them,
 * segment by segment between the steps every order must pass (segments of
 * up to 128 ops), and improves the rest by local search until it is proved
 * or the time limit is spent (docs/scheduling.md, "Proofs beyond 64 ops").
 * It is never worse than
 * any baseline it ran (under a time limit too small for all of them, the
 * ones cut are missing from `baselines`; `'given'` always runs).
 *
 * @group Planning
 */
export type ScheduleMethod =
  | 'given'
  | 'inductor-lpmf'
  | 'inductor-bfs'
  | 'inductor-dfs'
  | 'xla-list'
  | 'xla-dfs'
  | 'xla-post-order'
  | 'inductor-best'
  | 'xla-best'
  | 'ours';

/**
 * The seven single baselines, in the core's code order (0..6).
 *
 * @group Planning
 */
export type BaselineMethod = 'given' | 'inductor-lpmf' | 'inductor-bfs' | 'inductor-dfs' | 'xla-list' | 'xla-dfs' | 'xla-post-order';

/**
 * Every method, in the core's code order: the index is the ABI code (c_api.h TP_SCHEDULE_METHOD_LIST).
 *
 * @group Planning
 */
export const SCHEDULE_METHODS: readonly ScheduleMethod[] = SCHEDULE_METHOD_NAMES;

/**
 * Options of {@link Tensorplan.schedule} (and of the scheduling inside {@link Tensorplan.checkFusion}).
 *
 * @group Planning
 */
export interface ScheduleOptions {
  /** Default `'ours'`. */
  method?: ScheduleMethod;
  /**
   * Seconds the whole call may take with `'ours'` (reading the graph, the
   * baselines, the search and the final checks); the search runs until it
   * proves the optimum or the limit is spent; 0 = the baselines only,
   * without a limit. Default 1. Reading and checking the graph is a fixed
   * cost (about 0.5 s for 10^5 ops): a smaller limit cannot be met, and the
   * call then returns the best baseline that fitted (at least `'given'`).
   */
  timeLimitSeconds?: number;
  /**
   * Bound `'ours'` by this many units of search work instead of by time: the
   * order is then the same on every machine and backend (`timeLimitSeconds`
   * is ignored). About 10^5 units take 0.05-0.2 s natively.
   */
  workLimit?: number;
}

/**
 * Peak and run time of one baseline.
 *
 * @group Planning
 */
export interface BaselineFigure {
  peakBytes: number;
  seconds: number;
}

/**
 * An op order and what it costs.
 *
 * @group Planning
 */
export interface ScheduleResult {
  method: ScheduleMethod;
  /** Op names, step 0 first. */
  order: string[];
  /** Peak live bytes of the arena under `order` (storages rounded up to their alignment). */
  peakBytes: number;
  /** No order can have a lower peak. */
  lowerBoundBytes: number;
  /** True when `peakBytes` is proved to be the optimum over all orders. */
  provedOptimal: boolean;
  /**
   * `peakBytes / lowerBoundBytes - 1`: the peak is at most this fraction
   * above the optimum (0 when proved optimal, and when both are 0).
   */
  gap: number;
  /** For `'ours'`: the baseline it started from. */
  startedFrom: BaselineMethod | null;
  /** For `'ours'`: seconds spent after the baselines. */
  searchSeconds: number;
  /** The baselines that ran, by name. */
  baselines: Partial<Record<BaselineMethod, BaselineFigure>>;
}

function fail(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

/** The ABI code of a schedule method (default `'ours'`); throws naming an unknown one. */
export function methodCode(method: ScheduleMethod | undefined): number {
  const name = method ?? 'ours';
  const code = typeof name === 'string' && Object.hasOwn(SCHEDULE_METHOD_CODE, name) ? SCHEDULE_METHOD_CODE[name] : -1;
  if (code < 0) fail(`method = ${shown(method)}: expected one of ${SCHEDULE_METHODS.join(', ')}`);
  return code;
}

/** The search time limit in seconds (default 1). */
export function timeLimit(options: ScheduleOptions): number {
  const limit = options.timeLimitSeconds ?? 1;
  if (typeof limit !== 'number') fail(`timeLimitSeconds = ${shown(limit)}: must be a number of seconds`);
  return limit;
}

/** Op names -> op indices, or the graph's own order when `order` is undefined. */
export function encodeOrder(graph: EncodedGraph, order: readonly string[] | undefined): Int32Array {
  if (order === undefined) return Int32Array.from(graph.doc.ops.map((_, i) => i));
  if (!Array.isArray(order)) fail('order must be an array of op names');
  return Int32Array.from(order.map((name, i) => {
    const index = graph.opIndex.get(name);
    if (index === undefined) fail(`order[${i}] = ${shown(name)}: unknown op`);
    return index;
  }));
}

/**
 * The part of a time limit left for the core once `startedMs` (a
 * performance.now() value) is past. The core's clock covers its own reading
 * of the graph and keeps back what its final checks cost; what follows it
 * here (turning indices back into names) costs a few percent of what reading
 * the graph here cost, so a quarter of that is kept back too. Never 0 or
 * less, which the core reads as "baselines only, no limit"; 0 stays 0.
 */
function remainingLimitSeconds(limit: number, startedMs: number): number {
  if (!(limit > 0)) return limit;
  const spent = (performance.now() - startedMs) / 1000;
  return Math.max(limit - 1.25 * spent, Math.min(limit, 1e-3));
}

/** Chooses an op order with `options.method` (default `'ours'`). */
export function schedule(core: CoreBinding, graph: GraphDocument, options: ScheduleOptions = {}): ScheduleResult {
  // The time limit covers the whole call, reading the graph included.
  const started = performance.now();
  return scheduleEncoded(core, encodeGraph(core, graph), options, started);
}

/**
 * {@link schedule} for a graph that is already encoded (plan() encodes once
 * for every phase). The time limit counts from `startedMs` (a
 * performance.now() value; default: now).
 */
export function scheduleEncoded(core: CoreBinding, encoded: EncodedGraph, options: ScheduleOptions = {}, startedMs = performance.now()): ScheduleResult {
  const method = options.method ?? 'ours';
  const workLimit = options.workLimit ?? 0;
  if (!(Number.isInteger(workLimit) && workLimit >= 0)) fail(`workLimit = ${shown(workLimit)}: must be an integer >= 0`);
  const { order, stats, baselinePeaks: peaks, baselineSeconds: seconds } = callGraphSchedule(core, {
    ...encoded.graph, method: methodCode(method), timeLimitS: remainingLimitSeconds(timeLimit(options), startedMs), workLimit,
  });
  const baselines: Partial<Record<BaselineMethod, BaselineFigure>> = {};
  for (let m = 0; m < 7; m++) {
    if (peaks[m] >= 0) baselines[SCHEDULE_METHODS[m] as BaselineMethod] = { peakBytes: peaks[m], seconds: seconds[m] };
  }
  return {
    method,
    order: Array.from(order, (i) => encoded.doc.ops[i].name),
    peakBytes: stats[0],
    lowerBoundBytes: stats[1],
    provedOptimal: stats[2] === 1,
    gap: stats[1] > 0 ? stats[0] / stats[1] - 1 : 0,
    startedFrom: method === 'ours' && stats[3] >= 0 ? (SCHEDULE_METHODS[stats[3]] as BaselineMethod) : null,
    searchSeconds: stats[4],
    baselines,
  };
}
