// Placement on the instances of ../shared/bench/dsa (PLANNING.md §4): height
// over the lower bound for the greedy and XLA baselines and for tensorplan's
// solver, measured in the same run, with the solver's time on each backend.
// MiniMalloc's own times on this machine kind are in that folder's README.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseMinimallocCsv } from '../dist/index.mjs';
import { fmt, printTable } from './harness.mjs';

const DSA = fileURLToPath(new URL('../../shared/bench/dsa/', import.meta.url));

/** How each instance is solved: the challenging files at their capacity, C/D/J also minimised. */
function optionsFor(folder, file) {
  const capacity = Number(/\.(\d+)\.csv$/.exec(file)?.[1]);
  if (folder === 'minimalloc-challenging') {
    return /^[CDJ]\./.test(file) ? { minimize: true, timeLimitSeconds: 10 } : { capacity, timeLimitSeconds: 10 };
  }
  if (folder === 'omnimalloc-small' || folder === 'minimalloc-examples') return { minimize: true, timeLimitSeconds: 10 };
  return { timeLimitSeconds: 10 };
}

export async function run({ sessions }) {
  if (!existsSync(DSA)) {
    console.log(`\nplacement: ${DSA} not found (it sits beside the repository in this project's workspace); skipped`);
    return;
  }
  const rows = [];
  const totals = { native: 0, wasm: 0 };
  for (const folder of readdirSync(DSA).filter((f) => !f.includes('.')).sort()) {
    for (const file of readdirSync(DSA + folder).filter((f) => f.endsWith('.csv')).sort()) {
      const { buffers } = parseMinimallocCsv(readFileSync(`${DSA}${folder}/${file}`, 'utf8'), file);
      const options = optionsFor(folder, file);
      const any = sessions.native ?? sessions.wasm;
      const greedy = any.place(buffers, { algorithm: 'greedy-size' });
      const xla = any.place(buffers, { algorithm: 'xla-best' });
      const ours = {};
      const ms = {};
      for (const [backend, tp] of Object.entries(sessions)) {
        const t0 = performance.now();
        ours[backend] = tp.place(buffers, options);
        ms[backend] = performance.now() - t0;
        totals[backend] += ms[backend];
      }
      const result = ours.native ?? ours.wasm;
      const lb = result.lowerBound;
      rows.push([
        `${folder}/${file}`, buffers.length, lb, fmt(greedy.height / lb, 4), fmt(xla.height / lb, 4), fmt(result.height / lb, 4),
        result.provedOptimal ? 'optimal' : result.provedInfeasible ? 'infeasible' : `not proved (bound ${fmt(result.provedLowerBound / lb, 4)} x LB)`,
        ms.native !== undefined ? fmt(ms.native, 1) : 'n/a', ms.wasm !== undefined ? fmt(ms.wasm, 1) : 'n/a',
        ours.native && ours.wasm
          ? ours.native.height === ours.wasm.height ? 'same' : `wasm ${fmt(ours.wasm.height / lb, 4)}`
          : 'n/a',
      ]);
    }
  }
  printTable(
    'placement on shared/bench/dsa: height / LB (baselines and ours measured in the same run), solver time per backend',
    ['instance', 'n', 'LB', 'greedy/LB', 'xla-best/LB', 'ours/LB', 'proved', 'native ms', 'wasm ms', 'wasm = native?'],
    rows,
    [
      `total solver time: native ${fmt(totals.native, 0)} ms, wasm ${fmt(totals.wasm, 0)} ms (MiniMalloc: ~48 s for the eleven challenging files alone)`,
      'where the backends end at different heights, the last column gives the WASM height / LB: a search cut by its time limit gets further on the faster backend',
    ],
  );
}
