import {
  LIFECYCLE_ISSUE_NAMES, SCHEDULE_METHOD_CODE, SCHEDULE_METHOD_NAMES, STORAGE_FLAG_CODE, TRACE_EVENT_CODE,
  callFusionCheck, callGraphLiveness, callGraphSchedule, callVerifyTrace,
} from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { TensorplanError } from '../errors.js';
import type { GraphDocument } from '../graph/graph-document.js';
import { type EncodedGraph, encodeGraph } from '../graph/encode-graph.js';

/**
 * How to order the ops (PLANNING.md §3). The baselines are the published
 * heuristics of PyTorch Inductor and XLA; `'ours'` starts from the best of
 * them, proves the optimum by exact search on small graphs and improves
 * large ones by local search within the time limit. It is never worse than
 * any baseline.
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

/** The seven single baselines, in the core's code order (0..6). */
export type BaselineMethod = 'given' | 'inductor-lpmf' | 'inductor-bfs' | 'inductor-dfs' | 'xla-list' | 'xla-dfs' | 'xla-post-order';

/** Every method, in the core's code order: the index is the ABI code (c_api.h TP_SCHEDULE_METHOD_LIST). */
export const SCHEDULE_METHODS: readonly ScheduleMethod[] = SCHEDULE_METHOD_NAMES;

/** Options of {@link Tensorplan.schedule} (and of the scheduling inside {@link Tensorplan.checkFusion}). */
export interface ScheduleOptions {
  /** Default `'ours'`. */
  method?: ScheduleMethod;
  /** Seconds `'ours'` may search after the baselines; 0 = baselines only. Default 1. */
  timeLimitSeconds?: number;
  /**
   * Bound `'ours'` by this many units of search work instead of by time: the
   * order is then the same on every machine and backend (`timeLimitSeconds`
   * is ignored). About 10^5 units take 0.05-0.2 s natively.
   */
  workLimit?: number;
}

/** Peak and run time of one baseline. */
export interface BaselineFigure {
  peakBytes: number;
  seconds: number;
}

/** An op order and what it costs. */
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
  /** For `'ours'`: the baseline it started from. */
  startedFrom: BaselineMethod | null;
  /** For `'ours'`: seconds spent after the baselines. */
  searchSeconds: number;
  /** The baselines that ran, by name. */
  baselines: Partial<Record<BaselineMethod, BaselineFigure>>;
}

/** One storage: a tensor with everything that aliases it (views, in-place outputs), or a group. */
export interface StorageLifetime {
  /** The tensor that owns the bytes (a group: its first member). */
  owner: string;
  /** Every tensor in this storage. */
  tensors: string[];
  /** Rounded up to the alignment: what every figure counts. */
  bytes: number;
  /** Step of birth; -1 when never alive. */
  birth: number;
  /** Last step alive; equals the step count for graph outputs (they never die). */
  death: number;
  graphInput: boolean;
  graphOutput: boolean;
  persistent: boolean;
  group: boolean;
}

/** A storage alive at the peak step, for attribution. */
export interface PeakContributor {
  owner: string;
  bytes: number;
  /** The op that made it; null for a graph input. */
  producer: string | null;
  /** The last op that reads or writes it; null if none. */
  lastUse: string | null;
}

/** Liveness under an order (PLANNING.md §2). */
export interface LivenessResult {
  order: string[];
  /** Live bytes at each step: storages alive during the step plus the op's workspace. */
  liveBytes: number[];
  peakBytes: number;
  /** First step at the peak; -1 for an empty graph. */
  peakStep: number;
  peakOp: string | null;
  /** Workspace of the op at the peak step (part of `peakBytes`). */
  peakWorkspaceBytes: number;
  /** Storages alive at the peak, largest first. */
  peakContributors: PeakContributor[];
  /** Persistent storages: outside the arena, reported apart. */
  persistentBytes: number;
  storages: StorageLifetime[];
  /** Storage index and byte offset of each tensor, in `graph.tensors` order. */
  tensorStorage: number[];
  tensorOffset: number[];
}

/** Limits of `Tensorplan.checkFusion`. */
export interface FusionOptions extends ScheduleOptions {
  /** Bytes the fused op may read at once; 0 or absent = no limit. */
  maxReadBytes?: number;
}

/** Whether running a set of ops as one fused op is acceptable. */
export interface FusionVerdict {
  accepted: boolean;
  /** A dependency path leaves the set and re-enters it: the ops cannot run as one. */
  createsCycle: boolean;
  raisesPeak: boolean;
  readsTooLarge: boolean;
  peakBeforeBytes: number;
  peakAfterBytes: number;
  /** Bytes the fused op reads at once. */
  readBytes: number;
  /** Aligned bytes of the fused op's inputs, outputs and workspace, all alive at once. */
  fusedStepBytes: number;
}

/** One allocation or free an executor recorded. */
export interface TraceEvent {
  step: number;
  /** Any tensor of the storage concerned. */
  tensor: string;
  event: 'alloc' | 'free';
}

/** A difference between a trace and the plan. */
export interface LifecycleIssue {
  kind: 'missing-birth' | 'unexpected-birth' | 'missing-death' | 'unexpected-death';
  /** The storage's owning tensor. */
  tensor: string;
  storage: number;
  /** Expected step (missing) or traced step (unexpected). */
  step: number;
  message: string;
}

const ISSUE_KINDS: readonly LifecycleIssue['kind'][] = LIFECYCLE_ISSUE_NAMES;

function fail(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

/** Tensor bytes: given, or computed by the core from shape and dtype. */
function methodCode(method: ScheduleMethod | undefined): number {
  const name = method ?? 'ours';
  const code = Object.hasOwn(SCHEDULE_METHOD_CODE, name) ? SCHEDULE_METHOD_CODE[name] : -1;
  if (code < 0) fail(`method = ${JSON.stringify(method)}: expected one of ${SCHEDULE_METHODS.join(', ')}`);
  return code;
}

function timeLimit(options: ScheduleOptions): number {
  const limit = options.timeLimitSeconds ?? 1;
  if (typeof limit !== 'number') fail(`timeLimitSeconds = ${String(limit)}: must be a number of seconds`);
  return limit;
}

function encodeOrder(graph: EncodedGraph, order: readonly string[] | undefined): Int32Array {
  if (order === undefined) return Int32Array.from(graph.doc.ops.map((_, i) => i));
  if (!Array.isArray(order)) fail('order must be an array of op names');
  return Int32Array.from(order.map((name, i) => {
    const index = graph.opIndex.get(name);
    if (index === undefined) fail(`order[${i}] = ${JSON.stringify(name)}: unknown op`);
    return index;
  }));
}

const opName = (graph: EncodedGraph, index: number): string | null => (index >= 0 ? graph.doc.ops[index].name : null);

/** Chooses an op order with `options.method` (default `'ours'`). */
export function schedule(core: CoreBinding, graph: GraphDocument, options: ScheduleOptions = {}): ScheduleResult {
  return scheduleEncoded(core, encodeGraph(core, graph), options);
}

/** {@link schedule} for a graph that is already encoded (plan() encodes once for every phase). */
export function scheduleEncoded(core: CoreBinding, encoded: EncodedGraph, options: ScheduleOptions = {}): ScheduleResult {
  const method = options.method ?? 'ours';
  const workLimit = options.workLimit ?? 0;
  if (!(Number.isInteger(workLimit) && workLimit >= 0)) fail(`workLimit = ${String(workLimit)}: must be an integer >= 0`);
  const { order, stats, baselinePeaks: peaks, baselineSeconds: seconds } = callGraphSchedule(core, {
    ...encoded.graph, method: methodCode(method), timeLimitS: timeLimit(options), workLimit,
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
    startedFrom: method === 'ours' && stats[3] >= 0 ? (SCHEDULE_METHODS[stats[3]] as BaselineMethod) : null,
    searchSeconds: stats[4],
    baselines,
  };
}

/** Live bytes per step, the peak and what makes it, under `order` (default: the graph's op order). */
export function liveness(core: CoreBinding, graph: GraphDocument, order?: readonly string[]): LivenessResult {
  const encoded = encodeGraph(core, graph);
  const steps = encodeOrder(encoded, order);
  const {
    tensorStorage, tensorOffset, storageBytes: bytes, storageBirth: birth, storageDeath: death, storageFlags: flags, liveBytes: live,
    stats, peakStorages, peakBytes, peakProducers: producers, peakLastOps: lastOps, storageRoot: roots,
  } = callGraphLiveness(core, { ...encoded.graph, order: steps, orderCount: steps.length });
  const tensors = encoded.doc.tensors;
  const storages: StorageLifetime[] = Array.from(bytes, (b, s) => ({
    owner: tensors[roots[s]].name,
    tensors: [],
    bytes: b,
    birth: birth[s],
    death: death[s],
    graphInput: (flags[s] & STORAGE_FLAG_CODE.graphInput) !== 0,
    graphOutput: (flags[s] & STORAGE_FLAG_CODE.graphOutput) !== 0,
    persistent: (flags[s] & STORAGE_FLAG_CODE.persistent) !== 0,
    group: (flags[s] & STORAGE_FLAG_CODE.group) !== 0,
  }));
  tensorStorage.forEach((s, i) => storages[s].tensors.push(tensors[i].name));
  const orderNames = Array.from(steps, (i) => encoded.doc.ops[i].name);
  const peakStep = stats[1];
  return {
    order: orderNames,
    liveBytes: Array.from(live),
    peakBytes: stats[0],
    peakStep,
    peakOp: peakStep >= 0 ? orderNames[peakStep] : null,
    peakWorkspaceBytes: stats[2],
    peakContributors: Array.from(peakStorages, (s, k) => ({
      owner: storages[s].owner,
      bytes: peakBytes[k],
      producer: opName(encoded, producers[k]),
      lastUse: opName(encoded, lastOps[k]),
    })),
    persistentBytes: stats[3],
    storages,
    tensorStorage: Array.from(tensorStorage),
    tensorOffset: Array.from(tensorOffset),
  };
}

/**
 * Accepts or rejects running `ops` as one fused op: the peak may not rise
 * (a fused op keeps its inputs, outputs and workspace alive at once), and
 * the fused op may not read more than `maxReadBytes` at once.
 */
export function checkFusion(core: CoreBinding, graph: GraphDocument, ops: readonly string[], options: FusionOptions = {}): FusionVerdict {
  const encoded = encodeGraph(core, graph);
  if (!Array.isArray(ops)) fail('ops must be an array of op names');
  const fused = Int32Array.from(ops.map((name, i) => {
    const index = encoded.opIndex.get(name);
    if (index === undefined) fail(`ops[${i}] = ${JSON.stringify(name)}: unknown op`);
    return index;
  }));
  const { verdict, figures } = callFusionCheck(core, {
    ...encoded.graph, fusedOps: fused, fusedCount: fused.length, maxReadBytes: options.maxReadBytes ?? 0,
    method: methodCode(options.method), timeLimitS: timeLimit(options),
  });
  return {
    accepted: verdict[0] === 1,
    createsCycle: verdict[1] === 1,
    raisesPeak: verdict[2] === 1,
    readsTooLarge: verdict[3] === 1,
    peakBeforeBytes: figures[0],
    peakAfterBytes: figures[1],
    readBytes: figures[2],
    fusedStepBytes: figures[3],
  };
}

/**
 * Compares an executor's trace (allocations and frees per step) with the
 * births and deaths the plan expects under `order` (PLANNING.md §6 verify).
 * An empty list means the execution matched the plan.
 */
export function verifyTrace(core: CoreBinding, graph: GraphDocument, order: readonly string[] | undefined,
  trace: readonly TraceEvent[]): LifecycleIssue[] {
  const encoded = encodeGraph(core, graph);
  const steps = encodeOrder(encoded, order);
  if (!Array.isArray(trace)) fail('trace must be an array of {step, tensor, event}');
  const traceSteps = new Int32Array(trace.length);
  const traceTensors = new Int32Array(trace.length);
  const traceKinds = new Int32Array(trace.length);
  trace.forEach((e, k) => {
    const tensor = encoded.tensorIndex.get(e?.tensor);
    if (tensor === undefined) fail(`trace[${k}].tensor = ${JSON.stringify(e?.tensor)}: unknown tensor`);
    if (e.event !== 'alloc' && e.event !== 'free') fail(`trace[${k}].event = ${JSON.stringify(e.event)}: expected "alloc" or "free"`);
    if (!Number.isInteger(e.step)) fail(`trace[${k}].step = ${String(e.step)}: must be an integer step`);
    traceSteps[k] = e.step;
    traceTensors[k] = tensor;
    traceKinds[k] = TRACE_EVENT_CODE[e.event as TraceEvent['event']];
  });
  const { kinds, storages, tensors, steps: at, report } = callVerifyTrace(core, {
    ...encoded.graph, order: steps, orderCount: steps.length, traceSteps, traceTensors, traceKinds, traceCount: trace.length,
  });
  const lines = new TextDecoder().decode(report).split('\n');
  return Array.from(kinds, (kind, k) => ({
    kind: ISSUE_KINDS[kind],
    tensor: encoded.doc.tensors[tensors[k]].name,
    storage: storages[k],
    step: at[k],
    message: lines[k],
  }));
}
