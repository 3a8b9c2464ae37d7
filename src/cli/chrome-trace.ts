// `tensorplan plan ... --trace out.json`: the plan as a Chrome
// trace-event file, which Perfetto (ui.perfetto.dev) and Chromium DevTools' Performance panel open
// (chrome://tracing is gone from current Chromium; see docs/plans.md).
// Format: the Trace Event Format's JSON object form (`traceEvents`), with
// complete events (ph "X") for ops, counter events (ph "C") for live bytes and
// metadata events (ph "M") naming the process and thread.
import type { LayerGraph, PlanDocument } from '../index.js';
import { liveBytesByCategory } from '../plan/live-categories.js';

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
 * The plan as a trace: one slice per op in schedule order (1 ms per step), a
 * stacked "live bytes" counter by category with the op workspaces and the
 * persistent bytes (weights, optimizer state) as their own series, an "arena"
 * counter with the arena and the lower bound, and an instant event at the peak.
 */
export function chromeTrace(plan: PlanDocument, name: string, layers?: LayerGraph): ChromeTraceFile {
  const steps = plan.schedule.length;
  // The categories (src/plan/live-categories.ts) are the HTML report's too.
  const categories = liveBytesByCategory(plan, layers);
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
