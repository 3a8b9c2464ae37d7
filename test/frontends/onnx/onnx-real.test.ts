// Issue #16: models exported by real exporters (torch.onnx TorchScript and dynamo, onnxruntime's
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

const dir = new URL('../../fixtures/onnx-real/', import.meta.url).pathname;
interface Fixture { exporter: string; inputs: Record<string, { shape: number[]; dtype: string }>; values?: Record<string, number>; nodes: number }
const manifest = JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as { models: Record<string, Fixture> };
const FIXTURES = Object.entries(manifest.models);
const bytesOf = (name: string) => new Uint8Array(readFileSync(`${dir}${name}.onnx`));
const DTYPE_NAMES: Record<string, string> = { float32: 'fp32', float16: 'fp16', int64: 'int64', int32: 'int32', bool: 'bool' };

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

/** python3 (or TP_PYTHON) when it can import onnx and onnxruntime; else why not. */
function findPython(): { python?: string; why: string } {
  const python = process.env.TP_PYTHON ?? 'python3';
  const probe = spawnSync(python, ['-c', 'import onnx, onnxruntime, numpy; print(onnx.__version__, onnxruntime.__version__)'], { encoding: 'utf8' });
  if (probe.status === 0) return { python, why: `onnx ${probe.stdout.trim().replace(' ', ', onnxruntime ')}` };
  const reason = probe.error ? probe.error.message : (probe.stderr.trim().split('\n').pop() ?? `exit ${probe.status}`);
  return { why: `skipped: ${python} cannot import onnx and onnxruntime (${reason}); set TP_PYTHON to an interpreter that can` };
}
const py = findPython();
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
