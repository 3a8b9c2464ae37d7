// Saved-for-backward tensors of TE's Linear, LayerNormLinear, LayerNormMLP and
// GroupedLinear per recipe, checked against shapes and byte counts worked out by
// hand from FORMATS.md §2 and §6, and against what TransformerEngine main at
// d0067d0da6 saves (transformer_engine/pytorch/module/*.py, cited per test).
import { describe, expect, it } from 'vitest';
import type { LayerGraph, LayerSpec } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';

/** x [128, 128] bf16 into a Linear with W [256, 128]. */
function linearSpec(recipe: LayerSpec['recipe'], arch?: 'hopper' | 'blackwell', parallel?: LayerSpec['parallel']): LayerSpec {
  return {
    format: 'tensorplan.layers', version: 1, name: 'one linear',
    model: { hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 2 },
    recipe, ...(arch ? { arch } : {}), ...(parallel ? { parallel } : {}),
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

/** The op that reads a tensor last in the generated order: the tensor dies after it. */
function diesAfter(lg: LayerGraph, tensor: string): string | undefined {
  let last: string | undefined;
  for (const op of lg.graph.ops) if (op.inputs.includes(tensor)) last = op.name;
  return last;
}

// [recipe, arch, saved input buffers, saved weight buffers]; bytes by hand:
// MXFP8 columnwise scale (roundup(M/32,4), roundup(K,128)) u8; FP8 per-tensor
// transpose on Hopper, _data on Blackwell, scale_inv 4 B shared; NVFP4
// columnwise data [K, M/2], scale (roundup(K,128), roundup(M/16,4)), amax 4 B;
// block FP8 1D columnwise scale (M/128, roundup(K,4)) f32, 2D (K/128, roundup(M/128,4)) f32.
// The weight W [256, 128] is saved whole, both usages (savedQuantizedWeight):
// MXFP8 rowwise scale (roundup(256,128), roundup(4,4)) u8 = 1024 B; NVFP4 rowwise
// data [256, 64], scale (roundup(256,128), roundup(8,4)) = 2048 B, amax 4 B;
// block FP8 2D rowwise scale (256/128, roundup(1,4)) f32 = 32 B.
const MX_W = { _rowwise_data: 32768, _rowwise_scale_inv: 1024, _columnwise_data: 32768, _columnwise_scale_inv: 8 * 128 };
// `undefined` arch: the default follows the recipe (Blackwell for MXFP8: TE quantization.py _compute_mxfp8_support).
const CASES: [LayerSpec['recipe'], 'hopper' | 'blackwell' | undefined, Record<string, number>, Record<string, number>][] = [
  ['mxfp8', undefined, { _columnwise_data: 16384, _columnwise_scale_inv: 4 * 128 }, MX_W],
  ['mxfp8', 'blackwell', { _columnwise_data: 16384, _columnwise_scale_inv: 512 }, MX_W],
  ['fp8_delayed', 'hopper', { _transpose: 16384, _scale_inv: 4 }, { _data: 32768, _transpose: 32768, _scale_inv: 4 }],
  ['fp8_current', 'hopper', { _transpose: 16384, _scale_inv: 4 }, { _data: 32768, _transpose: 32768, _scale_inv: 4 }],
  ['fp8_current', 'blackwell', { _data: 16384, _scale_inv: 4 }, { _data: 32768, _scale_inv: 4 }],
  ['nvfp4', 'blackwell', { _columnwise_data: 128 * 64, _columnwise_scale_inv: 128 * 8, _amax_columnwise: 4 },
    { _rowwise_data: 256 * 64, _rowwise_scale_inv: 256 * 8, _amax_rowwise: 4, _columnwise_data: 128 * 128, _columnwise_scale_inv: 128 * 16, _amax_columnwise: 4 }],
  ['fp8_block', 'hopper', { _columnwise_data: 16384, _columnwise_scale_inv: 1 * 128 * 4 },
    { _rowwise_data: 32768, _rowwise_scale_inv: 2 * 4 * 4, _columnwise_data: 32768, _columnwise_scale_inv: 1 * 4 * 4 }],
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

  // TE d0067d0da6 module/linear.py _linear_forward_impl: the input drops its rowwise
  // usage (update_usage(rowwise_usage=False, columnwise_usage=True)); the per-step
  // weight is quantized with set_usage(rowwise=True, columnwise=is_grad_enabled ...),
  // update_usage(rowwise_usage=True) drops nothing, and wt_save = weightmat is saved
  // whole by prepare_for_saving. _Linear.backward releases it when the node returns,
  // after the wgrad GEMM (savedQuantizedWeight, heldUntilNodeEnd).
  it.each(CASES)('%s on %s keeps the columnwise input and the whole weight copy until wgrad', (recipe, arch, input, weight) => {
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
    for (const buffer of Object.keys(weight)) {
      if (!/rowwise|^_data$/.test(buffer) || buffer === '_scale_inv') expect(dgrad.inputs).toContain(`L0.linear.weight_q.${buffer.slice(1)}`);
    }
    // Every saved buffer dies after the wgrad GEMM, the last op of TE's Linear backward.
    for (const buffer of Object.keys(input)) expect(diesAfter(lg, `L0.linear.input.${buffer.slice(1)}`)).toBe('L0.linear.wgrad');
    for (const buffer of Object.keys(weight)) expect(diesAfter(lg, `L0.linear.weight_q.${buffer.slice(1)}`)).toBe('L0.linear.wgrad');
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

  // TE's modules quantize unconditionally; is_quantizable only
  // picks a high-precision all-gather (TE d0067d0da6, transformer_engine/pytorch/
  // distributed.py _all_gather_fp8_blockwise; module/linear.py _linear_forward_impl).
  it('block FP8 off multiples of 128 is still quantized (is_quantizable is about all-gather only)', () => {
    const spec = linearSpec('fp8_block');
    spec.model = { ...spec.model, sequence: 48 };
    const lg = tp.layerGraph(spec);
    expect(lg.graph.tensors.some((t) => t.name === 'L0.linear.saved_input')).toBe(false);
    // Input [96, 128] 1D: columnwise data 12288 B, columnwise scale (ceil(96/128), roundup(128,4)) f32 = 512 B.
    expect(savedBuffers(lg, 'input')).toEqual({ _columnwise_data: 12288, _columnwise_scale_inv: 512 });
    // The weight [256, 128] is quantized too, and saved whole.
    expect(savedBuffers(lg, 'weight_q')).toEqual({ _rowwise_data: 32768, _rowwise_scale_inv: 32, _columnwise_data: 32768, _columnwise_scale_inv: 16 });
  });

  it('MXFP8 that cannot be quantized is an error naming the tensor', () => {
    const spec = linearSpec('mxfp8');
    spec.model = { ...spec.model, sequence: 40 };
    expect(() => tp.layerGraph(spec)).toThrow(/L0\.linear\.input.*M % 32/);
  });

  it('TP=2 + SP column-parallel: local input saved, gathered for fprop, re-gathered for wgrad', () => {
    const lg = tp.layerGraph(linearSpec('mxfp8', 'blackwell', { tp: 2, sequenceParallel: true }));
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
    // Weight shard [128, 128], saved whole: rowwise scale (128, roundup(4,4)) = 512, columnwise (roundup(4,4), 128) = 512.
    expect(savedBuffers(lg, 'weight_q')).toEqual({ _rowwise_data: 16384, _rowwise_scale_inv: 512, _columnwise_data: 16384, _columnwise_scale_inv: 512 });
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

/** x [128, 128] into a LayerNormMLP (RMSNorm, GELU, FFN 256) or a LayerNormLinear (out 256). */
function lnSpec(kind: 'layernormMLP' | 'layernormLinear', recipe: LayerSpec['recipe'], arch: 'hopper' | 'blackwell'): LayerSpec {
  return {
    format: 'tensorplan.layers', version: 1, name: kind,
    model: { hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 2 },
    recipe, arch,
    layers: [kind === 'layernormMLP'
      ? { kind, activation: 'gelu', normalization: 'rmsnorm' }
      : { kind, outFeatures: 256, normalization: 'rmsnorm' }],
  };
}

/** Every buffer of a quantized tensor (`L0.<prefix>.`): TE attribute -> [bytes, saved]. */
function buffersOf(lg: LayerGraph, prefix: string): Record<string, [number, boolean]> {
  const out: Record<string, [number, boolean]> = {};
  for (const t of lg.graph.tensors) {
    const info = lg.tensors[t.name];
    if (t.name.startsWith(`L0.${prefix}.`) && info.buffer) out[info.buffer] = [t.bytes!, info.saved];
  }
  return out;
}

const QUANTIZED: [LayerSpec['recipe'], 'hopper' | 'blackwell'][] = [
  ['fp8_delayed', 'hopper'], ['fp8_current', 'hopper'], ['fp8_current', 'blackwell'], ['mxfp8', 'blackwell'], ['nvfp4', 'blackwell'], ['fp8_block', 'hopper'],
];

describe.each(BACKENDS)('saved tensors of LayerNormMLP, LayerNormLinear and GroupedLinear per recipe (%s)', (backend) => {
  const tp = session(backend);

  // TE d0067d0da6 module/layernorm_mlp.py _LayerNormMLP._forward: ln_out is quantized
  // with fc1_input_quantizer.set_usage(rowwise=True, columnwise=backwards_needs_fc1_input)
  // and never update_usage(rowwise_usage=False); prepare_for_saving(..., ln_out,
  // fc1_wt_save, ..., act_out, fc2_wt_save, ...). _LayerNormMLP.backward clears act_out
  // after FC2 wgrad and ln_out_total after FC1 wgrad; the weight copies stay in ctx
  // until the node returns, after rmsnorm_bwd (savedQuantizedWeight, lnOutBothUsages, heldUntilNodeEnd).
  it.each(QUANTIZED)('LayerNormMLP %s on %s: ln_out and both weight copies saved whole; each dies when TE frees it', (recipe, arch) => {
    const lg = tp.layerGraph(lnSpec('layernormMLP', recipe, arch));
    // ln_out [128, 128]: every buffer, both usages, saved; freed after FC1 wgrad.
    const lnOut = buffersOf(lg, 'ln2.out');
    expect(Object.keys(lnOut).some((b) => /rowwise|^_data$/.test(b))).toBe(true);
    expect(Object.keys(lnOut).some((b) => /columnwise|^_transpose$/.test(b) || (arch === 'blackwell' && b === '_data'))).toBe(true);
    for (const [buffer, [, saved]] of Object.entries(lnOut)) {
      expect(saved).toBe(true);
      expect(diesAfter(lg, `L0.ln2.out.${buffer.slice(1)}`)).toBe('L0.fc1.wgrad');
    }
    // FC1 W [256, 128] and FC2 W [128, 256]: whole copies, freed after the norm backward.
    for (const module of ['fc1', 'fc2']) {
      const w = buffersOf(lg, `${module}.weight_q`);
      expect(Object.keys(w).length).toBeGreaterThan(0);
      for (const [buffer, [, saved]] of Object.entries(w)) {
        expect(saved).toBe(true);
        expect(diesAfter(lg, `L0.${module}.weight_q.${buffer.slice(1)}`)).toBe('L0.ln2.bwd');
      }
    }
  });

  // act_out: TE LayerNormMLP._get_quantizers sets fc2_input_quantizer columnwise only for
  // MXFP8Quantizer, Float8BlockQuantizer and NVFP4Quantizer; FP8 per-tensor saves it
  // rowwise and _LayerNormMLP.backward calls act_out.update_usage(columnwise_usage=True)
  // before FC2 wgrad (a new _transpose on Hopper; _data serves both on Blackwell).
  it('LayerNormMLP act_out [128, 256]: both usages for MXFP8, NVFP4, block FP8; rowwise plus a backward transpose for FP8 per-tensor', () => {
    const mx = buffersOf(tp.layerGraph(lnSpec('layernormMLP', 'mxfp8', 'blackwell')), 'act.out');
    // MXFP8: data 32768 per usage, rowwise scale (128, roundup(8,4)) = 1024, columnwise (roundup(4,4), 256) = 1024.
    expect(mx).toEqual({ _rowwise_data: [32768, true], _rowwise_scale_inv: [1024, true], _columnwise_data: [32768, true], _columnwise_scale_inv: [1024, true] });
    const block = buffersOf(tp.layerGraph(lnSpec('layernormMLP', 'fp8_block', 'hopper')), 'act.out');
    expect(Object.values(block).every(([, saved]) => saved)).toBe(true);
    expect(Object.keys(block).sort()).toEqual(['_columnwise_data', '_columnwise_scale_inv', '_rowwise_data', '_rowwise_scale_inv']);
    const nv = buffersOf(tp.layerGraph(lnSpec('layernormMLP', 'nvfp4', 'blackwell')), 'act.out');
    expect(Object.keys(nv).filter((b) => b.includes('columnwise')).length).toBeGreaterThan(0);
    expect(Object.values(nv).every(([, saved]) => saved)).toBe(true);
    for (const lg of [tp.layerGraph(lnSpec('layernormMLP', 'mxfp8', 'blackwell'))]) {
      for (const buffer of Object.keys(mx)) expect(diesAfter(lg, `L0.act.out.${buffer.slice(1)}`)).toBe('L0.fc2.wgrad');
    }

    const hopper = tp.layerGraph(lnSpec('layernormMLP', 'fp8_current', 'hopper'));
    expect(buffersOf(hopper, 'act.out')).toEqual({ _data: [32768, true], _scale_inv: [4, true] });
    expect(diesAfter(hopper, 'L0.act.out.data')).toBe('L0.fc2.wgrad');
    const transpose = hopper.graph.ops.find((op) => op.name === 'L0.fc2.input_columnwise')!;
    expect(hopper.ops['L0.fc2.input_columnwise']).toBe('backward');
    expect(transpose.outputs).toEqual(['L0.fc2.input.transpose']);
    expect(hopper.graph.tensors.find((t) => t.name === 'L0.fc2.input.transpose')!.bytes).toBe(256 * 128);
    expect(hopper.tensors['L0.fc2.input.transpose'].saved).toBe(false);
    expect(hopper.graph.ops.find((op) => op.name === 'L0.fc2.wgrad')!.inputs).toContain('L0.fc2.input.transpose');

    const blackwell = tp.layerGraph(lnSpec('layernormMLP', 'fp8_current', 'blackwell'));
    expect(buffersOf(blackwell, 'act.out')).toEqual({ _data: [32768, true], _scale_inv: [4, true] });
    expect(blackwell.graph.ops.some((op) => op.name === 'L0.fc2.input_columnwise')).toBe(false);
    expect(blackwell.graph.ops.find((op) => op.name === 'L0.fc2.wgrad')!.inputs).toContain('L0.act.out.data');
  });

  // TE d0067d0da6 module/layernorm_linear.py _LayerNormLinear.forward: ln_out.update_usage(
  // rowwise_usage=False) before saving; wt_save = weightmat (both usages) is released when
  // _LayerNormLinear.backward returns, after rmsnorm_bwd (savedQuantizedWeight, heldUntilNodeEnd).
  it.each(QUANTIZED)('LayerNormLinear %s on %s: columnwise ln_out until wgrad, the whole weight copy until the norm backward', (recipe, arch) => {
    const lg = tp.layerGraph(lnSpec('layernormLinear', recipe, arch));
    for (const [buffer, [, saved]] of Object.entries(buffersOf(lg, 'ln.out'))) {
      if (saved) expect(diesAfter(lg, `L0.ln.out.${buffer.slice(1)}`)).toBe('L0.linear.wgrad');
      else expect(buffer).toMatch(/rowwise|^_data$/);
    }
    const w = buffersOf(lg, 'linear.weight_q');
    expect(Object.keys(w).some((b) => /rowwise|^_data$/.test(b))).toBe(true);
    for (const [buffer, [, saved]] of Object.entries(w)) {
      expect(saved).toBe(true);
      expect(diesAfter(lg, `L0.linear.weight_q.${buffer.slice(1)}`)).toBe('L0.ln.bwd');
    }
  });

  // TE d0067d0da6 module/grouped_linear.py _GroupedLinear.forward: weight_quantizer.set_usage(
  // rowwise=True, columnwise=columnwise_usage) and prepare_for_saving(*inputmats, *weights_fp8, ...);
  // released when _GroupedLinear.backward returns, after the grouped wgrad.
  it.each(QUANTIZED)('GroupedLinear %s on %s: every expert weight copy saved whole until wgrad', (recipe, arch) => {
    const lg = tp.layerGraph({
      format: 'tensorplan.layers', version: 1,
      model: { hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 2 }, recipe, arch,
      layers: [{ kind: 'groupedLinear', groups: 2, outFeatures: 128, tokensPerGroup: [64, 64] }],
    });
    for (const e of [0, 1]) {
      const w = buffersOf(lg, `grouped.e${e}.weight_q`);
      expect(Object.keys(w).some((b) => /rowwise|^_data$/.test(b))).toBe(true);
      for (const [buffer, [, saved]] of Object.entries(w)) {
        expect(saved).toBe(true);
        expect(diesAfter(lg, `L0.grouped.e${e}.weight_q.${buffer.slice(1)}`)).toBe('L0.grouped.wgrad');
      }
    }
  });

  it('bf16: LayerNormMLP and LayerNormLinear hold nothing extra; op-set ops keep their inputs', () => {
    const mlp = tp.layerGraph(lnSpec('layernormMLP', 'bf16', 'hopper'));
    expect(mlp.graph.ops.find((op) => op.name === 'L0.ln2.bwd')!.inputs).toEqual(['L0.fc1.grad_in', 'L0.ln2.saved_input', 'L0.ln2.weight', 'L0.ln2.rsigma']);
    expect(mlp.graph.ops.find((op) => op.name === 'L0.fc2.wgrad')!.op).toBe('matmul');
    expect(mlp.graph.ops.find((op) => op.name === 'L0.fc2.wgrad')!.inputs).toHaveLength(2);
    const lin = tp.layerGraph(lnSpec('layernormLinear', 'bf16', 'hopper'));
    expect(lin.graph.ops.find((op) => op.name === 'L0.ln.bwd')!.inputs).toHaveLength(4);
  });
});
