// Checking an executor's allocation trace against the plan's lifetimes.
import {
  LIFECYCLE_ISSUE_NAMES, TRACE_EVENT_CODE, callVerifyTrace,
} from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { TensorplanError, shown } from '../errors.js';
import type { GraphDocument } from '../graph/graph-document.js';
import { encodeGraph } from '../graph/encode-graph.js';
import { encodeOrder } from './schedule.js';

/**
 * One allocation or free an executor recorded.
 *
 * @group Planning
 */
export interface TraceEvent {
  step: number;
  /** Any tensor of the storage concerned. */
  tensor: string;
  event: 'alloc' | 'free';
}

/**
 * A difference between a trace and the plan.
 *
 * @group Planning
 */
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
  Array.from(trace).forEach((e, k) => {
    const tensor = encoded.tensorIndex.get(e?.tensor);
    if (tensor === undefined) fail(`trace[${k}].tensor = ${shown(e?.tensor)}: unknown tensor`);
    if (e.event !== 'alloc' && e.event !== 'free') fail(`trace[${k}].event = ${shown(e.event)}: expected "alloc" or "free"`);
    if (!Number.isInteger(e.step)) fail(`trace[${k}].step = ${shown(e.step)}: must be an integer step`);
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
