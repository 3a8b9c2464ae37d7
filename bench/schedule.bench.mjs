// Graph scheduling through the public API: random layered DAGs and a
// transformer-like training step at 10^3..10^5 ops. Per graph: each
// baseline's peak, ours, ours / best baseline, and the time of one
// schedule() call (encode + every baseline + search + decode) per backend.
// The C++ tool core-cpp/tools/schedule_bench.cpp has the full native table.
import { fmt, printTable, seededRandom } from './harness.mjs';

const MiB = 1 << 20;

function layered(opCount, seed) {
  const random = seededRandom(seed);
  const bytes = () => (1 + Math.floor(random() * 4)) * 2 ** (10 + Math.floor(random() * 11));
  const tensors = [{ name: 'in0', bytes: bytes() }, { name: 'in1', bytes: bytes() }];
  const ops = [];
  const layers = [['in0', 'in1']];
  while (ops.length < opCount) {
    const width = Math.min(opCount - ops.length, 2 + Math.floor(random() * 7));
    const layer = [];
    for (let k = 0; k < width; k++) {
      const reads = new Set();
      const count = 1 + Math.floor(random() * 3);
      for (let r = 0; r < count; r++) {
        const from = layers[layers.length - 1 - Math.floor(random() * Math.min(3, layers.length))];
        reads.add(from[Math.floor(random() * from.length)]);
      }
      const out = `t${ops.length}`;
      tensors.push({ name: out, bytes: bytes() });
      ops.push({ name: `op${ops.length}`, op: 'f', inputs: [...reads], outputs: [out], workspaceBytes: random() < 0.2 ? bytes() : 0 });
      layer.push(out);
    }
    layers.push(layer);
  }
  return { format: 'tensorplan.graph', version: 1, tensors, ops, inputs: ['in0', 'in1'], outputs: layers[layers.length - 1] };
}

function transformer(opCount) {
  const layers = Math.max(1, Math.floor((opCount - 2) / 12));
  const h = MiB;
  const tensors = [{ name: 'x0', bytes: h }];
  const ops = [];
  const persistent = [];
  const op = (name, inputs, outputs, workspaceBytes = 0) => ops.push({ name, op: name.split('.')[0], inputs, outputs, workspaceBytes });
  const t = (name, bytes) => tensors.push({ name, bytes });
  for (let l = 0; l < layers; l++) {
    const p = `l${l}`;
    for (const w of ['wqkv', 'wup']) {
      t(`${p}.${w}`, 4 * h);
      persistent.push(`${p}.${w}`);
    }
    t(`${p}.qkv`, 3 * h); op(`qkv.${p}`, [`x${l}`, `${p}.wqkv`], [`${p}.qkv`]);
    t(`${p}.att`, h); op(`attn.${p}`, [`${p}.qkv`], [`${p}.att`], 2 * h);
    t(`${p}.up`, 4 * h); op(`up.${p}`, [`${p}.att`, `${p}.wup`], [`${p}.up`]);
    t(`x${l + 1}`, h); op(`down.${p}`, [`${p}.up`, `x${l}`], [`x${l + 1}`]);
  }
  t('g', h); op('loss', [`x${layers}`], ['g']);
  let g = 'g';
  for (let l = layers - 1; l >= 0; l--) {
    const p = `l${l}`;
    t(`${p}.gup`, 4 * h); op(`down_bwd.${p}`, [g, `${p}.up`], [`${p}.gup`]);
    t(`${p}.gw_up`, 4 * h); persistent.push(`${p}.gw_up`); op(`up_wgrad.${p}`, [`${p}.gup`, `${p}.att`], [`${p}.gw_up`]);
    t(`${p}.gatt`, h); op(`up_dgrad.${p}`, [`${p}.gup`, `${p}.wup`], [`${p}.gatt`]);
    t(`${p}.gqkv`, 3 * h); op(`attn_bwd.${p}`, [`${p}.gatt`, `${p}.qkv`], [`${p}.gqkv`], 2 * h);
    t(`${p}.gw_qkv`, 4 * h); persistent.push(`${p}.gw_qkv`); op(`qkv_wgrad.${p}`, [`${p}.gqkv`, `x${l}`], [`${p}.gw_qkv`]);
    t(`${p}.gx`, h); op(`qkv_dgrad.${p}`, [`${p}.gqkv`, `${p}.wqkv`, g], [`${p}.gx`]);
    g = `${p}.gx`;
  }
  return { format: 'tensorplan.graph', version: 1, tensors, ops, inputs: ['x0'], outputs: [g], persistent };
}

const SHORT = { given: 'given', 'inductor-lpmf': 'lpmf', 'inductor-bfs': 'bfs', 'inductor-dfs': 'dfs', 'xla-list': 'xla.list', 'xla-dfs': 'xla.dfs', 'xla-post-order': 'xla.post' };

export async function run({ sessions }) {
  const rows = [];
  const graphs = [];
  for (const n of [1_000, 10_000, 100_000]) graphs.push([`layered ${n}`, layered(n, 7)]);
  for (const n of [1_000, 100_000]) graphs.push([`transformer ${n}`, transformer(n)]);
  for (const [label, graph] of graphs) {
    const ms = {};
    let result;
    for (const [name, tp] of Object.entries(sessions)) {
      const start = performance.now();
      result = tp.schedule(graph, { timeLimitSeconds: 0.5 });
      ms[name] = performance.now() - start;
    }
    const peaks = Object.entries(result.baselines).map(([m, f]) => [m, f.peakBytes]);
    const best = Math.min(...peaks.map(([, p]) => p));
    const bestName = peaks.find(([, p]) => p === best)[0];
    rows.push([
      label,
      fmt(result.baselines.given.peakBytes / MiB, 1),
      `${fmt(best / MiB, 1)} (${SHORT[bestName]})`,
      fmt(result.peakBytes / MiB, 1),
      fmt(result.lowerBoundBytes / MiB, 1),
      fmt(result.peakBytes / best, 3),
      result.provedOptimal ? 'yes' : 'no',
      ms.native !== undefined ? fmt(ms.native, 0) : 'n/a',
      fmt(ms.wasm, 0),
    ]);
  }
  printTable(
    'graph scheduling (ours vs Inductor/XLA baselines, same run): peaks in MiB; ms per schedule() call incl. encode, 0.5 s search limit',
    ['graph', 'given', 'best baseline', 'ours', 'LB', 'ours/best', 'proved', 'native ms', 'wasm ms'],
    rows,
  );
}
