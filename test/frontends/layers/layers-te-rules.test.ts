// Where TransformerEngine refuses or changes a configuration,
// each checked against TE main at d0067d0da6cb01811b8072a7d304f0e00344ce2b
// (the file and function are cited per test).
import { describe, expect, it } from 'vitest';
import { LayerSpecBuilder, TensorplanError, compareLayerSpecs, parseLayerSpec } from '../../../dist/index.mjs';
import type { LayerGraph, LayerSpec } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
import { errorOf } from '../../support/errors';

/** x [128, 128] bf16 into a Linear with W [256, 128]. */
const linear = (extra: Partial<LayerSpec>): LayerSpec => ({
  format: 'tensorplan.layers', version: 1, name: 'one linear',
  model: { hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 2 },
  layers: [{ kind: 'linear', outFeatures: 256 }], ...extra,
});

const buffersOf = (lg: LayerGraph, prefix: string) =>
  lg.graph.tensors.filter((t) => t.name.startsWith(prefix)).map((t) => lg.tensors[t.name].buffer);


// Rule 7. TE d0067d0da6, transformer_engine/pytorch/quantization.py:
// _compute_mxfp8_support and _compute_nvfp4_support return false below compute
// capability 10.0, and FP8GlobalStateManager.autocast_enter asserts them for
// MXFP8BlockScaling and NVFP4BlockScaling. Hopper is SM 9.0.
describe('MXFP8 and NVFP4 need Blackwell (TE quantization.py _compute_mxfp8_support, _compute_nvfp4_support)', () => {
  const refused: [LayerSpec['recipe'], string, string][] = [
    ['mxfp8', 'recipe = mxfp8', '_compute_mxfp8_support'],
    ['nvfp4', 'recipe = nvfp4', '_compute_nvfp4_support'],
    [{ inputs: 'fp8_current', weights: 'nvfp4' }, 'recipe.weights = nvfp4', '_compute_nvfp4_support'],
    [{ gradients: 'mxfp8' }, 'recipe.gradients = mxfp8', '_compute_mxfp8_support'],
  ];

  it.each(refused)('%j on hopper is an error naming the TE check and its source', (recipe, field, rule) => {
    const error = errorOf(() => parseLayerSpec(linear({ recipe, arch: 'hopper' }), 'spec.json'));
    expect(error).toBeInstanceOf(TensorplanError);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('spec.json: arch = hopper');
    expect(error.message).toContain(`${field} needs compute capability 10.0`);
    expect(error.message).toContain(`transformer_engine/pytorch/quantization.py ${rule}`);
    expect(error.message).toContain('d0067d0da6');
    // The builder checks the same way as a file.
    const builder = new LayerSpecBuilder({ hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 2 })
      .recipe(recipe!).arch('hopper').linear({ outFeatures: 256 });
    expect(() => builder.build()).toThrow(rule);
  });

  it.each(['mxfp8', 'nvfp4'] as const)('%s is accepted on blackwell', (recipe) => {
    expect(parseLayerSpec(linear({ recipe, arch: 'blackwell' })).arch).toBe('blackwell');
  });

  it('recipes TE runs on Hopper stay accepted there (FP8 per-tensor, block FP8: quantization.py check_fp8_support, _compute_fp8_block_scaling_support)', () => {
    for (const recipe of ['bf16', 'fp8_delayed', 'fp8_current', 'fp8_block'] as const) {
      expect(() => parseLayerSpec(linear({ recipe, arch: 'hopper' }))).not.toThrow();
    }
  });

  describe.each(BACKENDS)('the default arch follows the recipe (%s)', (backend) => {
    const tp = session(backend);

    it('no arch with an MXFP8 or NVFP4 role plans for Blackwell; without one, for Hopper', () => {
      // The FP8 per-tensor input shows the arch: a _transpose on Hopper only (FORMATS.md §2.1).
      const mixed = tp.layerGraph(linear({ recipe: { inputs: 'fp8_current', weights: 'mxfp8' } }));
      expect(buffersOf(mixed, 'L0.linear.input.')).toEqual(['_data', '_scale_inv']);
      const fp8 = tp.layerGraph(linear({ recipe: 'fp8_current' }));
      expect(buffersOf(fp8, 'L0.linear.input.')).toEqual(['_data', '_transpose', '_scale_inv']);
      expect(() => tp.layerGraph(linear({ recipe: 'nvfp4' }))).not.toThrow();
    });

    it('tp.layerGraph and --compare arch=hopper refuse an MXFP8 spec', () => {
      expect(() => tp.layerGraph(linear({ recipe: 'mxfp8', arch: 'hopper' }))).toThrow(/_compute_mxfp8_support/);
      expect(() => compareLayerSpecs(tp, linear({ recipe: 'mxfp8' }), ['arch=hopper'])).toThrow(/arch = hopper: recipe = mxfp8/);
      const cmp = compareLayerSpecs(tp, linear({ recipe: 'bf16' }), ['recipe=mxfp8', 'arch=blackwell']);
      expect(cmp.rows.map((r) => r.label)).toEqual(['base', 'recipe=mxfp8', 'arch=blackwell']);
    });
  });
});

// Rule 6. TE d0067d0da6, transformer_engine/pytorch/utils.py assert_dim_for_fp8_exec,
// called with any quantized recipe by module/linear.py _linear_forward_impl (inputmat,
// weight), module/layernorm_linear.py _LayerNormLinear.forward and
// module/layernorm_mlp.py _LayerNormMLP._forward (inputmat, fc1_weight, fc2_weight):
// prod(shape[:-1]) % 8 and shape[-1] % 16 must be 0.
describe.each(BACKENDS)('TE assert_dim_for_fp8_exec (utils.py) and unconditional quantization (%s)', (backend) => {
  const tp = session(backend);

  it.each(['fp8_current', 'fp8_block', 'nvfp4'] as const)('%s: a GEMM input with rows % 8 != 0 is an error naming the tensor and the TE check', (recipe) => {
    const spec = linear({ recipe, model: { hidden: 128, ffn: 256, heads: 2, sequence: 60, microBatch: 1 } });
    const error = errorOf(() => tp.layerGraph(spec));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('L0.linear.input [60, 128]');
    expect(error.message).toContain('(60) must be divisible by 8');
    expect(error.message).toContain('transformer_engine/pytorch/utils.py assert_dim_for_fp8_exec');
    // The same shapes in high precision are fine: TE checks only under a quantized recipe.
    expect(() => tp.layerGraph({ ...spec, recipe: 'bf16' })).not.toThrow();
  });

  it('a weight whose leading dim is off 8 or last dim off 16 is an error naming the weight', () => {
    const rows = linear({ recipe: 'fp8_block', layers: [{ kind: 'linear', outFeatures: 100 }] });
    expect(() => tp.layerGraph(rows)).toThrow(/L0\.linear\.weight \[100, 128\].*\(100\) must be divisible by 8/);
    // LayerNormMLP's FC2 weight [hidden, ffn]: ffn 264 is a multiple of 8, not of 16.
    const fc2 = linear({ recipe: 'fp8_current', model: { hidden: 128, ffn: 264, heads: 2, sequence: 64, microBatch: 2 }, layers: [{ kind: 'layernormMLP' }] });
    expect(() => tp.layerGraph(fc2)).toThrow(/L0\.fc2\.weight \[128, 264\].*last dim \(264\) by 16/);
    expect(() => tp.layerGraph({ ...fc2, recipe: 'bf16' })).not.toThrow();
  });

  it('block FP8 with SP: a local shape is_quantizable rejects is gathered in high precision and quantized (distributed.py _all_gather_fp8_blockwise)', () => {
    // 128 tokens over TP=2: local [64, 128] is off 128 rows (not quantizable for all-gather); gathered [128, 128] is.
    const lg = tp.layerGraph(linear({
      recipe: 'fp8_block', model: { hidden: 128, ffn: 256, heads: 2, sequence: 128, microBatch: 1 },
      parallel: { tp: 2, sequenceParallel: true }, layers: [{ kind: 'linear', outFeatures: 256, parallel: 'column' }],
    }));
    const op = (name: string) => lg.graph.ops.find((o) => o.name === name)!;
    // The local input is quantized (both usages) all the same.
    expect(buffersOf(lg, 'L0.linear.input.')).toEqual(['_rowwise_data', '_rowwise_scale_inv', '_columnwise_data', '_columnwise_scale_inv']);
    expect(op('L0.linear.input_all_gather_dequantize').inputs).toEqual(['L0.linear.input.rowwise_data', 'L0.linear.input.rowwise_scale_inv']);
    expect(op('L0.linear.input_all_gather').inputs).toEqual(['L0.linear.input_gathered_local_hp']);
    expect(lg.graph.tensors.find((t) => t.name === 'L0.linear.input_gathered_hp')).toMatchObject({ shape: [128, 128], dtype: 'bf16' });
    expect(op('L0.linear.input_all_gather_cast').outputs).toEqual(['L0.linear.input_gathered.rowwise_data', 'L0.linear.input_gathered.rowwise_scale_inv']);
    expect(op('L0.linear.input_regather').inputs).toEqual(['L0.linear.input_regathered_local_hp']);
    const plan = tp.plan(lg.graph);
    expect(tp.validate(plan)).toEqual([]);
  });
});

// Rule 5. TE d0067d0da6: with is_first_microbatch given (Megatron-LM's TE wrappers pass
// it), transformer_engine/pytorch/module/linear.py Linear.forward sets cache_name =
// "weight" and keeps the workspace in self._fp8_workspaces (layernorm_linear.py the
// same, layernorm_mlp.py cache_name_fc1/cache_name_fc2, grouped_linear.py per weight);
// module/base.py quantize_weight(cache=True) returns it as a tensor that outlives the
// step; the quantizer has both usages in training (linear.py _linear_forward_impl,
// columnwise = is_grad_enabled). So the workspace is persistent, rowwise + columnwise.
describe.each(BACKENDS)('weight workspaces cached across micro-batches (TE linear.py cache_name, base.py quantize_weight) (%s)', (backend) => {
  const tp = session(backend);
  const cacheOf = (lg: LayerGraph) => (lg.graph.persistent ?? []).filter((n) => lg.tensors[n].role === 'quantizedWeight');
  const bytesOf = (lg: LayerGraph, n: string) => lg.graph.tensors.find((t) => t.name === n)!.bytes!;

  it('Linear MXFP8: the workspace is persistent with both usages, there is no per-step copy, and the summary reports it', () => {
    const spec = linear({ recipe: 'mxfp8', quantizedWeights: 'cached' });
    const lg = tp.layerGraph(spec);
    // W [256, 128] MXFP8: data 32768 B per usage, rowwise scale (256, roundup(4,4)) = 1024 B, columnwise (roundup(8,4), 128) = 1024 B.
    expect(cacheOf(lg).map((n) => [n, lg.tensors[n].buffer, bytesOf(lg, n)])).toEqual([
      ['L0.linear.weight_cache.rowwise_data', '_rowwise_data', 32768], ['L0.linear.weight_cache.rowwise_scale_inv', '_rowwise_scale_inv', 1024],
      ['L0.linear.weight_cache.columnwise_data', '_columnwise_data', 32768], ['L0.linear.weight_cache.columnwise_scale_inv', '_columnwise_scale_inv', 1024],
    ]);
    expect(lg.graph.tensors.some((t) => t.name.startsWith('L0.linear.weight_q.'))).toBe(false);
    // The high-precision weight, its master copy and optimizer state stay as they are.
    expect(lg.graph.persistent).toContain('L0.linear.weight');
    expect(lg.graph.persistent).toContain('L0.linear.weight.master');
    const op = (name: string) => lg.graph.ops.find((o) => o.name === name)!;
    expect(op('L0.linear.weight_cache_update').inputs).toEqual(['L0.linear.weight']);
    expect(op('L0.linear.fprop').inputs).toContain('L0.linear.weight_cache.rowwise_data');
    expect(op('L0.linear.dgrad').inputs).toContain('L0.linear.weight_cache.columnwise_data');
    const plan = tp.plan(lg.graph);
    expect(tp.validate(plan)).toEqual([]);
    const summary = tp.layerPlanSummary(lg, plan);
    expect(summary.persistent.quantizedWeightCache).toBe(32768 * 2 + 1024 * 2);
    const perStepLg = tp.layerGraph(linear({ recipe: 'mxfp8' }));
    const perStep = tp.layerPlanSummary(perStepLg, tp.plan(perStepLg.graph));
    expect(perStep.persistent.quantizedWeightCache).toBe(0);
    expect(summary.persistentBytes - perStep.persistentBytes).toBe(summary.persistent.quantizedWeightCache);
    // The per-step copy (67584 B, held until wgrad) leaves the arena.
    expect(summary.peakBytes).toBeLessThan(perStep.peakBytes);
    // --compare quantizedWeights=cached gives the same figures.
    const cmp = compareLayerSpecs(tp, linear({ recipe: 'mxfp8' }), ['quantizedWeights=cached']);
    expect(cmp.rows[1].deltaPersistentBytes).toBe(67584);
  });

  it('LayerNormMLP caches FC1 and FC2 (cache_name_fc1, cache_name_fc2); GroupedLinear each expert weight', () => {
    const mlp = tp.layerGraph(linear({ recipe: 'fp8_current', arch: 'hopper', quantizedWeights: 'cached', layers: [{ kind: 'layernormMLP' }] }));
    // FP8 per-tensor on Hopper: _data, _transpose, _scale_inv per weight.
    expect(cacheOf(mlp)).toEqual([
      'L0.fc1.weight_cache.data', 'L0.fc1.weight_cache.transpose', 'L0.fc1.weight_cache.scale_inv',
      'L0.fc2.weight_cache.data', 'L0.fc2.weight_cache.transpose', 'L0.fc2.weight_cache.scale_inv',
    ]);
    expect(tp.validate(tp.plan(mlp.graph))).toEqual([]);
    const grouped = tp.layerGraph(linear({ recipe: 'mxfp8', quantizedWeights: 'cached', layers: [{ kind: 'groupedLinear', groups: 2, outFeatures: 256 }] }));
    expect(cacheOf(grouped).length).toBe(2 * 4);
    expect(tp.validate(tp.plan(grouped.graph))).toEqual([]);
  });

  it('high precision has nothing to cache; the builder and the schema take the option', () => {
    const lg = tp.layerGraph(linear({ recipe: 'bf16', quantizedWeights: 'cached' }));
    expect(cacheOf(lg)).toEqual([]);
    const built = new LayerSpecBuilder({ hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 2 }, 'one linear')
      .recipe('mxfp8').quantizedWeights('cached').linear({ outFeatures: 256 }).build();
    expect(built.quantizedWeights).toBe('cached');
    expect(() => parseLayerSpec(linear({ quantizedWeights: 'sometimes' as 'cached' }))).toThrow(/quantizedWeights/);
  });
});

// Rule 4. High-precision transients TE allocates between a kernel and its quantize,
// TE d0067d0da6cb01811b8072a7d304f0e00344ce2b:
// - norm: csrc/extensions/normalization.cpp layernorm_fwd / rmsnorm_fwd (Impl::UNFUSED and
//   FUSED_NORM_AMAX_*; FULLY_FUSED only for FP8 delayed scaling, and for MXFP8 with
//   NVTE_NORM_FWD_USE_CUDNN and 128-multiple dimensions);
// - activation: csrc/extensions/activation.cpp activation_helper (FULLY_FUSED for FP8
//   delayed and MXFP8), module/layernorm_mlp.py _LayerNormMLP._forward (block FP8:
//   activation_func(fc1_out, None) then tex.quantize);
// - dact: module/layernorm_mlp.py _LayerNormMLP.backward and _get_act_func_supported_list
//   (a fused dbias_dact+quantize only for gelu/relu under FP8 delayed and MXFP8; gated
//   activations always get dact in high precision, then quantized).
describe.each(BACKENDS)('TE high-precision transients of norm, activation and dact (normalization.cpp, activation.cpp, layernorm_mlp.py) (%s)', (backend) => {
  const tp = session(backend);
  type Recipe = 'bf16' | 'fp8_delayed' | 'fp8_current' | 'mxfp8' | 'nvfp4' | 'fp8_block';
  const mlp = (recipe: Recipe, activation: 'swiglu' | 'gelu', extra: Partial<LayerSpec> = {}) =>
    tp.layerGraph(linear({ recipe, layers: [{ kind: 'layernormMLP', activation }], ...extra }));
  /** The transient's bytes and the ops that write and read it; undefined when the graph has none. */
  const span = (lg: LayerGraph, name: string) => {
    const t = lg.graph.tensors.find((x) => x.name === name);
    if (!t) return undefined;
    const writers = lg.graph.ops.filter((o) => o.outputs.includes(name)).map((o) => o.name);
    const readers = lg.graph.ops.filter((o) => o.inputs.includes(name)).map((o) => o.name);
    return { bytes: lgBytes(t), writers, readers, saved: lg.tensors[name].saved };
  };
  const lgBytes = (t: { shape?: number[]; dtype?: string; bytes?: number }) =>
    t.bytes ?? t.shape!.reduce((a, b) => a * b, 1) * (t.dtype === 'fp32' ? 4 : 2);

  // tokens 128, hidden 128, ffn 256 (bf16): norm out [128, 128] = 32768 B;
  // swiglu act out [128, 256] = 65536 B, dact [128, 512] = 131072 B; gelu dact [128, 256] = 65536 B.
  const normTmp = { bytes: 32768, writers: ['L0.ln2.fwd'], readers: ['L0.ln2.out_quantize'], saved: false };
  const actTmp = { bytes: 65536, writers: ['L0.act.fwd'], readers: ['L0.act.out_quantize'], saved: false };
  const dact = (bytes: number) => ({ bytes, writers: ['L0.act.bwd'], readers: ['L0.act.grad_quantize'], saved: false });
  const cases: [Recipe, 'swiglu' | 'gelu', object | undefined, object | undefined, object | undefined][] = [
    ['bf16', 'swiglu', undefined, undefined, undefined],
    ['fp8_delayed', 'swiglu', undefined, undefined, dact(131072)],
    ['fp8_delayed', 'gelu', undefined, undefined, undefined],
    ['mxfp8', 'swiglu', normTmp, undefined, dact(131072)],
    ['mxfp8', 'gelu', normTmp, undefined, undefined],
    ['fp8_current', 'swiglu', normTmp, actTmp, dact(131072)],
    ['fp8_current', 'gelu', normTmp, actTmp, dact(65536)],
    ['nvfp4', 'swiglu', normTmp, actTmp, dact(131072)],
    ['fp8_block', 'gelu', normTmp, actTmp, dact(65536)],
  ];

  it.each(cases)('%s %s: the norm, activation and dact transients, their bytes and the op pair they span', (recipe, act, norm, actOut, dgrad) => {
    const lg = mlp(recipe, act);
    expect(span(lg, 'L0.ln2.out_hp')).toEqual(norm);
    expect(span(lg, 'L0.act.out_hp')).toEqual(actOut);
    expect(span(lg, 'L0.act.dact')).toEqual(dgrad);
    if (dgrad) {
      // fc1_out is cleared only after dact is quantized (clear_tensor_data(fc1_out, ...)).
      expect(lg.graph.ops.find((o) => o.name === 'L0.act.grad_quantize')!.inputs).toContain('L0.act.saved_input');
    }
    const plan = tp.plan(lg.graph);
    expect(tp.validate(plan)).toEqual([]);
  });

  it('cudnnNorms (NVTE_NORM_FWD_USE_CUDNN) removes the MXFP8 norm temporary only with 128x128 tiles, and no other recipe\'s', () => {
    expect(span(mlp('mxfp8', 'gelu', { cudnnNorms: true }), 'L0.ln2.out_hp')).toBeUndefined();
    const plain = mlp('mxfp8', 'gelu');
    const cudnn = mlp('mxfp8', 'gelu', { cudnnNorms: true });
    expect(cudnn.graph.ops.some((o) => o.name === 'L0.ln2.out_quantize')).toBe(false);
    expect(tp.layerPlanSummary(cudnn, tp.plan(cudnn.graph)).peakBytes)
      .toBeLessThanOrEqual(tp.layerPlanSummary(plain, tp.plan(plain.graph)).peakBytes);
    // 192 rows: not a whole number of 128-row tiles, TE stays unfused.
    const rows192 = tp.layerGraph(linear({ recipe: 'mxfp8', cudnnNorms: true, model: { hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 3 }, layers: [{ kind: 'layernormMLP' }] }));
    expect(span(rows192, 'L0.ln2.out_hp')?.bytes).toBe(192 * 128 * 2);
    // FP8 current scaling and NVFP4 quantize after the norm with cuDNN too (Impl::UNFUSED).
    for (const recipe of ['fp8_current', 'nvfp4'] as const) expect(span(mlp(recipe, 'gelu', { cudnnNorms: true }), 'L0.ln2.out_hp')).toEqual(normTmp);
    const built = new LayerSpecBuilder({ hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 2 }, 'one linear')
      .recipe('mxfp8').cudnnNorms().layernormMLP({}).build();
    expect(built.cudnnNorms).toBe(true);
    expect(() => parseLayerSpec(linear({ cudnnNorms: 'yes' as unknown as boolean }))).toThrow(/cudnnNorms/);
  });

  it('a transformer layer gets the attention norm temporary too (LayerNormLinear QKV)', () => {
    const lg = tp.layerGraph(linear({ recipe: 'mxfp8', layers: [{ kind: 'transformer' }] }));
    expect(span(lg, 'L0.ln1.out_hp')).toEqual({ bytes: 32768, writers: ['L0.ln1.fwd'], readers: ['L0.ln1.out_quantize'], saved: false });
    expect(span(lg, 'L0.ln2.out_hp')).toEqual(normTmp);
    expect(tp.validate(tp.plan(lg.graph))).toEqual([]);
  });
});
