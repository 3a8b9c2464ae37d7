// Like-for-like with the runtime: for every committed real fixture, what ONNX Runtime's
// CPU arena really held (test/frontends/onnx/ort-arena.py: initializers fed as user buffers, graph
// optimisations off, one intra-op thread, profiled) against our plan with `externalIO: true,
// runtime: 'ort-cpu'`. Runs where python3 (or TP_PYTHON) imports onnx and onnxruntime, and says
// why when skipped (CI has neither).
//
// Two inequalities, each implied by how ORT allocates:
// 1. ORT's pattern block holds every intermediate tensor of the run (graph inputs and outputs are
//    outside it, as with externalIO) with its in-place and reuse rules; the least requested bytes in
//    use at a node's end (`minRequested`) are that block plus graph outputs allocated so far (scratch
//    is freed inside the node; the arena's chunks, `minInUse`, may be larger than asked). Our arena
//    planned without op scratch holds the same tensors, so it should never be larger: ours <= ORT's
//    least requested in-use.
// 2. While Conv node i runs, the arena holds what it held when node i-1 ended (with the memory
//    pattern every intermediate is in the block, so nothing is freed between nodes; graph outputs
//    are never freed) plus the working buffer conv.cc allocates (MlasConvPrepare's
//    WorkingBufferSize floats). So ORT's all-time peak >= inUse(i-1) + our modelled scratch of
//    node i: a scratch model that overstated ORT's would fail here. (Nothing sound bounds our
//    arena with scratch by ORT's peak: both place the scratch among different live sets.)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BACKENDS, session } from '../../support/backends';
import { findPython } from './fold-support';

const dir = new URL('../../fixtures/onnx-real/', import.meta.url).pathname;
const script = new URL('./ort-arena.py', import.meta.url).pathname;
interface Fixture { inputs: Record<string, { shape: number[]; dtype: string }>; values?: Record<string, number> }
const FIXTURES = Object.entries((JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as { models: Record<string, Fixture> }).models);
const SCRATCH_OPS = new Set(['Conv', 'ConvInteger', 'ConvTranspose']);

const py = findPython(['onnx', 'onnxruntime', 'numpy']);
interface OrtArena { minRequested: number; minInUse: number; peak: number; nodes: { name: string; op: string; inUse: number }[] }

describe.skipIf(!py.python)(`ONNX Runtime's CPU arena vs our plan with externalIO and runtime 'ort-cpu' ${py.why}`, () => {
  const tp = session(BACKENDS[0]);
  it.each(FIXTURES)('%s: our arena without op scratch <= ORT\'s pattern block; ORT\'s peak covers our Conv scratch', (name, f) => {
    const spec = Object.fromEntries(Object.entries(f.inputs).map(([k, v]) => [k, { ...v, ...(f.values?.[k] !== undefined ? { value: f.values[k] } : {}) }]));
    const run = spawnSync(py.python!, [script, `${dir}${name}.onnx`, JSON.stringify(spec)], { encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(run.status, run.stderr).toBe(0);
    const ort = JSON.parse(run.stdout) as OrtArena;
    const r = tp.importOnnx(new Uint8Array(readFileSync(`${dir}${name}.onnx`)), { values: f.values, externalIO: true, runtime: 'ort-cpu', ortThreads: 1 });
    const noScratch = { ...r.graph, ops: r.graph.ops.map((o) => (SCRATCH_OPS.has(o.op ?? '') ? { ...o, workspaceBytes: undefined } : o)) };
    const plan = tp.plan(noScratch);
    expect(tp.validate(plan)).toEqual([]);
    expect(plan.arenaBytes, `${name}: ours ${plan.arenaBytes} B, ORT's pattern block ${ort.minRequested} B`).toBeLessThanOrEqual(ort.minRequested);
    const scratch = new Map(r.graph.ops.filter((o) => SCRATCH_OPS.has(o.op ?? '')).map((o) => [o.name, o.workspaceBytes ?? 0]));
    let checked = 0;
    ort.nodes.forEach((n, i) => {
      const bytes = scratch.get(n.name);
      if (i === 0 || bytes === undefined) return;
      checked++;
      expect(ort.peak, `${name}: ${n.name} needs ${bytes} B over ${ort.nodes[i - 1].inUse} B`).toBeGreaterThanOrEqual(ort.nodes[i - 1].inUse + bytes);
    });
    // Every Conv our plan gives scratch ran in ORT under the same name, so the check is not vacuous.
    if ([...scratch.values()].some((b) => b > 0)) expect(checked).toBeGreaterThan(0);
    expect(checked).toBe([...scratch.keys()].filter((k) => ort.nodes.some((n, i) => i > 0 && n.name === k)).length);
  }, 120_000);
});
