// The committed weightless .pt2 fixtures (test/fixtures/torch/, made by make_fixtures.py with
// torch 2.13.0+cpu): with exact bytes (alignment 1), the plan's given-order peak plus the
// persistent bytes equals PyTorch's eager live-storage peak that make_fixtures.py measured
// (measured.json), on every backend.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importTorchExport } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';

const dir = new URL('../../fixtures/torch/', import.meta.url).pathname;
const measured = JSON.parse(readFileSync(`${dir}measured.json`, 'utf8')) as { torch: string; fixtures: Record<string, { peakBytes: number; note: string }> };
const FIXTURES = Object.entries(measured.fixtures);
const bytesOf = (name: string) => new Uint8Array(readFileSync(`${dir}${name}.pt2`));

describe('committed torch.export fixtures', () => {
  it('cover core ATen, the training IR and joint forward + backward graphs, each under 200 KB', () => {
    const verifiers = new Set<string>();
    let joint = 0;
    for (const [name] of FIXTURES) {
      expect(bytesOf(name).byteLength).toBeLessThan(200_000);
      const r = importTorchExport(bytesOf(name), { source: name });
      r.verifiers.forEach((v) => verifiers.add(v));
      if (r.joint) joint++;
      expect(r.schemaVersion).toBe('8.20');
      expect(r.warnings).toEqual([]);
    }
    expect([...verifiers].sort()).toEqual(['ATEN', 'TRAINING']);
    expect(joint).toBeGreaterThanOrEqual(2);
  });

  describe.each(BACKENDS)('on %s', (backend) => {
    const tp = session(backend);
    it.each(FIXTURES)('%s: given-order peak + persistent bytes (alignment 1) equals the eager live-storage peak', (name, m) => {
      const r = tp.importTorchExport(bytesOf(name), { alignment: 1, source: name });
      const plan = tp.plan(r.graph, { baselines: true });
      expect(plan.statistics.schedule.baselines.given + plan.statistics.persistentBytes).toBe(m.peakBytes);
      // Our own order never needs more than the file's.
      expect(plan.statistics.peakBytes).toBeLessThanOrEqual(plan.statistics.schedule.baselines.given);
    });

    it.each(FIXTURES)('%s: with the CUDA caching allocator\'s 512 B blocks every storage rounds up', (name, m) => {
      const exact = tp.plan(tp.importTorchExport(bytesOf(name), { alignment: 1 }).graph, { baselines: true }).statistics;
      const r = tp.importTorchExport(bytesOf(name));
      expect(r.graph.defaultAlignment).toBe(512);
      const rounded = tp.plan(r.graph, { baselines: true }).statistics;
      expect(rounded.persistentBytes % 512).toBe(0);
      expect(rounded.persistentBytes).toBeGreaterThanOrEqual(exact.persistentBytes);
      expect(rounded.schedule.baselines.given + rounded.persistentBytes).toBeGreaterThanOrEqual(m.peakBytes);
    });
  });

  it('joint graphs report what backward reads as saved for backward, and the gradients', () => {
    const r = importTorchExport(bytesOf('attention_joint'), { alignment: 1 });
    expect(r.joint).toBe(true);
    expect(r.categoryBytes['saved for backward']).toBeGreaterThan(0);
    // One gradient per parameter, each as large as its parameter.
    expect(r.categoryBytes.gradients).toBe(r.categoryBytes.parameters);
    expect(Object.values(r.categories)).toContain('saved for backward');
  });

  it('the training IR\'s BatchNorm writes its running statistics and num_batches_tracked in place', () => {
    const r = importTorchExport(bytesOf('conv_bn_training_ir'), { alignment: 1 });
    expect(r.verifiers).toEqual(['TRAINING']);
    // add_ on num_batches_tracked, batch_norm on running_mean and running_var.
    expect(r.inPlace).toBe(3);
    const bn = r.graph.ops.find((op) => op.op === 'aten.batch_norm.default')!;
    expect(bn.workspaceBytes).toBe(2 * 8 * 4); // save_mean and save_invstd, [C] float each
  });

  it('joint BatchNorm graphs copy their buffer mutations into the buffers after every node', () => {
    const r = importTorchExport(bytesOf('conv_bn_joint'), { alignment: 1 });
    const copies = r.graph.ops.filter((op) => op.op === 'aten.copy_.default');
    expect(copies.map((op) => op.inputs[1]).sort()).toEqual(['b_bn_num_batches_tracked', 'b_bn_running_mean', 'b_bn_running_var']);
    expect(r.graph.ops.slice(-3)).toEqual(copies);
  });
});

// Exported and measured on an NVIDIA H200 with torch 2.11.0+cu130 (schema 8.17) by
// test/fixtures/torch/measure_cuda.py on 2026-11-28: `held` is what the caching allocator gave the
// parameters, buffers and inputs, `activationsAllocated` torch.cuda.max_memory_allocated over one
// run less what was allocated before it. With the default 512 B alignment our persistent bytes
// equal `held` and the given-order peak equals `activationsAllocated`, except where noted.
const cudaDir = new URL('../../fixtures/torch/cuda/', import.meta.url).pathname;
const cuda = JSON.parse(readFileSync(`${cudaDir}measured.json`, 'utf8')) as { programs: Record<string, { held: number; activationsAllocated: number; live512: number }> };
// _scaled_dot_product_efficient_attention's philox seed and offset: tensor_values says cuda, but
// without dropout the kernel makes them as CPU scalars, which the CUDA allocator never sees
// (2 x 512 B here). The live-storage count (`live512`) sees them and equals ours.
const CPU_SCALARS: Record<string, number> = { attention_aten: 1024 };

describe.each(BACKENDS)('programs exported on CUDA, on %s', (backend) => {
  const tp = session(backend);
  it.each(Object.entries(cuda.programs))('%s: 512 B blocks give the CUDA caching allocator\'s bytes', (name, m) => {
    const r = tp.importTorchExport(new Uint8Array(readFileSync(`${cudaDir}${name}.pt2`)), { source: name });
    expect(r.schemaVersion).toBe('8.17');
    const s = tp.plan(r.graph, { baselines: true }).statistics;
    expect(s.persistentBytes).toBe(m.held);
    expect(s.schedule.baselines.given).toBe(m.activationsAllocated + (CPU_SCALARS[name] ?? 0));
    expect(s.schedule.baselines.given + s.persistentBytes).toBe(m.live512);
  });
});
