// Models exported by real exporters (torch.onnx TorchScript and dynamo, onnxruntime's
// quantizer) from public architectures at random initialisation, committed under
// test/fixtures/onnx-real/ (made by scripts/onnx-fixtures/export.py, listed in its README).
// Every fixture imports and plans on every backend; where python3 with onnx and onnxruntime is
// importable (TP_PYTHON names another interpreter), every tensor's shape is compared with ONNX's
// shape inference and with what onnxruntime really produces.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importOnnx } from '../../../dist/index.mjs';
import type { GraphDocument } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
import { findPython } from './fold-support';

const dir = new URL('../../fixtures/onnx-real/', import.meta.url).pathname;
interface Fixture { exporter: string; inputs: Record<string, { shape: number[]; dtype: string }>; values?: Record<string, number>; nodes: number }
const manifest = JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as { models: Record<string, Fixture> };
const FIXTURES = Object.entries(manifest.models);
const bytesOf = (name: string) => new Uint8Array(readFileSync(`${dir}${name}.onnx`));
const DTYPE_NAMES: Record<string, string> = { float32: 'fp32', float16: 'fp16', int64: 'int64', int32: 'int32', uint8: 'uint8', bool: 'bool' };

describe('committed real exported ONNX models', () => {
  it('covers both torch.onnx exporters, onnxruntime\'s quantizer, torchvision and transformers', () => {
    const exporters = new Set(FIXTURES.map(([, f]) => f.exporter));
    expect(exporters).toContain('torchscript');
    expect(exporters).toContain('dynamo');
    expect([...exporters].some((e) => e.includes('quantize_dynamic'))).toBe(true);
    expect(FIXTURES.length).toBeGreaterThanOrEqual(8);
  });

  describe.each(BACKENDS)('on %s', (backend) => {
    const tp = session(backend);
    it.each(FIXTURES)('%s imports with the exported input shapes and plans at or above the lower bound', (name, f) => {
      const r = tp.importOnnx(bytesOf(name), { values: f.values, source: name });
      expect(r.nodes).toBeGreaterThanOrEqual(f.nodes);
      for (const [input, spec] of Object.entries(f.inputs)) {
        const t = r.graph.tensors.find((x) => x.name === input);
        expect(t?.shape, `${name}: input ${input}`).toEqual(spec.shape);
        expect(t?.dtype).toBe(DTYPE_NAMES[spec.dtype]);
      }
      expect(r.graph.ops.length).toBeGreaterThan(0);
      const plan = tp.plan(r.graph);
      expect(tp.validate(plan)).toEqual([]);
      expect(plan.arenaBytes).toBeGreaterThanOrEqual(plan.statistics.lowerBoundBytes);
      // The free function (no core) imports the same graph.
      expect(importOnnx(bytesOf(name), { values: f.values, source: name }).graph).toEqual(r.graph);
    });
  });
});

const py = findPython(['onnx', 'onnxruntime', 'numpy']);
const script = new URL('../../../scripts/onnx-fixtures/shapes.py', import.meta.url).pathname;
interface Reference { onnx: Record<string, number[] | null>; ort: Record<string, { shape: number[]; dtype: string }>; subgraph: string[] }

describe.skipIf(!py.python)(`real models: every tensor's shape against ONNX shape inference and onnxruntime (${py.why})`, () => {
  it.each(FIXTURES)('%s', (name, f) => {
    const out = spawnSync(py.python!, [script, `${dir}${name}.onnx`, JSON.stringify(f.inputs), JSON.stringify(f.values ?? {})], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(out.status, out.stderr).toBe(0);
    const ref = JSON.parse(out.stdout) as Reference;
    const graph: GraphDocument = importOnnx(bytesOf(name), { values: f.values, source: name }).graph;
    const inner = new Set(ref.subgraph);
    let compared = 0;
    for (const t of graph.tensors) {
      const real = ref.ort[t.name];
      if (!real) {
        // Only tensors that ORT cannot return may be missing: graph inputs, initializers, the
        // outputs of an inlined If branch (they replace the If's outputs).
        const known = graph.inputs.includes(t.name) || graph.persistent?.includes(t.name) || inner.has(t.name);
        expect(known, `${name}: "${t.name}" is neither a node output ORT returns nor an input, weight or branch tensor`).toBe(true);
        continue;
      }
      compared += 1;
      expect(t.shape, `${name}: "${t.name}" (onnxruntime)`).toEqual(real.shape);
      expect(t.dtype, `${name}: "${t.name}" dtype`).toBe(real.dtype);
      const inferred = ref.onnx[t.name];
      if (inferred) expect(t.shape, `${name}: "${t.name}" (onnx.shape_inference)`).toEqual(inferred);
    }
    // Every op output of the main graph is compared.
    const opOutputs = graph.ops.flatMap((o) => o.outputs).filter((o) => !inner.has(o));
    expect(compared).toBeGreaterThanOrEqual(opOutputs.length);
  });
});

const tensorBytes = (g: GraphDocument, name: string) => {
  const t = g.tensors.find((x) => x.name === name)!;
  const size: Record<string, number> = { fp32: 4, int64: 8, fp16: 2, int32: 4, uint8: 1, bool: 1 };
  return t.bytes ?? t.shape!.reduce((a, b) => a * b, 1) * size[t.dtype!];
};

describe.each(BACKENDS)('like-for-like with ONNX Runtime on %s', (backend) => {
  const tp = session(backend);

  it.each(FIXTURES)('externalIO: %s keeps graph inputs and outputs outside the arena, reported as externalIOBytes', (name, f) => {
    const plain = tp.importOnnx(bytesOf(name), { values: f.values }).graph;
    const io = tp.importOnnx(bytesOf(name), { values: f.values, externalIO: true }).graph;
    const p0 = tp.plan(plain), p1 = tp.plan(io);
    expect(p0.statistics.externalIOBytes).toBeUndefined();
    const written = new Set(io.ops.flatMap((o) => o.outputs));
    const ioNames = new Set([...io.inputs!, ...io.outputs!.filter((o) => written.has(o))]);
    expect(new Set(io.externalIO)).toEqual(ioNames);
    expect(plain.externalIO).toBeUndefined();
    // Storages are rounded up to the default alignment (256); an output that is a view of another
    // IO tensor shares its storage, so the sum over names is an upper bound.
    const aligned = (n: string) => Math.ceil(tensorBytes(io, n) / 256) * 256;
    expect(p1.statistics.externalIOBytes).toBeLessThanOrEqual([...ioNames].reduce((a, n) => a + aligned(n), 0));
    expect(p1.statistics.externalIOBytes).toBeGreaterThanOrEqual(Math.max(...[...ioNames].map(aligned)));
    expect(p1.statistics.persistentBytes).toBe(p0.statistics.persistentBytes);
    expect(p1.statistics.lowerBoundBytes).toBeLessThanOrEqual(p0.statistics.lowerBoundBytes);
    expect(tp.validate(p1)).toEqual([]);
    for (const s of p1.storages) for (const n of ioNames) expect(s.tensors).not.toContain(n);
  });

  it("runtime 'ort-cpu': only kernels registered MayInplace write in place; Conv gets MLAS's working buffer as workspace", () => {
    const r = tp.importOnnx(bytesOf('mobilenet_v3_small'), { runtime: 'ort-cpu' });
    const ops = new Map(r.graph.ops.map((o) => [o.outputs[0], o]));
    const inPlaceOps = (r.graph.aliases ?? []).filter((a) => a.kind === 'inPlace').map((a) => ops.get((a as { output: string }).output)!.op);
    expect(r.inPlace).toBeGreaterThan(0);
    for (const op of inPlaceOps) expect(['Relu', 'HardSigmoid', 'Sigmoid', 'Tanh', 'Elu', 'LeakyRelu']).toContain(op);
    // HardSwish, Add and Mul have no MayInplace in ORT's CPU registrations; the generic rule takes them.
    const generic = tp.importOnnx(bytesOf('mobilenet_v3_small'), { inPlace: true });
    const genericOps = (generic.graph.aliases ?? []).filter((a) => a.kind === 'inPlace').map((a) => generic.graph.ops.find((o) => o.outputs[0] === (a as { output: string }).output)!.op);
    expect(genericOps.some((op) => !['Relu', 'HardSigmoid'].includes(op!))).toBe(true);
    // The stem: 3x3 stride-2 Conv, 16 filters, on 1x3x64x64 -> 32x32 output. MLAS (convolve.cpp,
    // MlasConvPrepare, commit 00b8ce23ed3b): strides 2, so not GemmDirect; FilterCount 16 <= OutputSize
    // 1024, so ExpandThenGemmSegmented; one thread (ortThreads default 1), batch 1, group 1: one
    // MLAS_SGEMM_STRIDEN * MLAS_SGEMM_STRIDEK = 128 * 128 floats, not the whole 27 * 1024 im2col.
    const stem = r.graph.ops.find((o) => o.op === 'Conv')!;
    expect(stem.workspaceBytes).toBe(128 * 128 * 4);
    // Pointwise convs (1x1, stride 1, no pads) read their input directly: no workspace.
    const pointwise = r.graph.ops.filter((o) => o.op === 'Conv' && r.graph.tensors.find((t) => t.name === o.inputs[1])?.shape?.slice(2).every((d) => d === 1));
    expect(pointwise.length).toBeGreaterThan(0);
    for (const o of pointwise) expect(o.workspaceBytes).toBeUndefined();
    const plan = tp.plan(r.graph);
    expect(tp.validate(plan)).toEqual([]);
    expect(plan.workspaces.length).toBeGreaterThan(0);
  });

  it("runtime 'ort-cpu' with externalIO plans every fixture", () => {
    for (const [name, f] of FIXTURES) {
      const plan = tp.plan(tp.importOnnx(bytesOf(name), { values: f.values, externalIO: true, runtime: 'ort-cpu' }).graph);
      expect(tp.validate(plan), name).toEqual([]);
      expect(plan.statistics.externalIOBytes, name).toBeGreaterThan(0);
    }
  });
});

describe('externalIO and runtime options', () => {
  it('are checked by name, and runtime needs a session (the core decides the writes)', () => {
    const bytes = bytesOf('pad_reflect');
    expect(() => importOnnx(bytes, { runtime: 'ort-cpu' })).toThrow(/runtime: 'ort-cpu' needs the core.*tp\.importOnnx/);
    expect(() => importOnnx(bytes, { runtime: 'tensorrt' as never })).toThrow(/options\.runtime = "tensorrt": must be one of 'ort-cpu'/);
    expect(() => importOnnx(bytes, { externalIO: 1 as never })).toThrow(/options\.externalIO = 1: must be true or false/);
  });

  it('a graph file\'s externalIO names persistent graph inputs or outputs only', () => {
    const tp = session(BACKENDS[0]);
    const graph = { ...importOnnx(bytesOf('pad_reflect'), { externalIO: true }).graph };
    expect(tp.validate(tp.plan(graph))).toEqual([]);
    expect(() => tp.plan({ ...graph, persistent: graph.persistent!.filter((n) => n !== 'x') })).toThrow(/externalIO\[0\] = "x": must be a graph input or output that is also persistent/);
  });

  it('the CLI prints the external I/O line and rejects an unknown runtime', () => {
    const bin = new URL('../../../bin/tensorplan.mjs', import.meta.url).pathname;
    const model = `${dir}pad_reflect.onnx`;
    const ok = spawnSync(process.execPath, [bin, 'plan', model, '--external-io', '--runtime', 'ort-cpu', '--backend', 'wasm'], { encoding: 'utf8' });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/external I\/O[^\n]*[\d,]+ B [^\n]*graph inputs and outputs, user buffers outside the arena/);
    const json = JSON.parse(spawnSync(process.execPath, [bin, 'plan', model, '--external-io', '--json', '--backend', 'wasm'], { encoding: 'utf8' }).stdout);
    expect(json.externalIOBytes).toBeGreaterThan(0);
    const bad = spawnSync(process.execPath, [bin, 'plan', model, '--runtime', 'trt'], { encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--runtime trt: expected one of ort-cpu/);
  });
});
