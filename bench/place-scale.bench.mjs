// Placement at scale: the solver's time on a wide fan-out
// (one input read by n ops, every output alive to the end: all n buffers alive
// together) and on random lifetimes, at 10^3, 10^4 and 10^5 buffers, under a
// 1 s time limit. "overshoot" is time / limit, measured around the public
// call (marshalling included): a limit that holds reads <= 1.05. The time
// ratio between sizes shows how the work grows (x10 per row is linear; x100
// quadratic) where the limit does not cut it.
//
// The second table is the same promise for tp.plan with effort 'thorough':
// a fan-out graph of 10^5 ops (one input read by every op), whose plan
// with a fast effort takes about two seconds here, under a limit a few times
// that, so schedule, placement and validation all have to share it.
import { fanOutGraph, fmt, printTable, seededRandom } from './harness.mjs';

const LIMIT_S = 1;
const PLAN_LIMIT_S = 6;

function fanOut(n) {
  return Array.from({ length: n }, (_, i) => ({ lower: i + 1, upper: n + 2, size: 64 }));
}

function randomLifetimes(n) {
  const random = seededRandom(14);
  return Array.from({ length: n }, () => {
    const lower = Math.floor(random() * n);
    return { lower, upper: lower + 1 + Math.floor(random() * 1000), size: 1 + Math.floor(random() * 4096) };
  });
}


export async function run({ sessions }) {
  const rows = [];
  for (const [shape, make] of [['fan-out', fanOut], ['random', randomLifetimes]]) {
    for (const n of [1000, 10000, 100000]) {
      const buffers = make(n);
      for (const [backend, tp] of Object.entries(sessions)) {
        const t0 = performance.now();
        const result = tp.place(buffers, { timeLimitSeconds: LIMIT_S });
        const ms = performance.now() - t0;
        rows.push([shape, n, backend, fmt(ms, 0), fmt(ms / 1000 / LIMIT_S, 2), fmt(result.height / result.lowerBound, 4),
          result.method, result.stats.timedOut ? 'yes' : 'no']);
      }
    }
  }
  printTable(`placement at scale, time limit ${LIMIT_S} s`,
    ['shape', 'n', 'backend', 'ms', 'overshoot (time / limit)', 'height / LB', 'method', 'timed out'], rows);

  // Without a time limit the solver is bounded by work: the noisy dives
  // share max(2^25, 16 n log2 n) selection steps (before that bound, random
  // lifetimes at 10^4 buffers took 9.4 s natively and 10^5 over 120 s).
  const unlimitedRows = [];
  for (const n of [10000]) {
    const buffers = randomLifetimes(n);
    for (const [backend, tp] of Object.entries(sessions)) {
      const t0 = performance.now();
      const result = tp.place(buffers, { timeLimitSeconds: 0 });
      const ms = performance.now() - t0;
      unlimitedRows.push(['random', n, backend, fmt(ms, 0), fmt(result.height / result.lowerBound, 4), result.method]);
    }
  }
  printTable('placement without a time limit', ['shape', 'n', 'backend', 'ms', 'height / LB', 'method'], unlimitedRows);

  const planRows = [];
  const n = 100000;
  const graph = fanOutGraph(n);
  for (const [backend, tp] of Object.entries(sessions)) {
    const t0 = performance.now();
    const plan = tp.plan(graph, { effort: 'thorough', timeLimitSeconds: PLAN_LIMIT_S });
    const ms = performance.now() - t0;
    const { schedule, place, validate } = plan.statistics.timeMs;
    planRows.push(['fan-out graph', n, backend, fmt(ms, 0), fmt(ms / 1000 / PLAN_LIMIT_S, 2),
      `${fmt(schedule, 0)} / ${fmt(place, 0)} / ${fmt(validate, 0)}`, fmt(plan.statistics.arenaOverLowerBound, 4)]);
  }
  printTable(`plan, effort thorough, time limit ${PLAN_LIMIT_S} s`,
    ['graph', 'ops', 'backend', 'ms', 'overshoot (time / limit)', 'ms schedule / place / validate', 'arena / LB'], planRows);
}
