import { PLACE_ALGORITHM_CODE, PLACE_METHOD_NAME, callPlace } from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { TensorplanError, shown } from '../errors.js';

/**
 * A buffer to place: alive over steps [lower, upper), `size` bytes.
 *
 * @group Planning
 */
export interface PlaceBuffer {
  lower: number;
  upper: number;
  size: number;
  /** Power of two; default 1. */
  alignment?: number;
}

/**
 * The placement algorithms: tensorplan's solver, or a baseline of PLANNING.md §4.
 *
 * @group Planning
 */
export type PlaceAlgorithm = 'ours' | 'greedy-size' | 'xla-best' | 'first-fit';

/**
 * Options of {@link Tensorplan.place}.
 *
 * @group Planning
 */
export interface PlaceOptions {
  /** Default `'ours'`. */
  algorithm?: PlaceAlgorithm;
  /** Decision mode: find a placement with height <= capacity, or prove none exists (0 fits only buffers of 0 bytes). Default: none. */
  capacity?: number;
  /** Solver budget in seconds (default 10); the best placement found so far is always returned. */
  timeLimitSeconds?: number;
  /** Find the smallest height (within `capacity` when given) and prove it when the budget allows. */
  minimize?: boolean;
  /**
   * Under `minimize` or a `capacity`: how many workers run the search at once, each with its own
   * random draws, every independent piece keeping the lowest placement any of them found. Where the
   * search ends depends on its draws more than on its time, so the best of several draws is lower
   * on average (docs/placement.md, "Threads"). Default 1, the search alone; 0: one per processor
   * the process may use; at most 256. With more than one, the placement may differ from run to
   * run. The WASM backend runs one: `stats.threads` says how many ran.
   */
  threads?: number;
}

/**
 * Offsets and what is known about them.
 *
 * @group Planning
 */
export interface PlaceResult {
  /** One per buffer, in input order. */
  offsets: number[];
  /** max(offset + size). */
  height: number;
  /** The most bytes alive at one step: no placement is lower. */
  lowerBound: number;
  /** The best bound on the optimum that was proved (>= lowerBound). */
  provedLowerBound: number;
  /** height <= capacity (always true without a capacity). */
  feasible: boolean;
  provedOptimal: boolean;
  /** No placement fits the capacity, proved. */
  provedInfeasible: boolean;
  algorithm: PlaceAlgorithm;
  /** Which part of the solver produced the offsets (e.g. 'search', 'greedy-size'). */
  method: string;
  stats: {
    nodes: number; seconds: number; bestBaselineHeight: number; pieces: number; timedOut: boolean;
    /** Workers of the search that ran (see {@link PlaceOptions.threads}). */
    threads: number;
  };
}

/** ABI codes of the algorithms the API offers (c_api.h TP_PLACE_ALGORITHM_LIST, without `auto`). @internal */
export const PLACE_ALGORITHM_CODES: Record<PlaceAlgorithm, number> = {
  ours: PLACE_ALGORITHM_CODE.ours, 'greedy-size': PLACE_ALGORITHM_CODE['greedy-size'], 'xla-best': PLACE_ALGORITHM_CODE['xla-best'],
  'first-fit': PLACE_ALGORITHM_CODE['first-fit'],
};
/** Name of the solver part that produced a placement, by the core's code (c_api.h TP_PLACE_METHOD_LIST). @internal */
export function placeMethodName(code: number): string {
  return PLACE_METHOD_NAME[code] ?? 'none';
}

function fail(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

/**
 * The four input columns of `tp_place`, filled in one pass (10^5 buffers take
 * a few milliseconds). On a value that is not a number, the column-by-column
 * check names the first bad field, column order first, as it always has.
 */
function placeColumns(buffers: readonly PlaceBuffer[]): { lower: Float64Array; upper: Float64Array; size: Float64Array; alignment: Float64Array } {
  const n = buffers.length;
  const lower = new Float64Array(n), upper = new Float64Array(n), size = new Float64Array(n), alignment = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const b = buffers[i];
    const lo = b?.lower, up = b?.upper, sz = b?.size, al = b?.alignment ?? 0;
    if (typeof lo !== 'number' || typeof up !== 'number' || typeof sz !== 'number' || typeof al !== 'number') {
      for (const [key, fallback] of [['lower'], ['upper'], ['size'], ['alignment', 0]] as const) {
        for (let j = 0; j < n; j++) {
          const value = buffers[j]?.[key] ?? fallback;
          if (typeof value !== 'number') fail(`buffers[${j}].${key} = ${shown(value)}: must be a number`);
        }
      }
    }
    lower[i] = lo as number;
    upper[i] = up as number;
    size[i] = sz as number;
    alignment[i] = al;
  }
  return { lower, upper, size, alignment };
}

/**
 * The part of a time limit left for the core: what the call has spent so far,
 * and as much again for what follows the core (the core's own reserve covers
 * its post-processing; this covers passing 10^5 offsets back), are taken off.
 * Never 0 or less, which the core reads as "no limit".
 */
function remainingLimitSeconds(limit: number, startedMs: number): number {
  if (!(limit > 0)) return limit;
  const spent = (performance.now() - startedMs) / 1000;
  return Math.max(limit - 2 * spent, Math.min(limit, 1e-3));
}

/** Places buffers in one arena with `tp_place` (PLANNING.md §4). */
export function place(core: CoreBinding, buffers: readonly PlaceBuffer[], options: PlaceOptions = {}): PlaceResult {
  // The time limit covers the whole call, checks and marshalling included.
  const started = performance.now();
  if (!Array.isArray(buffers)) fail('buffers must be an array');
  const algorithm = options.algorithm ?? 'ours';
  if (typeof algorithm !== 'string' || !Object.hasOwn(PLACE_ALGORITHM_CODES, algorithm)) fail(`algorithm = ${shown(algorithm)}: expected one of ${Object.keys(PLACE_ALGORITHM_CODES).join(', ')}`);
  // The ABI spells "no capacity" -1; 0 is a capacity of 0 bytes.
  const capacity = options.capacity ?? -1;
  if (options.capacity !== undefined && !(typeof options.capacity === 'number' && options.capacity >= 0)) {
    fail(`capacity = ${shown(options.capacity)}: must be a number of bytes >= 0 (leave it out for none)`);
  }
  const limit = options.timeLimitSeconds ?? 10;
  if (typeof limit !== 'number' || !Number.isFinite(limit)) fail(`timeLimitSeconds = ${shown(limit)}: must be a finite number of seconds`);
  const threads = options.threads ?? 1;
  // The core checks the upper bound (placement.h kMaxPlaceThreads) and names it.
  if (typeof threads !== 'number' || !Number.isInteger(threads) || threads < 0 || threads > 0x7fffffff) {
    fail(`threads = ${shown(threads)}: must be an integer >= 0 (0: one per processor the process may use)`);
  }
  const columns = placeColumns(buffers);
  const { offsets, summary } = callPlace(core, {
    ...columns, count: buffers.length,
    algorithm: PLACE_ALGORITHM_CODES[algorithm], capacity, timeLimitSeconds: remainingLimitSeconds(limit, started), minimize: options.minimize ? 1 : 0, threads,
  });
  return {
    offsets: Array.from(offsets),
    height: summary[0],
    lowerBound: summary[1],
    provedLowerBound: summary[2],
    feasible: summary[3] === 1,
    provedOptimal: summary[4] === 1,
    provedInfeasible: summary[5] === 1,
    algorithm,
    method: placeMethodName(summary[8]),
    stats: { nodes: summary[6], seconds: summary[7], bestBaselineHeight: summary[9], pieces: summary[10], timedOut: summary[11] === 1, threads: summary[12] },
  };
}
