// Placement at scale (issue #14 item 7): the solver's time on a wide fan-out
// (one input read by n ops, every output alive to the end: all n buffers alive
// together) and on random lifetimes, at 10^3, 10^4 and 10^5 buffers, under a
// 1 s time limit. "overshoot" is time / limit: a limit that holds reads <= 1.1.
// The time ratio between sizes shows how the work grows (x10 per row is
// linear; x100 quadratic) where the limit does not cut it.
import { fmt, printTable, seededRandom } from './harness.mjs';

const LIMIT_S = 1;

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
          result.stats.timedOut ? 'yes' : 'no']);
      }
    }
  }
  printTable(`placement at scale, time limit ${LIMIT_S} s`,
    ['shape', 'n', 'backend', 'ms', 'overshoot (time / limit)', 'height / LB', 'timed out'], rows);
}
