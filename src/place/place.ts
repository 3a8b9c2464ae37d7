import { PLACE_ALGORITHM_CODE, PLACE_METHOD_NAME, callPlace } from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { TensorplanError, shown } from '../errors.js';

/** A buffer to place: alive over steps [lower, upper), `size` bytes. */
export interface PlaceBuffer {
  lower: number;
  upper: number;
  size: number;
  /** Power of two; default 1. */
  alignment?: number;
}

/** The placement algorithms: tensorplan's solver, or a baseline of PLANNING.md §4. */
export type PlaceAlgorithm = 'ours' | 'greedy-size' | 'xla-best' | 'first-fit';

/** Options of {@link Tensorplan.place}. */
export interface PlaceOptions {
  /** Default `'ours'`. */
  algorithm?: PlaceAlgorithm;
  /** Decision mode: find a placement with height <= capacity, or prove none exists (0 fits only buffers of 0 bytes). Default: none. */
  capacity?: number;
  /** Solver budget in seconds (default 10); the best placement found so far is always returned. */
  timeLimitSeconds?: number;
  /** Find the smallest height (within `capacity` when given) and prove it when the budget allows. */
  minimize?: boolean;
}

/** Offsets and what is known about them. */
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
  stats: { nodes: number; seconds: number; bestBaselineHeight: number; pieces: number; timedOut: boolean };
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

/** Places buffers in one arena with `tp_place` (PLANNING.md §4). */
export function place(core: CoreBinding, buffers: readonly PlaceBuffer[], options: PlaceOptions = {}): PlaceResult {
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
  const column = (key: keyof PlaceBuffer, fallback?: number) =>
    Float64Array.from(buffers, (b, i) => {
      const value = b?.[key] ?? fallback;
      if (typeof value !== 'number') fail(`buffers[${i}].${key} = ${shown(value)}: must be a number`);
      return value;
    });
  const { offsets, summary } = callPlace(core, {
    lower: column('lower'), upper: column('upper'), size: column('size'), alignment: column('alignment', 0), count: buffers.length,
    algorithm: PLACE_ALGORITHM_CODES[algorithm], capacity, timeLimitSeconds: limit, minimize: options.minimize ? 1 : 0,
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
    stats: { nodes: summary[6], seconds: summary[7], bestBaselineHeight: summary[9], pieces: summary[10], timedOut: summary[11] === 1 },
  };
}
