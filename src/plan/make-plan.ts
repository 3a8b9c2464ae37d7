import type { CoreBinding } from '../abi/core-binding.js';
import { TensorplanError, shown } from '../errors.js';
import { type EncodedGraph, encodeGraph } from '../graph/encode-graph.js';
import type { GraphDocument } from '../graph/graph-document.js';
import { type ScheduleMethod, type ScheduleOptions, type ScheduleResult, scheduleEncoded } from '../schedule/schedule.js';
import { VERSION } from '../version.js';
import { callGraphCompactOrder, callPlanPlace } from '../abi/c-api.generated.js';
import { type PlaceAlgorithm, PLACE_ALGORITHM_CODES, placeMethodName } from '../place/place.js';
import type { PlanDocument, PlanStorage, PlanWorkspace } from './plan-document.js';
import { validatePlanAgainst } from './validate-plan.js';

const PLACEMENT_BASELINES = ['greedy-size', 'xla-best', 'first-fit'];
/**
 * Search work of a fast plan's scheduler. A unit costs roughly in proportion
 * to the graph's size, so the budget shrinks as graphs grow (about 0.1-0.3 s
 * of search natively at any size); it depends only on the graph, so fast
 * plans stay deterministic.
 */
const fastScheduleWork = (ops: number): number => Math.round(Math.min(200_000, Math.max(1_000, 2e8 / Math.max(1, ops))));

/**
 * A fast plan's placement limit in seconds, 0 meaning "bounded by work". Up to
 * this many tensors the core's work bounds (noisy dives sharing
 * max(2^25, 16 n log2 n) steps, a search of max(20000, 20 n) nodes) finish in
 * about a second and give the same placement on every machine and under any
 * load; a wall-clock limit there made plans depend on the machine's load
 * (the 32-layer MXFP8 Llama example ended 8 KiB above its lower bound on a
 * loaded machine). Larger graphs keep 0.5 s of placement, where the work
 * bounds would cost several seconds.
 */
const FAST_PLACE_WORK_BOUNDED_TENSORS = 8_000;
const fastPlaceSeconds = (tensors: number): number => (tensors <= FAST_PLACE_WORK_BOUNDED_TENSORS ? 0 : 0.5);

/**
 * Where plan() is, for progress reporting.
 *
 * @group Planning
 */
export interface PlanProgress {
  phase: 'schedule' | 'place' | 'validate' | 'done';
  /** Phases finished so far, out of `total`. */
  completed: number;
  total: number;
}

/**
 * Options of {@link Tensorplan.plan}.
 *
 * @group Planning
 */
export interface PlanOptions {
  /** Op order method (default `'ours'`). */
  schedule?: ScheduleMethod;
  /** Offset method (default `'ours'`). */
  placement?: PlaceAlgorithm;
  /**
   * `'fast'` (default) keeps every search short (well under a second on
   * large graphs); `'thorough'` spends up to `timeLimitSeconds` on exact
   * search for the order and for the smallest arena.
   */
  effort?: 'fast' | 'thorough';
  /** Budget of a thorough plan in seconds (default 10). */
  timeLimitSeconds?: number;
  /** Also measure the scheduling and placement baselines. */
  baselines?: boolean;
  /** Device memory available for the arena plus persistent tensors; the plan says whether it fits. */
  budgetBytes?: number;
  /**
   * Choose the op order by its placed arena, not only by its peak: place the
   * schedule method's order, two compacted copies of it (the same peak, less
   * bytes alive summed over the steps) and the seven baseline orders, with
   * the same placement options, and keep the smallest arena (ties: the lower
   * peak, then the earlier candidate). `statistics.joint` reports both the
   * schedule method's order and the kept one. Default false: the order with
   * the smallest peak is placed alone.
   */
  joint?: boolean;
  /** Store this path as the plan's graph instead of embedding the graph. */
  graphPath?: string;
  /** Called when each phase starts and when the plan is done. */
  onProgress?: (progress: PlanProgress) => void;
}

function checkOptions(options: PlanOptions): void {
  if (options.placement !== undefined && !(typeof options.placement === 'string' && Object.hasOwn(PLACE_ALGORITHM_CODES, options.placement))) {
    throw new TensorplanError('INVALID_ARGUMENT', `placement = ${shown(options.placement)}: expected one of ${Object.keys(PLACE_ALGORITHM_CODES).join(', ')}`);
  }
  if (options.effort !== undefined && options.effort !== 'fast' && options.effort !== 'thorough') {
    throw new TensorplanError('INVALID_ARGUMENT', `effort = ${shown(options.effort)}: expected 'fast' or 'thorough'`);
  }
  const limit = options.timeLimitSeconds;
  if (limit !== undefined && !(typeof limit === 'number' && limit > 0 && Number.isFinite(limit))) {
    throw new TensorplanError('INVALID_ARGUMENT', `timeLimitSeconds = ${shown(limit)}: must be a positive number of seconds`);
  }
  if (options.joint !== undefined && typeof options.joint !== 'boolean') {
    throw new TensorplanError('INVALID_ARGUMENT', `joint = ${shown(options.joint)}: expected true or false`);
  }
  const budget = options.budgetBytes;
  if (budget !== undefined && !(Number.isInteger(budget) && budget >= 0)) {
    throw new TensorplanError('INVALID_ARGUMENT', `budgetBytes = ${shown(budget)}: must be an integer number of bytes >= 0`);
  }
}

/**
 * Bytes of the storages outside the arena that hold a tensor of the graph's `externalIO` list:
 * graph inputs and outputs kept in user buffers, as ONNX Runtime keeps them (the ONNX importer's
 * `externalIO`). They are persistent for the core; the plan reports them apart.
 */
function externalIO(doc: GraphDocument, offsets: ArrayLike<number>, bytes: ArrayLike<number>, tensorStorage: ArrayLike<number>): number {
  if (!doc.externalIO?.length) return 0;
  const io = new Set(doc.externalIO);
  const storages = new Set<number>();
  doc.tensors.forEach((t, i) => {
    const s = tensorStorage[i];
    if (io.has(t.name) && s >= 0 && offsets[s] < 0) storages.add(s);
  });
  let total = 0;
  for (const s of storages) total += bytes[s];
  return total;
}

/** The scheduling baselines, in the core's code order (ABI codes 0..6). */
const BASELINE_METHODS: readonly ScheduleMethod[] = ['given', 'inductor-lpmf', 'inductor-bfs', 'inductor-dfs', 'xla-list', 'xla-dfs', 'xla-post-order'];

/**
 * Seeds of the compacted copies of the schedule method's order a joint plan
 * places (tp_graph_compact_order: the same peak, less bytes alive summed over
 * the steps). Each tries JOINT_COMPACT_MOVES moves (the core stops sooner
 * where they would cost more than 10^8 work units, about 0.5 s natively at
 * 10^4 ops). On random layered graphs the two copies place 3-5%
 * smaller than the order they start from (bench/plan.bench.mjs).
 */
const JOINT_COMPACT_SEEDS = [1, 2];
const JOINT_COMPACT_MOVES = 3000;

/**
 * The orders a joint plan places: the schedule method's own first, then its
 * compacted copies (JOINT_COMPACT_SEEDS) and each baseline's, every one that
 * differs from every earlier one. All are bounded by work, not time, so the
 * candidates are the same on every machine; the baselines take a few ms each
 * ('ours' already ran them once, but the core keeps only their peaks).
 * 'ours' stopped at a fraction of a fast plan's work is not a candidate: on
 * the bench's five layered graphs the compacted copies win on all five, and a
 * stopped search may take far longer than the whole one (on the contrib_ops
 * ONNX fixture, 4 s each against 3 ms: its quick descent gets too little work
 * to give the exact search a tight incumbent).
 */
function jointCandidates(core: CoreBinding, encoded: EncodedGraph, scheduled: ScheduleResult, scheduledOrder: Int32Array): { method: string; order: Int32Array }[] {
  const candidates = [{ method: scheduled.method as string, order: scheduledOrder }];
  const seen = new Set([scheduledOrder.join(',')]);
  const add = (method: string, order: Int32Array) => {
    const key = order.join(',');
    if (seen.has(key)) return;
    seen.add(key);
    candidates.push({ method, order });
  };
  for (const seed of JOINT_COMPACT_SEEDS) {
    const compacted = callGraphCompactOrder(core, {
      ...encoded.graph, order: scheduledOrder, orderCount: scheduledOrder.length, moves: JOINT_COMPACT_MOVES, seed,
    });
    add(`${scheduled.method}, compacted (seed ${seed})`, compacted.order);
  }
  for (const method of BASELINE_METHODS) {
    const options: ScheduleOptions = { method, timeLimitSeconds: 0 };
    add(method, Int32Array.from(scheduleEncoded(core, encoded, options).order, (name) => encoded.opIndex.get(name)!));
  }
  return candidates;
}

/** Schedules, places and validates `graph` (PLANNING.md §5). */
export function makePlan(core: CoreBinding, backend: string, graph: GraphDocument, options: PlanOptions = {}): PlanDocument {
  checkOptions(options);
  const progress = (phase: PlanProgress['phase'], completed: number) => options.onProgress?.({ phase, completed, total: 3 });
  const thorough = options.effort === 'thorough';
  const budget = options.timeLimitSeconds ?? 10;
  const start = performance.now();

  progress('schedule', 0);
  const encoded = encodeGraph(core, graph);
  const doc = encoded.doc;
  // A thorough plan's limit covers the whole call. Building and validating
  // the plan document after placement walks the graph as encoding it did;
  // measured on 10^5 ops it costs 0.65-1.2 times as much: 1.25 times the
  // encoding time is kept back from the searches, which share the rest, 40%
  // for the order (whose limit covers the core's own decoding of the graph).
  const encodedSeconds = (performance.now() - start) / 1000;
  const searchSeconds = Math.max(budget - 2.25 * encodedSeconds, 0.1 * budget);
  // Fast plans bound the search by work, not time, so every machine and both
  // backends return the same plan; thorough plans spend wall-clock time.
  const scheduled = scheduleEncoded(core, encoded, {
    method: options.schedule ?? 'ours', timeLimitSeconds: thorough ? 0.4 * searchSeconds : 0, workLimit: thorough ? 0 : fastScheduleWork(encoded.doc.ops.length),
  });
  const scheduledOrder = Int32Array.from(scheduled.order, (name) => encoded.opIndex.get(name)!);
  const candidates = options.joint ? jointCandidates(core, encoded, scheduled, scheduledOrder) : [];
  const afterSchedule = performance.now();

  progress('place', 1);
  const algorithm = PLACE_ALGORITHM_CODES[options.placement ?? 'ours'];
  const fastSeconds = fastPlaceSeconds(doc.tensors.length);
  const place = (order: Int32Array, timeLimitS: number, minimize: number, withBaselines: boolean) => callPlanPlace(core, {
    ...encoded.graph, order, orderCount: order.length, algorithm, capacity: -1, timeLimitS, minimize, withBaselines: withBaselines ? 1 : 0,
  });
  // Placement gets what the order left of the searches' share (the order
  // may overrun its own part), less what the core spends before its
  // placement clock starts (decoding the graph again and computing the
  // lifetimes: 0.25-0.7 times the encoding time at 10^5 ops); never 0, which
  // the core reads as no limit.
  const placeSeconds = () => Math.max(searchSeconds + 0.25 * encodedSeconds - (performance.now() - start) / 1000, 0.01 * budget);
  let order: Int32Array = scheduledOrder;
  let orderMethod: string = scheduled.method;
  let placed: ReturnType<typeof place> | undefined;
  let joint: { candidates: number; order: string; peakOrder: { peakBytes: number; arenaBytes: number } } | undefined;
  if (candidates.length > 0) {
    // Every candidate is placed with a fast plan's work-bounded settings, so
    // the choice is the same on every machine; a fast plan keeps the winner's
    // placement as it is (the schedule method's order is placed exactly as
    // without `joint`, so the joint arena is never larger), a thorough plan
    // then spends its placement time on the winner alone.
    let best = 0;
    let bestResult: ReturnType<typeof place> | undefined;
    candidates.forEach((candidate, i) => {
      const result = place(candidate.order, fastSeconds, 0, !thorough && i === 0 && options.baselines === true);
      const [arena, peak] = result.stats;
      if (i === 0) joint = { candidates: candidates.length, order: candidate.method, peakOrder: { peakBytes: peak, arenaBytes: arena } };
      const [bestArena, bestPeak] = bestResult?.stats ?? [Infinity, Infinity];
      if (arena < bestArena || (arena === bestArena && peak < bestPeak)) {
        best = i;
        bestResult = result;
      }
    });
    order = candidates[best].order;
    orderMethod = candidates[best].method;
    joint!.order = orderMethod;
    if (!thorough && (best === 0 || !options.baselines)) placed = bestResult;
  }
  placed ??= place(order, thorough ? placeSeconds() : fastSeconds, thorough ? 1 : 0, options.baselines === true);
  const {
    storageOffset: offsets, storageBirth: births, storageDeath: deaths, storageBytes: bytes, storageRoot: roots,
    storageProducer: producers, storageLastOp: lastOps, workspaceOffset: workspaceOffsets, workspaceBytes, liveBytes,
    tensorStorage, peakStorages, stats, baselineHeights,
  } = placed;
  const orderNames = order === scheduledOrder ? scheduled.order : Array.from(order, (op) => doc.ops[op].name);
  const afterPlace = performance.now();

  const opName = (op: number): string | null => (op >= 0 ? doc.ops[op].name : null);
  const members: string[][] = Array.from(offsets, () => []);
  tensorStorage.forEach((s, t) => {
    if (t !== roots[s]) members[s].push(doc.tensors[t].name);
  });
  const storages: PlanStorage[] = [];
  offsets.forEach((offset, s) => {
    if (offset < 0) return;
    storages.push({
      tensors: [doc.tensors[roots[s]].name, ...members[s]],
      offset, bytes: bytes[s], birth: births[s], death: deaths[s],
      producer: opName(producers[s]), lastUse: opName(lastOps[s]),
    });
  });
  const workspaces: PlanWorkspace[] = [];
  order.forEach((op, step) => {
    if (workspaceOffsets[op] >= 0) workspaces.push({ op: doc.ops[op].name, step, offset: workspaceOffsets[op], bytes: workspaceBytes[op] });
  });
  const [arenaBytes, lowerBound, placeProved, peakStep, corePersistentBytes, , , placeMethod] = stats;
  const externalIOBytes = externalIO(doc, offsets, bytes, tensorStorage);
  const persistentBytes = corePersistentBytes - externalIOBytes;
  const scheduleBaselines: Record<string, number> = {};
  const placementBaselines: Record<string, number> = {};
  if (options.baselines) {
    for (const [name, figure] of Object.entries(scheduled.baselines)) scheduleBaselines[name] = figure!.peakBytes;
    PLACEMENT_BASELINES.forEach((name, i) => {
      placementBaselines[name] = baselineHeights[i];
    });
  }
  const plan: PlanDocument = {
    format: 'tensorplan.plan',
    version: 1,
    tool: { name: 'tensorplan', version: VERSION, backend },
    graph: options.graphPath !== undefined ? { path: options.graphPath } : doc,
    schedule: orderNames,
    arenaBytes,
    storages,
    workspaces,
    statistics: {
      peakBytes: lowerBound,
      peakStep,
      peakOp: peakStep >= 0 ? orderNames[peakStep] : null,
      lowerBoundBytes: lowerBound,
      arenaBytes,
      arenaOverLowerBound: lowerBound > 0 ? arenaBytes / lowerBound : 1,
      persistentBytes,
      ...(externalIOBytes > 0 ? { externalIOBytes } : {}),
      liveBytes: Array.from(liveBytes),
      peakContributors: Array.from(peakStorages, (s) => ({
        storage: doc.tensors[roots[s]].name, bytes: bytes[s], producer: opName(producers[s]), lastUse: opName(lastOps[s]),
      })),
      // Another order than the schedule method's is kept only for a smaller arena; its peak may be higher.
      schedule: { method: orderMethod, provedOptimal: scheduled.provedOptimal && lowerBound === (joint?.peakOrder.peakBytes ?? lowerBound), baselines: scheduleBaselines },
      placement: { method: placeMethodName(placeMethod), provedOptimal: placeProved === 1, baselines: placementBaselines },
      ...(joint ? { joint: { ...joint, chosen: { peakBytes: lowerBound, arenaBytes } } } : {}),
      timeMs: { schedule: 0, place: 0, validate: 0, total: 0 },
    },
  };
  if (options.budgetBytes !== undefined) {
    const total = arenaBytes + corePersistentBytes;
    plan.statistics.budget = { budgetBytes: options.budgetBytes, fits: total <= options.budgetBytes, overByBytes: Math.max(0, total - options.budgetBytes) };
  }

  // Every plan handed out has passed the same validator users run on any plan.
  progress('validate', 2);
  const diagnostics = validatePlanAgainst(core, plan, doc, encoded);
  if (diagnostics.length > 0) {
    throw new TensorplanError('INTERNAL', `the planner produced an invalid plan (a bug): ${diagnostics.slice(0, 3).map((d) => d.message).join('; ')}`);
  }
  const end = performance.now();
  plan.statistics.timeMs = {
    schedule: afterSchedule - start, place: afterPlace - afterSchedule, validate: end - afterPlace, total: end - start,
  };
  progress('done', 3);
  return plan;
}
