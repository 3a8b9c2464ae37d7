// Hard placement instances: random perfect packings, whose
// optimum is the lower bound by construction, and the hardest files of the
// shared DSA set, with the greedy baselines measured in the same run.
//
// The perfect packings are bench/data/perfect-packings/pp-<n>-s<seed>.<LB>.csv,
// written by core-cpp/tools/perfect_packings.cpp (the generator is
// core-cpp/src/placement/perfect_packing.cpp: non-guillotine partitions of a
// time x space rectangle, see its header); they are committed so that this
// benchmark needs no C++ build. tensorplan minimises each one for 10 s.
// MiniMalloc's challenging C, D and J (google/minimalloc, Apache-2.0:
// ../shared/bench/dsa/LICENSE.minimalloc-Apache-2.0) are minimised for 10 s
// too, and idealloc's S_1 (cappadokes/idealloc, MIT:
// ../shared/bench/dsa/LICENSE.idealloc-MIT) is placed with a 5 s limit.
// Ours runs on one backend (native when it loads): the WASM/native ratio is
// measured by place.bench.mjs; this table is about quality within the limit.
// `nodes` counts branch-and-bound nodes: on a shared machine it says more
// about the work done than the milliseconds.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseMinimallocCsv } from '../dist/index.mjs';
import { fmt, printTable } from './harness.mjs';

const PACKINGS = fileURLToPath(new URL('./data/perfect-packings/', import.meta.url));
const DSA = fileURLToPath(new URL('../../shared/bench/dsa/', import.meta.url));

function instances() {
  const list = [];
  const bySize = (f) => [Number(/^pp-(\d+)-s(\d+)/.exec(f)[1]), Number(/^pp-(\d+)-s(\d+)/.exec(f)[2])];
  const packings = readdirSync(PACKINGS).filter((f) => f.endsWith('.csv'));
  packings.sort((a, b) => bySize(a)[0] - bySize(b)[0] || bySize(a)[1] - bySize(b)[1]);
  for (const file of packings) {
    list.push({ name: file.replace(/\.\d+\.csv$/, ''), path: PACKINGS + file, options: { minimize: true, timeLimitSeconds: 10 }, perfect: true });
  }
  const extra = [
    ['minimalloc-challenging/C.1048576.csv', { minimize: true, timeLimitSeconds: 10 }],
    ['minimalloc-challenging/D.1048576.csv', { minimize: true, timeLimitSeconds: 10 }],
    ['minimalloc-challenging/J.1048576.csv', { minimize: true, timeLimitSeconds: 10 }],
    ['idealloc-iopddl/S_1.csv', { timeLimitSeconds: 5 }],
  ];
  const missing = [];
  for (const [file, options] of extra) {
    if (existsSync(DSA + file)) list.push({ name: file, path: DSA + file, options, perfect: false });
    else missing.push(file);
  }
  return { list, missing };
}

export async function run({ sessions }) {
  const backend = sessions.native ? 'native' : 'wasm';
  const tp = sessions[backend];
  const rows = [];
  let within = 0;
  let perfect = 0;
  let optimal = 0;
  let optimalSmall = 0;
  let small = 0;
  const { list, missing } = instances();
  for (const instance of list) {
    const file = instance.path.split('/').pop();
    const { buffers } = parseMinimallocCsv(readFileSync(instance.path, 'utf8'), file);
    const greedy = tp.place(buffers, { algorithm: 'greedy-size' });
    const firstFit = tp.place(buffers, { algorithm: 'first-fit' });
    const xla = tp.place(buffers, { algorithm: 'xla-best' });
    const t0 = performance.now();
    const ours = tp.place(buffers, instance.options);
    const ms = performance.now() - t0;
    const lb = ours.lowerBound;
    const ratio = ours.height / lb;
    if (instance.perfect) {
      perfect += 1;
      if (ratio <= 1.02) within += 1;
      if (ours.height === lb) optimal += 1;
      if (buffers.length < 100) {
        small += 1;
        if (ours.height === lb) optimalSmall += 1;
      }
    }
    rows.push([
      instance.name, buffers.length, lb, fmt(greedy.height / lb, 4), fmt(firstFit.height / lb, 4), fmt(xla.height / lb, 4),
      fmt(ratio, 4), ours.provedOptimal ? 'optimal' : `>= ${fmt(ours.provedLowerBound / lb, 4)}`, ours.stats.nodes, fmt(ms, 0),
    ]);
  }
  printTable(
    `hard placement instances on ${backend}: height / LB (perfect packings: LB is the optimum); ours minimises for 10 s (S_1: 5 s, no minimize)`,
    ['instance', 'n', 'LB', 'greedy-size', 'first-fit', 'xla-best', 'ours', 'proved', 'nodes', 'ms'],
    rows,
    [
      `perfect packings within 1.02 of the optimum: ${within}/${perfect}; at the optimum: ${optimal}/${perfect} (under 100 buffers: ${optimalSmall}/${small})`,
      ...(missing.length > 0 ? [`not found under ${DSA} (it sits beside the repository in this project's workspace): ${missing.join(', ')}`] : []),
    ],
  );
}
