// The Python side of the PyTorch input: python/tensorplan_export.py (the .pt2 exporter shipped in
// the package) and scripts/torch/measure_eager.py (PyTorch's eager live-storage peak). Their own
// test files run under python3, or the interpreter TP_PYTHON names, when it imports torch; they
// compare the exporter's joint-graph gradients with eager autograd (a transformer block with
// SDPA, tied weights, BatchNorm in training mode) and the measurement with figures known by hand.
// The committed fixtures' manifest is checked without Python.
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findTorch } from '../frontends/torch/torch-support';

const root = new URL('../../', import.meta.url).pathname;
const PYTHON_TIMEOUT_MS = 600_000;

const py = findTorch();

/** Runs a Python test file without blocking the worker (a minute or more on two cores). */
function runPython(script: string): Promise<{ status: number | null; log: string }> {
  return new Promise((resolve) => {
    const child = spawn(py.python!, ['-W', 'ignore', `${root}${script}`], {
      cwd: root, timeout: PYTHON_TIMEOUT_MS,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, // python/ ships in the package
    });
    let log = '';
    child.stdout.on('data', (chunk) => { log += chunk; });
    child.stderr.on('data', (chunk) => { log += chunk; });
    child.on('error', (error) => resolve({ status: null, log: `${log}\n${error.message}` }));
    child.on('close', (status) => resolve({ status, log }));
  });
}

describe.skipIf(!py.python)(`the PyTorch exporter and eager measurement (${py.why})`, () => {
  it('joint-graph gradients equal eager autograd; weightless archives keep the graph', async () => {
    const r = await runPython('test/python/test_tensorplan_export.py');
    expect(r.status, r.log).toBe(0);
    expect(r.log).toMatch(/transformer block \(SDPA\): \d+ gradients/);
    expect(r.log).toMatch(/tied embedding \/ output projection: \d+ gradients/);
  }, PYTHON_TIMEOUT_MS);

  it('the eager live-storage count matches hand-computed bytes', async () => {
    const r = await runPython('scripts/torch/test_measure_eager.py');
    expect(r.status, r.log).toBe(0);
  }, PYTHON_TIMEOUT_MS);
});

interface Eager { peak_bytes: number; persistent_bytes: number; intermediate_peak_bytes: number; output_bytes: number }
interface Entry { model: string; program: string; ir: string; bytes: number; max_bytes: number; nodes: number; inputs: Record<string, { shape: number[]; dtype: string }>; eager: Eager }

describe('committed torch.export fixtures (test/fixtures/torch-models)', () => {
  const dir = `${root}test/fixtures/torch-models/`;
  const manifest = JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as { torch: string; files: Record<string, Entry> };
  const files = Object.entries(manifest.files);

  it('covers six architectures, each for inference and a training step', () => {
    const models = new Set(files.map(([, f]) => f.model));
    expect(models.size).toBeGreaterThanOrEqual(6);
    for (const model of models) {
      const programs = files.filter(([, f]) => f.model === model).map(([, f]) => f.ir);
      expect(programs, model).toContain('joint');
      expect(programs.some((ir) => ir !== 'joint'), model).toBe(true);
    }
  });

  it.each(files)('%s is small, listed with its size, and its eager figures add up', (file, f) => {
    const size = statSync(`${dir}${file}`).size;
    expect(size).toBe(f.bytes);
    // 300 KB each; the smallest T5, which cannot fit, names its own limits (export_fixtures.py).
    expect(size).toBeLessThan(f.max_bytes);
    expect(f.max_bytes === 300_000 || f.model === 't5_encoder_decoder').toBe(true);
    expect(Object.keys(f.inputs).length).toBeGreaterThan(0);
    for (const value of [f.eager.peak_bytes, f.eager.persistent_bytes, f.eager.intermediate_peak_bytes]) {
      expect(Number.isInteger(value)).toBe(true);
    }
    expect(f.eager.peak_bytes).toBe(f.eager.persistent_bytes + f.eager.intermediate_peak_bytes);
    expect(f.eager.intermediate_peak_bytes).toBeGreaterThanOrEqual(f.eager.output_bytes);
  });
});
