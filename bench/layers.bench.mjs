// Layer specs end to end: graph generation + plan() time for 1, 8 and 32
// TransformerLayers of a Llama-3-8B-like model (BF16 TP=1, MXFP8 TP=8+SP) and the
// Mixtral-like MoE layer, per backend; our peak against the Inductor-style
// schedulers (given order, LPMF, BFS, DFS and their best) measured in the same run.
import { readFileSync } from 'node:fs';
import { fmt, printTable, timeMedian } from './harness.mjs';

const example = (name) => JSON.parse(readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8'));
const withLayers = (spec, n) => ({ ...spec, name: `${spec.name.split(',')[0]} x${n}, ${spec.recipe}${spec.parallel ? ' TP=8+SP' : ''}`, layers: [{ ...spec.layers[0], repeat: n }] });

export async function run({ sessions }) {
  const cases = [];
  for (const file of ['llama3-8b-bf16.layers.json', 'llama3-8b-mxfp8-tp8sp.layers.json']) {
    for (const n of [1, 8, 32]) cases.push(withLayers(example(file), n));
  }
  cases.push(example('mixtral-moe.layers.json'), example('mixtral-moe-tp8sp.layers.json'));
  const rows = [];
  for (const spec of cases) {
    const figures = {};
    for (const [backend, tp] of Object.entries(sessions)) {
      const genMs = timeMedian(() => tp.layerGraph(spec), { minRuns: 3, minMs: 200, warmup: 1 });
      const lg = tp.layerGraph(spec);
      const planMs = timeMedian(() => tp.plan(lg.graph), { minRuns: 3, minMs: 0, warmup: 1 });
      figures[backend] = { genMs, planMs, lg };
    }
    const any = figures.native ?? figures.wasm;
    const tp = sessions.native ?? sessions.wasm;
    const plan = tp.plan(any.lg.graph, { baselines: true });
    const s = plan.statistics;
    const b = s.schedule.baselines;
    const inductor = ['given', 'inductor-lpmf', 'inductor-bfs', 'inductor-dfs'].filter((n) => b[n] !== undefined);
    if (inductor.length > 0) b['inductor-best'] = Math.min(...inductor.map((n) => b[n]));
    const ratio = (name) => (b[name] ? fmt(b[name] / s.peakBytes, 3) : 'n/a');
    const ms = (backend, key) => (figures[backend] ? fmt(figures[backend][key], 1) : 'n/a');
    rows.push([
      spec.name.replace('(8 experts, top-2), ', '').slice(0, 46), any.lg.graph.ops.length, any.lg.graph.tensors.length,
      fmt(s.peakBytes / 2 ** 30, 2), ratio('given'), ratio('inductor-lpmf'), ratio('inductor-bfs'), ratio('inductor-dfs'), ratio('inductor-best'),
      fmt(s.arenaOverLowerBound, 4),
      ms('native', 'genMs'), ms('native', 'planMs'), ms('wasm', 'genMs'), ms('wasm', 'planMs'),
      figures.native && figures.wasm ? fmt((figures.wasm.genMs + figures.wasm.planMs) / (figures.native.genMs + figures.native.planMs), 2) : 'n/a',
    ]);
  }
  printTable(
    'layer specs: generation + plan() (fast), peak against Inductor-style schedules measured in the same run',
    ['spec', 'ops', 'tensors', 'peak GiB', 'given / ours', 'LPMF / ours', 'BFS / ours', 'DFS / ours', 'Inductor best / ours', 'arena / LB',
      'native gen ms', 'native plan ms', 'wasm gen ms', 'wasm plan ms', 'wasm / native'],
    rows,
  );
}
