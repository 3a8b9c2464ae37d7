// `tensorplan plan ... --trace out.json` (#19 item 3): the plan as a Chrome
// trace-event file, which Perfetto (ui.perfetto.dev) and Chromium DevTools' Performance panel open
// (chrome://tracing is gone from current Chromium; see docs/plans.md).
// Format: the Trace Event Format's JSON object form (`traceEvents`), with
// complete events (ph "X") for ops, counter events (ph "C") for live bytes and
// metadata events (ph "M") naming the process and thread.
import type { LayerGraph, PlanDocument, PlanStorage } from '../index.js';

/** One step of the schedule lasts this long on the trace's time axis (µs): steps, not measured time. */
const STEP_US = 1000;

/** One event of the Trace Event Format. */
interface TraceEvent {
  name: string;
  ph: 'X' | 'C' | 'M' | 'i';
  ts?: number;
  dur?: number;
  pid: number;
  tid?: number;
  cat?: string;
  s?: 'g' | 'p' | 't';
  args?: Record<string, unknown>;
}

/** The trace file: events plus what the time axis means. */
export interface ChromeTraceFile {
  traceEvents: TraceEvent[];
  displayTimeUnit: 'ms';
  otherData: Record<string, unknown>;
}

/**
 * The category a storage's bytes count under in the "live bytes" counter. For a
 * layer spec: saved for backward, gradients, or transients (by the role and the
 * saved flag tp.layerGraph gives the storage's first tensor); for any other
 * graph: graph inputs or activations.
 */
function categoryOf(storage: PlanStorage, layers: LayerGraph | undefined): string {
  if (!layers) return storage.producer === null ? 'graph inputs' : 'activations';
  const info = layers.tensors[storage.tensors[0]];
  if (!info) return 'transients';
  if (info.saved) return 'saved for backward';
  if (info.role === 'gradient' || info.role === 'quantizedGradient' || info.role === 'weightGradient') return 'gradients';
  if (info.role === 'input') return 'graph inputs';
  return 'transients';
}

/**
 * The plan as a trace: one slice per op in schedule order (1 ms per step), a
 * stacked "live bytes" counter by category with the op workspaces and the
 * persistent bytes (weights, optimizer state) as their own series, an "arena"
 * counter with the arena and the lower bound, and an instant event at the peak.
 */
export function chromeTrace(plan: PlanDocument, name: string, layers?: LayerGraph): ChromeTraceFile {
  const steps = plan.schedule.length;
  const categories = new Map<string, Float64Array>();
  const series = (category: string): Float64Array => {
    let s = categories.get(category);
    if (!s) categories.set(category, (s = new Float64Array(steps)));
    return s;
  };
  for (const storage of plan.storages) {
    const s = series(categoryOf(storage, layers));
    // Graph outputs die at the step count: they are alive to the end.
    for (let k = Math.max(0, storage.birth); k <= Math.min(steps - 1, storage.death); k++) s[k] += storage.bytes;
  }
  const workspace = series('op workspaces');
  for (const w of plan.workspaces) if (w.step >= 0 && w.step < steps) workspace[w.step] += w.bytes;
  const workspaceAt = new Map(plan.workspaces.map((w) => [w.op, w.bytes]));

  const events: TraceEvent[] = [
    { name: 'process_name', ph: 'M', pid: 1, args: { name: `tensorplan: ${name}` } },
    { name: 'thread_name', ph: 'M', pid: 1, tid: 1, args: { name: 'schedule (1 ms per step)' } },
  ];
  const order = [...categories.keys()].sort();
  plan.schedule.forEach((op, k) => {
    const ts = k * STEP_US;
    events.push({ name: op, ph: 'X', ts, dur: STEP_US, pid: 1, tid: 1, cat: 'op',
      args: { step: k, liveBytes: plan.statistics.liveBytes[k], workspaceBytes: workspaceAt.get(op) ?? 0 } });
    const args: Record<string, number> = { persistent: plan.statistics.persistentBytes };
    for (const category of order) args[category] = categories.get(category)![k];
    events.push({ name: 'live bytes', ph: 'C', ts, pid: 1, args });
    events.push({ name: 'arena', ph: 'C', ts, pid: 1, args: { arena: plan.arenaBytes, 'lower bound': plan.statistics.lowerBoundBytes } });
  });
  if (steps > 0) {
    events.push({ name: `peak ${plan.statistics.peakBytes} B`, ph: 'i', s: 'g', ts: plan.statistics.peakStep * STEP_US, pid: 1, tid: 1,
      args: { op: plan.statistics.peakOp, peakBytes: plan.statistics.peakBytes } });
  }
  return {
    traceEvents: events,
    displayTimeUnit: 'ms',
    otherData: {
      tool: `tensorplan ${plan.tool.version}`,
      timeAxis: 'schedule steps, 1 ms each (not measured time)',
      peakBytes: plan.statistics.peakBytes,
      arenaBytes: plan.arenaBytes,
      persistentBytes: plan.statistics.persistentBytes,
    },
  };
}
