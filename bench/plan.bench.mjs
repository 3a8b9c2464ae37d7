// plan() end to end on the example graphs and on generated layered graphs:
// time per phase on each backend, the arena against its lower bound, and our
// schedule and placement against the best baselines measured in the same run.
import { readFileSync } from 'node:fs';
import { parseGraph } from '../dist/index.mjs';
import { fmt, printTable, seededRandom } from './harness.mjs';

const EXAMPLES = ['transformer-block-training', 'moe-layer', 'cnn-inference'];

/** A random layered graph: each op reads 1-3 recent tensors; a fifth of them need a workspace. */
function layered(ops, seed) {
  const random = seededRandom(seed);
  const tensors = [{ name: 'in', bytes: 4096 }];
  const list = [];
  for (let i = 0; i < ops; i++) {
    const reads = new Set();
    for (let k = 0; k < 1 + Math.floor(random() * 3); k++) reads.add(tensors[Math.max(0, tensors.length - 1 - Math.floor(random() * 30))].name);
    tensors.push({ name: `t${i}`, bytes: 256 * (1 + Math.floor(random() * 1000)) });
    list.push({ name: `op${i}`, op: 'x', inputs: [...reads], outputs: [`t${i}`], workspaceBytes: random() < 0.2 ? 65536 : 0 });
  }
  return { format: 'tensorplan.graph', version: 1, name: `layered ${ops}`, tensors, ops: list, inputs: ['in'], outputs: [`t${ops - 1}`] };
}

export async function run({ sessions }) {
  const graphs = [
    ...EXAMPLES.map((name) => parseGraph(JSON.parse(readFileSync(new URL(`../examples/${name}.json`, import.meta.url), 'utf8')), name)),
    layered(1_000, 1),
    layered(10_000, 2),
  ];
  const rows = [];
  for (const graph of graphs) {
    const plans = {};
    for (const [backend, tp] of Object.entries(sessions)) plans[backend] = tp.plan(graph, { baselines: true });
    const plan = plans.native ?? plans.wasm;
    const s = plan.statistics;
    const bestSchedule = Math.min(...Object.values(s.schedule.baselines));
    const bestPlacement = Math.min(...Object.values(s.placement.baselines));
    const ms = (backend) => (plans[backend] ? fmt(plans[backend].statistics.timeMs.total, 1) : 'n/a');
    rows.push([
      (graph.name ?? '').slice(0, 34),
      graph.ops.length,
      fmt(s.peakBytes / 2 ** 20, 1),
      fmt(s.peakBytes / bestSchedule, 3),
      fmt(s.arenaOverLowerBound, 4),
      fmt(plan.arenaBytes / bestPlacement, 3),
      ms('native'),
      ms('wasm'),
      plans.native && plans.wasm ? fmt(plans.wasm.statistics.timeMs.total / plans.native.statistics.timeMs.total, 2) : 'n/a',
    ]);
  }
  printTable(
    'plan() (fast effort): schedule + place + validate, baselines measured in the same run',
    ['graph', 'ops', 'peak MiB', 'peak / best sched. baseline', 'arena / LB', 'arena / best placement baseline', 'native ms', 'wasm ms', 'wasm / native'],
    rows,
  );

  joint(sessions);
}

/**
 * Joint schedule and placement on random layered graphs: the default plan and
 * a joint plan ({ joint: true }) of the same graph, in the same run. Both
 * arenas are over the same lower bound, the default order's peak (the
 * smallest peak found): a joint order may peak higher, so its own arena/peak
 * would flatter it.
 */
function joint(sessions) {
  const [backend, tp] = Object.entries(sessions).find(([name]) => name === 'native') ?? Object.entries(sessions)[0];
  const rows = [];
  for (const [ops, seed] of [[300, 3], [1_000, 1], [1_000, 5], [2_000, 4], [10_000, 2]]) {
    const graph = layered(ops, seed);
    let t = performance.now();
    const plain = tp.plan(graph);
    const plainMs = performance.now() - t;
    t = performance.now();
    const both = tp.plan(graph, { joint: true });
    const jointMs = performance.now() - t;
    const lb = plain.statistics.peakBytes;
    const j = both.statistics.joint;
    rows.push([
      `layered ${ops} (seed ${seed})`, fmt(plain.arenaBytes / lb, 4), fmt(both.arenaBytes / lb, 4), fmt(both.arenaBytes / plain.arenaBytes, 4),
      fmt(j.chosen.peakBytes / lb, 4), `${j.order} of ${j.candidates}`, fmt(plainMs, 0), fmt(jointMs, 0), fmt(jointMs / plainMs, 2),
    ]);
  }
  printTable(
    `plan() joint schedule and placement (${backend}, fast effort): arenas over the smallest peak found (LB), default and joint in the same run`,
    ['graph', 'default arena / LB', 'joint arena / LB', 'joint / default arena', 'joint peak / LB', 'order kept', 'default ms', 'joint ms', 'joint / default time'],
    rows,
  );
}
