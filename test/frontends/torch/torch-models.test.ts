// Public architectures exported by python/tensorplan_export.py (test/fixtures/torch-models/, made
// and measured by scripts/torch/export_fixtures.py with torch 2.13.0+cpu): with exact bytes
// (alignment 1), the plan's given-order peak plus the persistent bytes equals PyTorch's eager
// live-storage peak recorded in manifest.json (scripts/torch/measure_eager.py), on every backend.
// Where python can import torch and transformers, two of the programs are also exported again
// with their weights and measured live.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTorchExport } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
import { findTorch } from './torch-support';

interface Eager { peak_bytes: number; persistent_bytes: number; intermediate_peak_bytes: number; peak_op: string }
interface Entry { model: string; ir: string; eager: Eager }

const dir = new URL('../../fixtures/torch-models/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as { torch: string; files: Record<string, Entry> };
const FILES = Object.entries(manifest.files);
const bytesOf = (file: string) => new Uint8Array(readFileSync(`${dir}${file}`));

describe('torch-models fixtures', () => {
  it('cover core ATen, the training IR and joint training steps, and import without warnings', () => {
    expect(new Set(FILES.map(([, e]) => e.ir))).toEqual(new Set(['core-aten', 'training', 'joint']));
    for (const [file] of FILES) {
      const r = importTorchExport(bytesOf(file), { alignment: 1, source: file });
      expect(r.warnings, file).toEqual([]);
    }
  });

  describe.each(BACKENDS)('on %s', (backend) => {
    const tp = session(backend);
    it.each(FILES)('%s: given-order peak + persistent bytes (alignment 1) equals the eager live-storage peak', (file, e) => {
      const r = tp.importTorchExport(bytesOf(file), { alignment: 1, source: file });
      const s = tp.plan(r.graph, { baselines: true }).statistics;
      expect(s.persistentBytes).toBe(e.eager.persistent_bytes);
      expect(s.schedule.baselines.given).toBe(e.eager.intermediate_peak_bytes);
      expect(s.schedule.baselines.given + s.persistentBytes).toBe(e.eager.peak_bytes);
    });
  });
});

// inplace_mlp.infer: the training IR (in-place ops on views, linear and layer_norm composites);
// gpt2_tied.train: a joint step with a tied embedding and lm_head.
const LIVE = ['inplace_mlp.infer.pt2', 'gpt2_tied.train.pt2'];
const torch = findTorch();
const python = torch.python;
const transformers = python
  ? spawnSync(python, ['-c', 'import transformers; print(transformers.__version__)'], { encoding: 'utf8' })
  : undefined;
const liveWhy = !python ? torch.why
  : transformers?.status !== 0 ? `skipped: ${python} cannot import transformers (scripts/torch/export_fixtures.py builds the models with it); set TP_PYTHON to an interpreter that can`
    : torch.why;

describe.skipIf(!python || transformers?.status !== 0)(`fixtures exported again with weights and measured now ${liveWhy}`, () => {
  let live: Record<string, { path: string; eager: Eager; torch: string }> | undefined;
  const get = () => {
    if (!live) {
      const script = new URL('./remeasure_models.py', import.meta.url).pathname;
      const out = spawnSync(python!, [script, mkdtempSync(join(tmpdir(), 'tp-torch-models-')), ...LIVE], { encoding: 'utf8', maxBuffer: 16 << 20 });
      if (out.status !== 0) throw new Error(`remeasure_models.py failed: ${out.stderr}`);
      live = JSON.parse(out.stdout.trim().split('\n').pop()!);
    }
    return live!;
  };

  it.each(LIVE)('%s: the live figure is the manifest\'s where the torch version is the same', { timeout: 180_000 }, (file) => {
    const m = get()[file];
    if (m.torch === manifest.torch) expect(m.eager).toEqual(manifest.files[file].eager);
  });

  describe.each(BACKENDS)('on %s', (backend) => {
    const tp = session(backend);
    it.each(LIVE)('%s with weights: given-order peak + persistent bytes equals the live eager peak', { timeout: 180_000 }, (file) => {
      const m = get()[file];
      const s = tp.plan(tp.importTorchExport(new Uint8Array(readFileSync(m.path)), { alignment: 1, source: file }).graph, { baselines: true }).statistics;
      expect(s.persistentBytes).toBe(m.eager.persistent_bytes);
      expect(s.schedule.baselines.given + s.persistentBytes).toBe(m.eager.peak_bytes);
    });
  });
});
