// Proofs of optimal schedules: for the real graphs (examples,
// layer specs, imported ONNX models) and seeded random ones, ours with a
// time limit against the best of Inductor's and XLA's baselines (same call):
// per graph its ops, our peak, the lower bound, proved or not, the gap (peak /
// bound - 1: how far above the optimum the peak may be), and the time the
// call used out of its limit (TP_BENCH_SCHEDULE_LIMIT seconds, default 2).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fmt, printTable } from './harness.mjs';
import { parseGraph } from '../dist/index.mjs';
import { randomGraph } from '../scripts/plan-fingerprints.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const LIMIT_S = Number(process.env.TP_BENCH_SCHEDULE_LIMIT ?? 2);
const MiB = 1 << 20;

function layered(opCount, seed) {
  let state = seed >>> 0;
  const random = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296);
  const bytes = () => (1 + Math.floor(random() * 4)) * 2 ** (10 + Math.floor(random() * 8));
  const tensors = [{ name: 'in', bytes: bytes() }];
  const ops = [];
  const layers = [['in']];
  while (ops.length < opCount) {
    const width = Math.min(opCount - ops.length, 2 + Math.floor(random() * 5));
    const layer = [];
    for (let k = 0; k < width; k++) {
      const reads = new Set();
      for (let r = 0; r < 1 + Math.floor(random() * 2); r++) {
        const from = layers[layers.length - 1 - Math.floor(random() * Math.min(2, layers.length))];
        reads.add(from[Math.floor(random() * from.length)]);
      }
      const out = `t${ops.length}`;
      tensors.push({ name: out, bytes: bytes() });
      ops.push({ name: `op${ops.length}`, op: 'f', inputs: [...reads], outputs: [out] });
      layer.push(out);
    }
    layers.push(layer);
  }
  return { format: 'tensorplan.graph', version: 1, tensors, ops, inputs: ['in'], outputs: layers[layers.length - 1] };
}

// examples/moe-layer.json with every expert given the same 1024 tokens (a
// fixed expert capacity, as GShard and Switch Transformer route): the eight
// experts become interchangeable, which the exact search exploits
// (schedule/segment_symmetry.h). The moe-layer example itself routes 768 to
// 1536 tokens per expert, so only pairs of its experts are interchangeable.
function equalExperts(doc) {
  const copy = structuredClone(doc);
  const perExpert = /^e(\d+)\.(in|out|fc1_out|act|d_out|d_in|d_act|d_fc1_out)$/;
  const tokens = 1024;
  for (const tensor of copy.tensors) {
    if (perExpert.test(tensor.name)) tensor.shape[0] = tokens;
  }
  for (const alias of copy.aliases) {
    const match = /^e(\d+)\./.exec(alias.tensor);
    if (alias.kind === 'view' && match) {
      const row = copy.tensors.find((t) => t.name === alias.tensor).shape[1];
      alias.offset = Number(match[1]) * tokens * row * 2;  // bf16
    }
  }
  return copy;
}

function graphs(tp) {
  const list = [];
  for (const file of readdirSync(`${root}examples`).sort()) {
    if (!file.endsWith('.json')) continue;
    const doc = JSON.parse(readFileSync(`${root}examples/${file}`, 'utf8'));
    if (file.endsWith('.layers.json')) list.push([file.replace('.layers.json', ' (layers)'), tp.layerGraph(doc).graph]);
    else if (doc.format === 'tensorplan.graph') list.push([file.replace('.json', ''), parseGraph(doc)]);
  }
  list.push(['moe-layer, equal experts', parseGraph(equalExperts(JSON.parse(readFileSync(`${root}examples/moe-layer.json`, 'utf8'))))]);
  // The example itself with tp.schedule(graph, { timeLimitSeconds: 10 }):
  // its proof takes about 4.5 s native (1.46M memoised sets), and the first
  // proof gets half the limit.
  list.push(['moe-layer, 10 s limit', parseGraph(JSON.parse(readFileSync(`${root}examples/moe-layer.json`, 'utf8'))), 10]);
  for (const file of readdirSync(`${root}test/fixtures/onnx-real`).sort()) {
    if (file.endsWith('.onnx')) list.push([`onnx ${file.replace('.onnx', '')}`, tp.importOnnx(readFileSync(`${root}test/fixtures/onnx-real/${file}`)).graph]);
  }
  for (const seed of [1, 2, 3]) list.push([`random seed ${seed}`, parseGraph(randomGraph(seed))]);
  for (const [n, seed] of [[40, 1], [80, 2], [120, 3], [300, 4]]) list.push([`layered ${n} seed ${seed}`, layered(n, seed)]);
  return list;
}

const INDUCTOR = ['given', 'inductor-lpmf', 'inductor-bfs', 'inductor-dfs'];
const XLA = ['xla-list', 'xla-dfs', 'xla-post-order'];

export async function run({ sessions }) {
  const [backend, tp] = sessions.native ? ['native', sessions.native] : ['wasm', sessions.wasm];
  const rows = [];
  let proved = 0, total = 0, worseThanBaseline = 0;
  for (const [label, graph, limitS] of graphs(tp)) {
    const start = performance.now();
    const result = tp.schedule(graph, { timeLimitSeconds: limitS ?? LIMIT_S });
    const ms = performance.now() - start;
    const best = (names) => Math.min(...names.map((m) => result.baselines[m]?.peakBytes ?? Infinity));
    const inductor = best(INDUCTOR), xla = best(XLA);
    total += 1;
    proved += result.provedOptimal ? 1 : 0;
    worseThanBaseline += result.peakBytes > Math.min(inductor, xla) ? 1 : 0;
    rows.push([
      label, graph.ops.length,
      fmt(inductor / MiB, 3), fmt(xla / MiB, 3), fmt(result.peakBytes / MiB, 3), fmt(result.lowerBoundBytes / MiB, 3),
      fmt(result.peakBytes / Math.min(inductor, xla), 3),
      result.provedOptimal ? 'yes' : 'no', `${fmt(100 * result.gap, 2)}%`, fmt(ms, 0),
    ]);
  }
  printTable(
    `schedule proofs (${backend}, ours limit ${LIMIT_S} s unless the row names one; baselines from the same call): peaks in MiB`,
    ['graph', 'ops', 'inductor best', 'xla best', 'ours', 'LB', 'ours/best', 'proved', 'gap', 'ms used'],
    rows,
    [`proved ${proved}/${total}; ours above the best baseline on ${worseThanBaseline}/${total}; gap = ours / LB - 1 (0 when proved); TP_BENCH_SCHEDULE_LIMIT sets the limit`],
  );
}
