// `runtime: 'ort-cpu'` writes in place where ONNX Runtime's CPU kernel is registered with
// `KernelDefBuilder().MayInplace(0, 0)` (src/frontends/onnx/ort-cpu-rules.ts, ORT_CPU_MAY_INPLACE),
// and ORT's planner takes the pair (onnxruntime/core/framework/allocation_planner.cc, commit
// 005c192599b3, PlannerImpl::FindReusableInput: the input's buffer has no other use left, the output
// has its element size and shape). onnxruntime/core/providers/cpu/math/softmax.cc registers Softmax
// and LogSoftmax on float with MayInplace(0, 0) (on double without), math/clip.cc registers Clip with
// it. An attention's Softmax therefore writes its probabilities over its scores: in Whisper's encoder
// the [heads, frames, frames] scores are the largest tensors, and ORT holds one such buffer, not two.
//
// The fixtures whisper_encoder_sdpa and whisper_encoder_sdpa_dynamo (scripts/onnx-fixtures/export.py)
// have whisper-tiny's attention-to-hidden proportions; manifest.json records ORT's measured pattern
// block for every fixture (`ortPatternBytes`, test/frontends/onnx/ort-arena.py, onnxruntime 1.30.0).
// Where python imports onnx and onnxruntime (TP_PYTHON names it), one-node models are also run by ORT.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Tensorplan } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
import { T, onnxModel } from './onnx-models.mjs';
import { findPython } from './fold-support';

const dir = new URL('../../fixtures/onnx-real/', import.meta.url).pathname;
const script = new URL('./ort-arena.py', import.meta.url).pathname;
interface Fixture { inputs: Record<string, { shape: number[]; dtype: string }>; values?: Record<string, number>; ortPatternBytes: number }
const FIXTURES = Object.entries((JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as { models: Record<string, Fixture> }).models);
const WHISPER = ['whisper_encoder_sdpa', 'whisper_encoder_sdpa_dynamo'];
const SCRATCH_OPS = new Set(['Conv', 'ConvInteger', 'ConvTranspose']);

type Graph = ReturnType<Tensorplan['importOnnx']>['graph'];
type Alias = NonNullable<Graph['aliases']>[number];
const inPlaceOutputs = (g: Graph) => new Set((g.aliases ?? []).filter((a) => a.kind === 'inPlace').map((a) => (a as Alias & { output: string }).output));
/** The arena like-for-like with ORT's pattern block: graph I/O outside it, no Conv scratch (ORT frees it inside the node). */
const arenaWithoutScratch = (tp: Tensorplan, g: Graph) => tp.plan({ ...g, ops: g.ops.map((o) => (SCRATCH_OPS.has(o.op ?? '') ? { ...o, workspaceBytes: undefined } : o)) }).arenaBytes;
const importFixture = (tp: Tensorplan, name: string, f: Fixture) =>
  tp.importOnnx(new Uint8Array(readFileSync(`${dir}${name}.onnx`)), { ...(f.values ? { values: f.values } : {}), externalIO: true, runtime: 'ort-cpu', ortThreads: 1 });

/** x -> Neg -> a -> OP -> b -> Neg -> y, 256 KiB float tensors (or 512 KiB double): a and b share a buffer only if OP writes in place. */
const SHAPE = [4, 128, 128];
function sandwich(op: string, type = T.FLOAT, attrs: Record<string, unknown> = {}) {
  return onnxModel({
    nodes: [
      { op: 'Neg', inputs: ['x'], outputs: ['a'] },
      { op, inputs: ['a'], outputs: ['b'], attrs },
      { op: 'Neg', inputs: ['b'], outputs: ['y'] },
    ],
    inputs: [{ name: 'x', shape: SHAPE, type }],
    outputs: [{ name: 'y', shape: SHAPE, type }],
  }, 17);
}
const CASES: [string, number, number][] = [
  // op, ONNX element type, buffers ORT's pattern holds for a and b
  ['Softmax', T.FLOAT, 1],
  ['LogSoftmax', T.FLOAT, 1],
  ['Clip', T.FLOAT, 1],
  ['Softmax', T.DOUBLE, 2],
  ['Exp', T.FLOAT, 2],
];
const elementBytes = (type: number) => (type === T.DOUBLE ? 8 : 4);

describe.each(BACKENDS)("runtime 'ort-cpu' in-place kernels on %s", (backend) => {
  const tp = session(backend);

  it.each(CASES)('%s (ONNX type %i): %i buffer(s) for its input and output, as ORT registers the kernel', (op, type, buffers) => {
    const r = tp.importOnnx(sandwich(op, type), { externalIO: true, runtime: 'ort-cpu' });
    expect(inPlaceOutputs(r.graph).has('b')).toBe(buffers === 1);
    const plan = tp.plan(r.graph);
    expect(tp.validate(plan)).toEqual([]);
    expect(plan.arenaBytes).toBe(buffers * SHAPE.reduce((a, b) => a * b, 1) * elementBytes(type));
  });

  it.each(WHISPER)("%s: every attention Softmax writes over its scores, and that is what keeps the arena at or below ORT's pattern block", (name) => {
    const f = FIXTURES.find(([n]) => n === name)![1];
    const r = importFixture(tp, name, f);
    const softmax = r.graph.ops.filter((o) => o.op === 'Softmax').map((o) => o.outputs[0]);
    expect(softmax.length).toBe(2);
    const written = inPlaceOutputs(r.graph);
    for (const s of softmax) expect(written.has(s), s).toBe(true);
    const ours = arenaWithoutScratch(tp, r.graph);
    expect(ours, `${name}: ours ${ours} B, ORT's pattern block ${f.ortPatternBytes} B`).toBeLessThanOrEqual(f.ortPatternBytes);
    // The same plan with the Softmax outputs in buffers of their own holds two [heads, frames,
    // frames] tensors at once, more than ORT's block.
    const apart = { ...r.graph, aliases: (r.graph.aliases ?? []).filter((a) => !(a.kind === 'inPlace' && softmax.includes((a as Alias & { output: string }).output))) };
    expect(arenaWithoutScratch(tp, apart)).toBeGreaterThan(f.ortPatternBytes);
  });

  it.each(FIXTURES)("%s: our arena without op scratch <= ORT's measured pattern block (manifest ortPatternBytes)", (name, f) => {
    const r = importFixture(tp, name, f);
    const ours = arenaWithoutScratch(tp, r.graph);
    expect(ours, `${name}: ours ${ours} B, ORT's pattern block ${f.ortPatternBytes} B`).toBeLessThanOrEqual(f.ortPatternBytes);
  });
});

const py = findPython(['onnx', 'onnxruntime', 'numpy']);

describe.skipIf(!py.python)(`ONNX Runtime's pattern block for one in-place kernel equals our arena ${py.why}`, () => {
  const tp = session(BACKENDS[0]);
  it.each(CASES)('%s (ONNX type %i): ORT holds %i buffer(s), as we plan', (op, type) => {
    const model = sandwich(op, type);
    const tmp = mkdtempSync(join(tmpdir(), 'tp-ort-in-place-'));
    try {
      writeFileSync(join(tmp, 'm.onnx'), model);
      const spec = { x: { shape: SHAPE, dtype: type === T.DOUBLE ? 'float64' : 'float32' } };
      const run = spawnSync(py.python!, [script, join(tmp, 'm.onnx'), JSON.stringify(spec)], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const ort = JSON.parse(run.stdout) as { minRequested: number };
      const ours = tp.plan(tp.importOnnx(model, { externalIO: true, runtime: 'ort-cpu' }).graph).arenaBytes;
      expect(ours).toBe(ort.minRequested);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});
