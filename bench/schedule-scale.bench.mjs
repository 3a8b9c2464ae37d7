// Scheduling at scale: tp.schedule with method 'ours' under
// a 1 s time limit on a wide fan-out (one input read by n ops, every output
// alive to the end) and on a random DAG (each op reads 1-3 tensors written
// by the 64 ops before it), at 10^3, 10^4 and 10^5 ops. "overshoot" is
// time / limit around the public call (reading the graph included): a limit
// that holds reads <= 1.10. Reading and checking a 10^5-op graph is a fixed
// cost of the call ("fixed ms": the same call with the limit at 1 ms, which
// leaves only `given`); where it exceeds the limit, no limit can be met.
//
// The second table is tp.plan with effort 'thorough' on the same 10^5-op
// graphs under 3 s and 6 s limits: reading, the order, placement and
// validation all share the limit.
import { fanOutGraph, fmt, printTable, seededRandom } from './harness.mjs';

const LIMIT_S = 1;
const PLAN_LIMITS_S = [3, 6];


export function randomDag(n) {
  const random = seededRandom(7);
  const tensors = [{ name: 'x', bytes: 1024 }];
  const ops = [];
  const read = new Uint8Array(n + 1);
  for (let i = 0; i < n; i++) {
    const inputs = new Set();
    const k = 1 + Math.floor(random() * 3);
    for (let j = 0; j < k; j++) {
      const t = i - Math.floor(random() * Math.min(i + 1, 64));  // tensor t: x or the output of op t - 1
      inputs.add(t === 0 ? 'x' : `t${t - 1}`);
      read[t] = 1;
    }
    tensors.push({ name: `t${i}`, bytes: 64 + Math.floor(random() * 8192) });
    ops.push({ name: `o${i}`, op: 'f', inputs: [...inputs], outputs: [`t${i}`] });
  }
  const outputs = tensors.filter((_, t) => t > 0 && !read[t]).map((t) => t.name);
  return { format: 'tensorplan.graph', version: 1, name: 'dag', tensors, ops, inputs: ['x'], outputs };
}

const SHAPES = [['fan-out', fanOutGraph], ['random DAG', randomDag]];

function timed(fn) {
  const t0 = performance.now();
  const result = fn();
  return { result, ms: performance.now() - t0 };
}

export async function run({ sessions }) {
  const rows = [];
  for (const [shape, make] of SHAPES) {
    for (const n of [1000, 10000, 100000]) {
      const graph = make(n);
      for (const [backend, tp] of Object.entries(sessions)) {
        const fixed = timed(() => tp.schedule(graph, { timeLimitSeconds: 1e-3 }));
        const { result, ms } = timed(() => tp.schedule(graph, { timeLimitSeconds: LIMIT_S }));
        rows.push([shape, n, backend, fmt(ms, 0), fmt(ms / 1000 / LIMIT_S, 2), fmt(fixed.ms, 0), fmt(result.searchSeconds * 1000, 0),
          Object.keys(result.baselines).length, result.startedFrom ?? '-', fmt(result.peakBytes / fixed.result.peakBytes, 4)]);
      }
    }
  }
  printTable(`schedule 'ours' at scale, time limit ${LIMIT_S} s`,
    ['shape', 'ops', 'backend', 'ms', 'overshoot (time / limit)', 'fixed ms (1 ms limit)', 'search ms', 'baselines run', 'started from', 'peak / peak at 1 ms'], rows);

  const planRows = [];
  const n = 100000;
  for (const [shape, make] of SHAPES) {
    const graph = make(n);
    for (const limit of PLAN_LIMITS_S) {
      for (const [backend, tp] of Object.entries(sessions)) {
        const { result: plan, ms } = timed(() => tp.plan(graph, { effort: 'thorough', timeLimitSeconds: limit }));
        const { schedule, place, validate } = plan.statistics.timeMs;
        planRows.push([shape, n, limit, backend, fmt(ms, 0), fmt(ms / 1000 / limit, 2),
          `${fmt(schedule, 0)} / ${fmt(place, 0)} / ${fmt(validate, 0)}`, fmt(plan.statistics.arenaOverLowerBound, 4)]);
      }
    }
  }
  printTable('plan, effort thorough',
    ['graph', 'ops', 'limit s', 'backend', 'ms', 'overshoot (time / limit)', 'ms schedule / place / validate', 'arena / LB'], planRows);
}
