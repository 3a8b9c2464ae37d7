// Parameters that share a storage (tied weights) in an archive written with weights: torch.export.save
// writes each storage once (torch/export/pt2_archive/_package.py, _save_raw_tensors, torch 2.13),
// and every name of it points at that record, so the importer makes them one storage.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { importTorchExport } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
// `meta` under another name: vite's SSR transform would rewrite the `meta` of `import.meta` too.
import { findTorch, meta as tensorMeta, programJson } from './torch-support';

const exportTied = new URL('./export_tied.py', import.meta.url).pathname;

// An embedding and an output head that are one [50, 16] float tensor (torch.export lists it twice).
const PROGRAM = programJson({
  inputs: [{ name: 'e.weight', kind: 'parameter' }, { name: 'h.weight', kind: 'parameter' }, { name: 'b', kind: 'buffer' }, { name: 'i', kind: 'user_input' }],
  nodes: [
    { name: 'emb', target: 'torch.ops.aten.embedding.default', inputs: { weight: 'e.weight', indices: 'i' }, outputs: ['x'] },
    { name: 't', target: 'torch.ops.aten.t.default', inputs: { self: 'h.weight' }, outputs: ['ht'] },
    { name: 'head', target: 'torch.ops.aten.matmul.default', inputs: { self: 'x', other: 'ht' }, outputs: ['y'] },
  ],
  tensors: { 'e.weight': tensorMeta([50, 16]), 'h.weight': tensorMeta([50, 16]), b: tensorMeta([4]), i: tensorMeta([2, 8], { dtype: 5 }), x: tensorMeta([2, 8, 16]), ht: tensorMeta([16, 50], { strides: [1, 16] }), y: tensorMeta([2, 8, 50]) },
  outputs: [{ name: 'y' }],
});

/** An archive with the program and a weights config naming `records` (record -> bytes) per FQN. */
function withWeights(pathOf: Record<string, string>, records: Record<string, number>): Uint8Array {
  const config = Object.fromEntries(Object.entries(pathOf).map(([fqn, path]) => [fqn, { path_name: path, is_param: true, use_pickle: false }]));
  return zipSync({
    'm/archive_format': strToU8('pt2'),
    'm/models/model.json': strToU8(JSON.stringify(PROGRAM)),
    'm/data/weights/model_weights_config.json': strToU8(JSON.stringify({ config })),
    ...Object.fromEntries(Object.entries(records).map(([path, bytes]) => [`m/data/weights/${path}`, new Uint8Array(bytes)])),
  }, { level: 0 });
}

describe('storages shared by weights', () => {
  it('tied weights naming one record are one storage, as large as the record', () => {
    const r = importTorchExport(withWeights({ 'e.weight': 'weight_0', 'h.weight': 'weight_0', b: 'weight_1' }, { weight_0: 3200, weight_1: 16 }), { alignment: 1 });
    expect(r.categoryBytes.parameters).toBe(50 * 16 * 4);
    expect(r.graph.aliases).toContainEqual({ kind: 'view', tensor: 'h.weight', base: 'e.weight' });
  });

  it('a weight whose record is larger than its extent (a view of a larger tensor) holds the whole record', () => {
    const r = importTorchExport(withWeights({ 'e.weight': 'weight_0', 'h.weight': 'weight_1', b: 'weight_2' }, { weight_0: 6400, weight_1: 3200, weight_2: 16 }), { alignment: 1 });
    expect(r.categoryBytes.parameters).toBe(6400 + 3200);
  });

  it('empty records (an archive written without weights) say nothing: each name is its own storage', () => {
    const r = importTorchExport(withWeights({ 'e.weight': 'weight_0', 'h.weight': 'weight_0', b: 'weight_0' }, { weight_0: 0 }), { alignment: 1 });
    expect(r.categoryBytes.parameters).toBe(2 * 50 * 16 * 4);
    expect(r.categoryBytes.buffers).toBe(16);
  });
});

const torch = findTorch();
describe.skipIf(!torch.python)(`a tied embedding exported now with plain torch.export and its weights ${torch.why}`, () => {
  it.each(BACKENDS)('on %s: given-order peak + persistent bytes equals the eager live-storage peak', { timeout: 120_000 }, (backend) => {
    const out = spawnSync(torch.python!, [exportTied, mkdtempSync(join(tmpdir(), 'tp-tied-'))], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`export_tied.py failed: ${out.stderr}`);
    const e = JSON.parse(out.stdout.trim().split('\n').pop()!) as { path: string; eager: { peak_bytes: number; persistent_bytes: number } };
    const tp = session(backend);
    const s = tp.plan(tp.importTorchExport(new Uint8Array(readFileSync(e.path)), { alignment: 1 }).graph, { baselines: true }).statistics;
    expect(s.persistentBytes).toBe(e.eager.persistent_bytes);
    expect(s.schedule.baselines.given + s.persistentBytes).toBe(e.eager.peak_bytes);
  });
});
