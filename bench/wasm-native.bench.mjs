// WASM against native on planning real models, the first call included:
// per model, the first plan() natively and on WASM, each in fresh processes (so
// it pays for loading the core, compiling the module and every cold path, as an
// application's first plan does), and warm plan() (median of repeated calls on
// the run's long-lived sessions). The ratios are WASM over native measured in this run,
// of wall time and of the main thread's CPU time (see wasm-native-first-call.mjs:
// V8 compiles WASM in the background and tiers hot functions up to TurboFan on
// other threads, which cost wall time only where cores are scarce).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importOnnx } from '../dist/index.mjs';
import { generatedModel } from '../test/frontends/onnx/onnx-zoo.mjs';
import { fmt, printTable } from './harness.mjs';
import { timeMedianWithCpu } from './thread-cpu.mjs';

const CHILD = fileURLToPath(new URL('./wasm-native-first-call.mjs', import.meta.url));
const ONNX_REAL = new URL('../test/fixtures/onnx-real/', import.meta.url);
/** Fresh processes per backend and model; the median is reported (the first call cannot be repeated in one process). */
const PROCESSES = 3;

const example = (name) => JSON.parse(readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8'));
const repeated = (spec, n) => ({ ...spec, layers: [{ ...spec.layers[0], repeat: n }] });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The real models: exported ONNX fixtures, layer specs of the examples expanded, a generated 1000-node ONNX model. */
function models(tp) {
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', ONNX_REAL), 'utf8')).models;
  const onnx = (name) => importOnnx(new Uint8Array(readFileSync(new URL(`${name}.onnx`, ONNX_REAL))), { values: manifest[name].values, source: name }).graph;
  return [
    ['whisper_encoder (ONNX)', () => onnx('whisper_encoder')],
    ['bert_tiny (ONNX)', () => onnx('bert_tiny')],
    ['mobilenet_v3_small (ONNX)', () => onnx('mobilenet_v3_small')],
    ['shufflenet_v2 (ONNX)', () => onnx('shufflenet_v2')],
    ['generated 1000-node ONNX', () => importOnnx(generatedModel(1000)).graph],
    ['Llama-3-8B BF16 x8 layers', () => tp.layerGraph(repeated(example('llama3-8b-bf16.layers.json'), 8)).graph],
    ['Llama-3-8B BF16 x32 layers', () => tp.layerGraph(repeated(example('llama3-8b-bf16.layers.json'), 32)).graph],
    ['Llama-3-8B MXFP8 TP=8+SP x32', () => tp.layerGraph(repeated(example('llama3-8b-mxfp8-tp8sp.layers.json'), 32)).graph],
    ['Mixtral MoE layer', () => tp.layerGraph(example('mixtral-moe.layers.json')).graph],
  ];
}

function firstCall(backend, graphFile) {
  const runs = [];
  for (let i = 0; i < PROCESSES; i++) {
    runs.push(JSON.parse(execFileSync(process.execPath, [CHILD, backend, graphFile], { encoding: 'utf8' })));
  }
  const fingerprints = new Set(runs.map((r) => r.fingerprint));
  if (fingerprints.size !== 1) throw new Error(`${backend}: plans differ between processes on ${graphFile}`);
  return { firstMs: median(runs.map((r) => r.firstMs)), firstCpuMs: median(runs.map((r) => r.firstCpuMs)), fingerprint: runs[0].fingerprint };
}

export async function run({ sessions }) {
  if (!sessions.wasm || !sessions.native) {
    console.log('\nWASM vs native: needs both backends (skipped)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'tp-wasm-native-'));
  const rows = [];
  const ratios = { first: [], warm: [], firstCpu: [], warmCpu: [] };
  try {
    for (const [name, make] of models(sessions.native)) {
      const graph = make();
      const file = join(dir, 'graph.json');
      writeFileSync(file, JSON.stringify(graph));
      const native = firstCall('native', file);
      const wasm = firstCall('wasm', file);
      if (native.fingerprint !== wasm.fingerprint) throw new Error(`${name}: the WASM plan differs from the native plan`);
      for (const [backend, figures] of [['native', native], ['wasm', wasm]]) {
        const warm = timeMedianWithCpu(() => sessions[backend].plan(graph), { minRuns: 3, minMs: 300, warmup: 2 });
        figures.warmMs = warm.ms;
        figures.warmCpuMs = warm.cpuMs;
      }
      const ratio = {};
      for (const key of Object.keys(ratios)) {
        ratio[key] = wasm[`${key}Ms`] / native[`${key}Ms`];
        if (Number.isFinite(ratio[key])) ratios[key].push(ratio[key]);
      }
      rows.push([
        name, graph.ops.length,
        fmt(native.firstMs, 1), fmt(wasm.firstMs, 1), fmt(ratio.first, 2), fmt(ratio.firstCpu, 2),
        fmt(native.warmMs, 1), fmt(wasm.warmMs, 1), fmt(ratio.warm, 2), fmt(ratio.warmCpu, 2),
      ]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const geo = (values) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
  const range = (values) => (values.length
    ? `${fmt(Math.min(...values), 2)}..${fmt(Math.max(...values), 2)} (geometric mean ${fmt(geo(values), 2)})` : 'n/a');
  printTable(
    `WASM vs native, plan() of real models (fast effort; median of ${PROCESSES} fresh processes each; identical plans asserted)`,
    ['model', 'ops', 'native first ms', 'wasm first ms', 'wasm / native first', 'same, main-thread CPU',
      'native warm ms', 'wasm warm ms', 'wasm / native warm', 'same, main-thread CPU'],
    rows,
    [
      'first = init() + the first plan() in a fresh process; warm = median of repeated plan() calls on a warmed-up session; ms are wall time.',
      'main-thread CPU leaves out V8\'s background compiler threads (which on a loaded machine compete with the planner for the cores); warm CPU is the mean per call over the batch.',
      `wasm / native, wall: first ${range(ratios.first)}, warm ${range(ratios.warm)}`,
      `wasm / native, main-thread CPU: first ${range(ratios.firstCpu)}, warm ${range(ratios.warmCpu)}`,
    ],
  );
}
