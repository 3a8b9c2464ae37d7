// Hard placement instances: random perfect packings, whose optimum is the
// lower bound by construction, and the hardest files of the shared DSA set,
// with the greedy baselines measured in the same run.
//
// The perfect packings are written by core-cpp/tools/perfect_packings.cpp
// (the generator is core-cpp/src/placement/perfect_packing.cpp: partitions of
// a time x space rectangle, see its header) and committed, so that this
// benchmark needs no C++ build:
// - bench/data/perfect-packings/<family>/pp-<n>-s<seed>.<LB>.csv: one folder
//   per family of shapes (perfect_packing_family(): time cuts against space
//   cuts, guillotine or not, pinwheels, density, size skew, alignment), with
//   10 packings per family that no setting of the solver was chosen on: the
//   seeds 9001 and 9002 at 80, 300 and 600 buffers, and 9003-9006 at 600,
//   where the families differ most, so that a family's count there is not
//   decided by two draws;
// - bench/data/perfect-packings/pp-<n>-s<seed>.<LB>.csv: the default shape
//   ("mixed") with seeds 1-3, the instances the solver was tuned on.
// tensorplan minimises each one for 10 s, twice: with one worker per processor
// the process may use (PlaceOptions.threads 0: a portfolio of searches that draw
// differently, every piece keeping the lowest placement) and with the search
// alone (threads 1), so the portfolio's effect is measured in the same run.
// MiniMalloc's challenging C, D and J
// (google/minimalloc, Apache-2.0: ../shared/bench/dsa/LICENSE.minimalloc-Apache-2.0)
// are minimised for 10 s too, and idealloc's S_1 (cappadokes/idealloc, MIT:
// ../shared/bench/dsa/LICENSE.idealloc-MIT) is placed with a 5 s limit.
// Ours runs on one backend (native when it loads): the WASM/native ratio is
// measured by place.bench.mjs; these tables are about quality within the limit.
// Where the optimum is not proved, the row says "not proved" with the proved
// bound: the optimum lies between that bound and the height found.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseMinimallocCsv } from '../dist/index.mjs';
import { fmt, printTable } from './harness.mjs';

const PACKINGS = fileURLToPath(new URL('./data/perfect-packings/', import.meta.url));
const DSA = fileURLToPath(new URL('../../shared/bench/dsa/', import.meta.url));
const MINIMIZE_10S = { minimize: true, timeLimitSeconds: 10, threads: 0 };

/** The packings of one folder, by size then seed. */
function packingsIn(folder) {
  const key = (f) => /^pp-(\d+)-s(\d+)/.exec(f).slice(1).map(Number);
  const files = readdirSync(folder).filter((f) => /^pp-\d+-s\d+\..*\.csv$/.test(f));
  files.sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1]);
  return files.map((file) => ({ name: file.replace(/\.\d+\.csv$/, ''), path: `${folder}/${file}`, options: MINIMIZE_10S, perfect: true }));
}

/** Groups of instances, each printed as one table: the families, the tuning seeds, the shared files. */
function groups() {
  const list = [];
  const families = readdirSync(PACKINGS).filter((f) => statSync(PACKINGS + f).isDirectory()).sort();
  for (const family of families) list.push({ title: `family "${family}" (held-out seeds)`, instances: packingsIn(PACKINGS + family) });
  list.push({ title: 'family "mixed", seeds 1-3 (the seeds the solver was tuned on)', instances: packingsIn(PACKINGS.replace(/\/$/, '')) });
  const extra = [
    ['minimalloc-challenging/C.1048576.csv', MINIMIZE_10S],
    ['minimalloc-challenging/D.1048576.csv', MINIMIZE_10S],
    ['minimalloc-challenging/J.1048576.csv', MINIMIZE_10S],
    ['idealloc-iopddl/S_1.csv', { timeLimitSeconds: 5 }],
  ];
  const shared = [];
  const missing = [];
  for (const [file, options] of extra) {
    if (existsSync(DSA + file)) shared.push({ name: file, path: DSA + file, options, perfect: false });
    else missing.push(file);
  }
  list.push({ title: 'shared DSA files (C, D, J minimised for 10 s; S_1 placed within 5 s)', instances: shared });
  return { list, missing };
}

/** "proved optimal", or the plain statement of what is known: bound, best, not proved. */
function provedText(result) {
  if (result.provedOptimal) return 'proved optimal';
  return `not proved (bound ${fmt(result.provedLowerBound / result.lowerBound, 4)} x LB)`;
}

export async function run({ sessions }) {
  const backend = sessions.native ? 'native' : 'wasm';
  const tp = sessions[backend];
  const { list, missing } = groups();
  const summary = [];
  let threads = 1;
  for (const group of list) {
    const rows = [];
    let optimal = 0;
    let within = 0;
    let small = 0;
    let optimalSmall = 0;
    let worst = 1;
    let slowest = 0;
    let optimalAlone = 0;
    let withinAlone = 0;
    let worstAlone = 1;
    for (const instance of group.instances) {
      const file = instance.path.split('/').pop();
      const { buffers } = parseMinimallocCsv(readFileSync(instance.path, 'utf8'), file);
      const greedy = tp.place(buffers, { algorithm: 'greedy-size' });
      const firstFit = tp.place(buffers, { algorithm: 'first-fit' });
      const xla = tp.place(buffers, { algorithm: 'xla-best' });
      const t0 = performance.now();
      const ours = tp.place(buffers, instance.options);
      const ms = performance.now() - t0;
      const alone = instance.options.minimize ? tp.place(buffers, { ...instance.options, threads: 1 }) : ours;
      threads = Math.max(threads, ours.stats.threads);
      const lb = ours.lowerBound;
      const ratio = ours.height / lb;
      const baseline = Math.min(greedy.height, firstFit.height, xla.height);
      if (ours.height === lb) optimal += 1;
      if (ratio <= 1.01) within += 1;
      if (alone.height === lb) optimalAlone += 1;
      if (alone.height / lb <= 1.01) withinAlone += 1;
      worstAlone = Math.max(worstAlone, alone.height / lb);
      if (buffers.length < 100) {
        small += 1;
        if (ours.height === lb) optimalSmall += 1;
      }
      worst = Math.max(worst, ratio);
      slowest = Math.max(slowest, ms);
      rows.push([
        instance.name, buffers.length, lb, fmt(baseline / lb, 4), fmt(ratio, 4), provedText(ours), ours.stats.nodes, fmt(ms, 0),
        fmt(alone.height / lb, 4),
      ]);
    }
    if (rows.length === 0) continue;
    const count = rows.length;
    const line = group.instances[0].perfect
      ? `at the optimum ${optimal}/${count} (under 100 buffers: ${optimalSmall}/${small}), within 1.01 ${within}/${count}, worst ${fmt(worst, 4)}, slowest ${fmt(slowest, 0)} ms; 1 thread: at the optimum ${optimalAlone}/${count}, within 1.01 ${withinAlone}/${count}, worst ${fmt(worstAlone, 4)}`
      : `${count} files`;
    summary.push([group.title, line]);
    printTable(
      `${group.title} on ${backend}: height / LB (perfect packings: LB is the optimum)`,
      ['instance', 'n', 'LB', 'best greedy', 'ours', 'proved', 'nodes', 'ms', 'ours, 1 thread'],
      rows,
      [line],
    );
  }
  printTable(`hard placement instances on ${backend}, ${threads} threads, per group`, ['group', 'result'], summary, [
    'best greedy: the lowest of greedy-size, first-fit and xla-best; ms: the whole call, ours stopping at its limit, its proof, or its stall rule (docs/placement.md)',
    `ours: ${threads} workers (threads 0, one per processor the process may use; docs/placement.md, "Threads"); ours, 1 thread: the search alone, run after it`,
    ...(missing.length > 0 ? [`not found under ${DSA} (it sits beside the repository in this project's workspace): ${missing.join(', ')}`] : []),
  ]);
}
