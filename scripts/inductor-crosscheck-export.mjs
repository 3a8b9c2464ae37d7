// The graphs that scripts/inductor-crosscheck.py runs through PyTorch's own
// torch/_inductor/memory.py, with what tensorplan makes of them: storages
// (aligned bytes, input/output/persistent), each tensor's storage, aliases,
// producers, control edges, aligned workspaces, and the orders and peaks of
// tensorplan's Inductor baselines (given, LPMF, BFS, DFS, best of them).
//
//   node scripts/inductor-crosscheck-export.mjs [--random N] > graphs.json
//
// Cases: every example graph and layer spec, the ONNX zoo models (as they are
// and --in-place), as scripts/plan-fingerprints.mjs plans them, and seeded
// random graphs (plan-fingerprints' generator, seeds 1..N, default 60).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomGraph } from './plan-fingerprints.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const METHODS = ['given', 'inductor-lpmf', 'inductor-bfs', 'inductor-dfs', 'inductor-best'];
const DEFAULT_ALIGNMENT = 256;  // graph-document.ts: a graph's defaultAlignment when it states none

const argRandom = process.argv.indexOf('--random');
const randomCount = argRandom > 0 ? Number(process.argv[argRandom + 1]) : 60;

const tensorplan = await import(join(root, 'dist', 'index.mjs'));
const tp = await tensorplan.init({ backend: process.env.TP_BACKEND ?? 'wasm' });

async function cases() {
  const list = [];
  for (const file of readdirSync(join(root, 'examples')).sort()) {
    if (!file.endsWith('.json')) continue;
    const doc = JSON.parse(readFileSync(join(root, 'examples', file), 'utf8'));
    if (file.endsWith('.layers.json')) list.push({ name: `example ${file}`, graph: () => tp.layerGraph(doc).graph });
    else if (doc.format === 'tensorplan.graph') list.push({ name: `example ${file}`, graph: () => tensorplan.parseGraph(doc) });
  }
  const zoo = await import(join(root, 'test', 'frontends', 'onnx', 'onnx-zoo.mjs'));
  for (const [name, make] of Object.entries(zoo.ALL_MODELS)) {
    const bytes = make();
    for (const inPlace of [false, true]) {
      const options = { ...(zoo.MODEL_OPTIONS[name] ?? {}), ...(inPlace ? { inPlace: true } : {}) };
      list.push({ name: `onnx ${name}${inPlace ? ' --in-place' : ''}`, graph: () => tp.importOnnx(bytes, options).graph });
    }
  }
  for (let seed = 1; seed <= randomCount; seed++) list.push({ name: `random seed ${seed}`, graph: () => tensorplan.parseGraph(randomGraph(seed)) });
  return list;
}

function exportGraph(name, graph) {
  const tensorIndex = new Map(graph.tensors.map((t, i) => [t.name, i]));
  const opIndex = new Map(graph.ops.map((o, i) => [o.name, i]));
  const live = tp.liveness(graph);
  const producer = new Array(graph.tensors.length).fill(-1);
  graph.ops.forEach((op, o) => { for (const t of op.outputs) producer[tensorIndex.get(t)] = o; });
  const aliasParent = new Array(graph.tensors.length).fill(-1);
  const inPlace = [];
  for (const a of graph.aliases ?? []) {
    if (a.kind === 'view') aliasParent[tensorIndex.get(a.tensor)] = tensorIndex.get(a.base);
    if (a.kind === 'inPlace') {
      aliasParent[tensorIndex.get(a.output)] = tensorIndex.get(a.input);
      inPlace.push([tensorIndex.get(a.output), tensorIndex.get(a.input)]);
    }
  }
  const align = graph.defaultAlignment ?? DEFAULT_ALIGNMENT;
  const orders = {}, peaks = {};
  for (const method of METHODS) {
    const s = tp.schedule(graph, { method, timeLimitSeconds: 0 });
    orders[method] = s.order.map((n) => opIndex.get(n));
    peaks[method] = s.peakBytes;
    if (method === 'inductor-best') orders.chosen = s.startedFrom;
  }
  return {
    name,
    ops: graph.ops.map((op) => ({
      inputs: op.inputs.map((t) => tensorIndex.get(t)),
      outputs: op.outputs.map((t) => tensorIndex.get(t)),
      after: (op.after ?? []).map((d) => opIndex.get(d)),
      workspace: Math.ceil((op.workspaceBytes ?? 0) / align) * align,
    })),
    tensorStorage: live.tensorStorage,
    producer,
    aliasParent,
    inPlace,
    storages: live.storages.map((s) => ({ bytes: s.bytes, input: s.graphInput, output: s.graphOutput, persistent: s.persistent })),
    orders,
    peaks,
  };
}

const out = [];
for (const c of await cases()) out.push(exportGraph(c.name, c.graph()));
process.stdout.write(JSON.stringify(out));
