// Saved-for-backward tensors of TE's Linear per recipe, checked against shapes
// and byte counts worked out by hand from FORMATS.md §2 and §6.
import { describe, expect, it } from 'vitest';
import type { LayerGraph, LayerSpec } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';

/** x [128, 128] bf16 into a Linear with W [256, 128]. */
function linearSpec(recipe: LayerSpec['recipe'], arch: 'hopper' | 'blackwell' = 'hopper', parallel?: LayerSpec['parallel']): LayerSpec {
  return {
    format: 'tensorplan.layers', version: 1, name: 'one linear',
    model: { hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 2 },
    recipe, arch, ...(parallel ? { parallel } : {}),
    layers: [{ kind: 'linear', outFeatures: 256, parallel: parallel ? 'column' : 'none' }],
  };
}

/** Saved quantized buffers of one quantized tensor (`input` or `weight_q`) of the linear: TE attribute -> bytes. */
function savedBuffers(lg: LayerGraph, tensor: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of lg.graph.tensors) {
    const info = lg.tensors[t.name];
    if (!t.name.startsWith(`L0.linear.${tensor}.`) || !info.saved || !info.buffer) continue;
    out[info.buffer] = t.bytes!;
  }
  return out;
}

function allBuffers(lg: LayerGraph, tensor: string): string[] {
  return lg.graph.tensors.filter((t) => t.name.startsWith(`L0.linear.${tensor}.`)).map((t) => lg.tensors[t.name].buffer!);
}

// [recipe, arch, saved input buffers, saved weight buffers]; bytes by hand:
// MXFP8 columnwise scale (roundup(M/32,4), roundup(K,128)) u8; FP8 per-tensor
// transpose on Hopper, _data on Blackwell, scale_inv 4 B shared; NVFP4
// columnwise data [K, M/2], scale (roundup(K,128), roundup(M/16,4)), amax 4 B;
// block FP8 1D columnwise scale (M/128, roundup(K,4)) f32, 2D (K/128, roundup(M/128,4)) f32.
const CASES: [LayerSpec['recipe'], 'hopper' | 'blackwell', Record<string, number>, Record<string, number>][] = [
  ['mxfp8', 'hopper', { _columnwise_data: 16384, _columnwise_scale_inv: 4 * 128 }, { _columnwise_data: 32768, _columnwise_scale_inv: 8 * 128 }],
  ['mxfp8', 'blackwell', { _columnwise_data: 16384, _columnwise_scale_inv: 512 }, { _columnwise_data: 32768, _columnwise_scale_inv: 1024 }],
  ['fp8_delayed', 'hopper', { _transpose: 16384, _scale_inv: 4 }, { _transpose: 32768, _scale_inv: 4 }],
  ['fp8_current', 'hopper', { _transpose: 16384, _scale_inv: 4 }, { _transpose: 32768, _scale_inv: 4 }],
  ['fp8_current', 'blackwell', { _data: 16384, _scale_inv: 4 }, { _data: 32768, _scale_inv: 4 }],
  ['nvfp4', 'blackwell', { _columnwise_data: 128 * 64, _columnwise_scale_inv: 128 * 8, _amax_columnwise: 4 },
    { _columnwise_data: 128 * 128, _columnwise_scale_inv: 128 * 16, _amax_columnwise: 4 }],
  ['fp8_block', 'hopper', { _columnwise_data: 16384, _columnwise_scale_inv: 1 * 128 * 4 }, { _columnwise_data: 32768, _columnwise_scale_inv: 1 * 4 * 4 }],
];

describe.each(BACKENDS)('saved tensors of Linear per recipe (%s)', (backend) => {
  const tp = session(backend);

  it('bf16: the saved input is a view of the input object, not a copy', () => {
    const lg = tp.layerGraph(linearSpec('bf16'));
    expect(lg.graph.aliases).toContainEqual({ kind: 'view', tensor: 'L0.linear.saved_input', base: 'input', offset: 0 });
    const view = lg.graph.tensors.find((t) => t.name === 'L0.linear.saved_input')!;
    expect(view).toMatchObject({ shape: [128, 128], dtype: 'bf16' });
    expect(lg.tensors['L0.linear.saved_input'].saved).toBe(true);
    // Nothing else of the linear is kept for backward: the weight is read directly.
    const saved = Object.entries(lg.tensors).filter(([, info]) => info.saved && info.module === 'linear').map(([name]) => name);
    expect(saved).toEqual(['L0.linear.saved_input']);
    const wgrad = lg.graph.ops.find((op) => op.name === 'L0.linear.wgrad')!;
    expect(wgrad.inputs).toContain('L0.linear.saved_input');
  });

  it.each(CASES)('%s on %s keeps only the columnwise usage of input and weight', (recipe, arch, input, weight) => {
    const lg = tp.layerGraph(linearSpec(recipe, arch));
    expect(savedBuffers(lg, 'input')).toEqual(input);
    expect(savedBuffers(lg, 'weight_q')).toEqual(weight);
    // Rowwise-only buffers exist for the forward GEMM but are not kept.
    for (const name of allBuffers(lg, 'input')) {
      if (!(name in input)) expect(name).toMatch(/rowwise|^_data$/);
    }
    // The saved tensors are exactly what the wgrad and dgrad GEMMs read.
    const wgrad = lg.graph.ops.find((op) => op.name === 'L0.linear.wgrad')!;
    const dgrad = lg.graph.ops.find((op) => op.name === 'L0.linear.dgrad')!;
    for (const buffer of Object.keys(input)) expect(wgrad.inputs).toContain(`L0.linear.input.${buffer.slice(1)}`);
    for (const buffer of Object.keys(weight)) expect(dgrad.inputs).toContain(`L0.linear.weight_q.${buffer.slice(1)}`);
  });

  it('primary quantized weights (fp8_model_params) are persistent buffers; no per-step copy is saved', () => {
    const lg = tp.layerGraph({ ...linearSpec('mxfp8'), quantizedWeights: 'primary' });
    const persistent = lg.graph.persistent!.filter((n) => lg.tensors[n].role === 'weight');
    // W [256, 128] MXFP8: data 32768 B per usage, rowwise scale (256, roundup(4,4)) 1024 B, columnwise (roundup(8,4), 128) 1024 B.
    expect(persistent.map((n) => [lg.tensors[n].buffer, lg.graph.tensors.find((t) => t.name === n)!.bytes])).toEqual([
      ['_rowwise_data', 32768], ['_rowwise_scale_inv', 1024], ['_columnwise_data', 32768], ['_columnwise_scale_inv', 1024],
    ]);
    expect(lg.graph.ops.some((op) => op.name.endsWith('weight_cast'))).toBe(false);
    expect(savedBuffers(lg, 'weight_q')).toEqual({});
    expect(lg.graph.ops.find((op) => op.name === 'L0.linear.dgrad')!.inputs).toContain('L0.linear.weight.columnwise_data');
    // Master weights and optimizer state keep the logical shape in fp32.
    expect(lg.graph.tensors.find((t) => t.name === 'L0.linear.weight.master')).toMatchObject({ shape: [256, 128], dtype: 'fp32' });
    const perStep = tp.plan(tp.layerGraph(linearSpec('mxfp8')).graph).statistics.peakBytes;
    const plan = tp.plan(lg.graph);
    expect(tp.validate(plan)).toEqual([]);
    expect(plan.statistics.peakBytes).toBeLessThan(perStep);
  });

  it('gradients use E5M2 (HYBRID) for FP8 per-tensor and never get saved', () => {
    const lg = tp.layerGraph(linearSpec('fp8_delayed'));
    const grads = lg.graph.tensors.filter((t) => t.name.startsWith('L0.linear.grad_out.'));
    expect(grads.map((t) => [lg.tensors[t.name].buffer, t.bytes])).toEqual([['_data', 128 * 256], ['_transpose', 256 * 128], ['_scale_inv', 4]]);
    expect(grads.every((t) => !lg.tensors[t.name].saved)).toBe(true);
  });

  it('block FP8 off multiples of 128 stays in high precision (TE is_quantizable)', () => {
    const spec = linearSpec('fp8_block');
    spec.model = { ...spec.model, sequence: 48 };
    const lg = tp.layerGraph(spec);
    expect(lg.graph.tensors.some((t) => t.name.startsWith('L0.linear.input.'))).toBe(false);
    expect(lg.tensors['L0.linear.saved_input'].saved).toBe(true);
    // The weight [256, 128] is quantizable and still quantized.
    expect(savedBuffers(lg, 'weight_q')).toEqual({ _columnwise_data: 32768, _columnwise_scale_inv: 16 });
  });

  it('MXFP8 that cannot be quantized is an error naming the tensor', () => {
    const spec = linearSpec('mxfp8');
    spec.model = { ...spec.model, sequence: 40 };
    expect(() => tp.layerGraph(spec)).toThrow(/L0\.linear\.input.*M % 32/);
  });

  it('TP=2 + SP column-parallel: local input saved, gathered for fprop, re-gathered for wgrad', () => {
    const lg = tp.layerGraph(linearSpec('mxfp8', 'hopper', { tp: 2, sequenceParallel: true }));
    const shapeOf = (name: string) => lg.graph.tensors.find((t) => t.name === name);
    expect(shapeOf('input')).toMatchObject({ shape: [64, 128] });
    // Local [64, 128]: columnwise data 8192 B, scale (roundup(2,4), 128) = 512 B.
    expect(savedBuffers(lg, 'input')).toEqual({ _columnwise_data: 8192, _columnwise_scale_inv: 512 });
    // Gathered rowwise [128, 128] for fprop: data 16384, scale (128, roundup(4,4)) = 512.
    expect(shapeOf('L0.linear.input_gathered.rowwise_data')!.bytes).toBe(16384);
    expect(shapeOf('L0.linear.input_gathered.rowwise_scale_inv')!.bytes).toBe(512);
    expect(shapeOf('L0.linear.input_regathered.columnwise_data')!.bytes).toBe(16384);
    expect(lg.tensors['L0.linear.input_regathered.columnwise_data'].saved).toBe(false);
    // Output features are sharded: [128 tokens, 256 / 2].
    expect(shapeOf('L0.linear.out')).toMatchObject({ shape: [128, 128], dtype: 'bf16' });
    // Weight shard [128, 128]: columnwise scale (roundup(4,4), 128) = 512.
    expect(savedBuffers(lg, 'weight_q')).toEqual({ _columnwise_data: 16384, _columnwise_scale_inv: 512 });
    const rs = lg.graph.ops.find((op) => op.name === 'L0.linear.grad_reduce_scatter')!;
    expect(shapeOf(rs.outputs[0])).toMatchObject({ shape: [64, 128] });
  });

  it('GroupedLinear split-quantizes its input into one bulk allocation per usage; columnwise is saved', () => {
    const spec: LayerSpec = {
      format: 'tensorplan.layers', version: 1,
      model: { hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 2 },
      recipe: 'mxfp8',
      layers: [{ kind: 'groupedLinear', groups: 3, outFeatures: 64, tokensPerGroup: [32, 64, 32] }],
    };
    const lg = tp.layerGraph(spec);
    const groups = (lg.graph.aliases ?? []).filter((a) => a.kind === 'group') as { kind: 'group'; members: string[] }[];
    const row = groups.find((g) => g.members[0].startsWith('L0.grouped.input.rowwise'))!;
    const col = groups.find((g) => g.members[0].startsWith('L0.grouped.input.columnwise'))!;
    const bytes = (name: string) => lg.graph.tensors.find((t) => t.name === name)!;
    // Rowwise: data [32|64|32, 128] u8 (256 B aligned), then scales (roundup(M,128), roundup(4,4)) = 512 B each (16 B aligned).
    expect(row.members.map((m) => [bytes(m).bytes, bytes(m).alignment])).toEqual([
      [4096, 256], [8192, 256], [4096, 256], [512, 16], [512, 16], [512, 16],
    ]);
    // Columnwise scales (roundup(M/32,4), 128): 512 B each.
    expect(col.members.map((m) => bytes(m).bytes)).toEqual([4096, 8192, 4096, 512, 512, 512]);
    expect(row.members.every((m) => !lg.tensors[m].saved)).toBe(true);
    expect(col.members.every((m) => lg.tensors[m].saved)).toBe(true);
    // The same layout as TE split_quantize, computed by the core.
    const layout = tp.splitQuantizeLayout([[32, 128], [64, 128], [32, 128]], { dtype: 'bf16', recipe: 'mxfp8' }, 'rowwise');
    expect(layout.entries.map((e) => e.bytes)).toEqual(row.members.map((m) => bytes(m).bytes));
  });
});
