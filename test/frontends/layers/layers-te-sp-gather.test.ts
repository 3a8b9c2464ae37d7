// Sequence parallelism: what TransformerEngine quantizes before the
// input all-gather and what it saves of the rank-local input, per recipe.
// TE main at d0067d0da6cb01811b8072a7d304f0e00344ce2b:
// - tensor/float8_tensor.py Float8Quantizer / Float8CurrentScalingQuantizer
//   .supports_only_rowwise_all_gather() is True (quantized_tensor.py: False for the rest);
// - module/linear.py _linear_forward_impl, module/layernorm_linear.py
//   _LayerNormLinear.forward, module/layernorm_mlp.py _LayerNormMLP._forward:
//   with SP such a quantizer gets set_usage(columnwise=False) before the norm
//   or cast, so the local input is rowwise only and saved rowwise;
// - module/_common.py set_quantizer_usage_for_wgrad_all_gather: backward
//   gathers it rowwise again, then update_usage(columnwise_usage=True) on the
//   gathered copy builds the transpose (Hopper) for wgrad;
// - module/layernorm_linear.py: ln_out.update_usage(rowwise_usage=False) only
//   for MXFP8 and block FP8 (or without a gather): NVFP4 keeps both usages,
//   and backward frees ln_out after wgrad (clear_tensor_data(ln_out)).
import { describe, expect, it } from 'vitest';
import type { LayerGraph, LayerSpec } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';

type Recipe = 'fp8_current' | 'fp8_delayed' | 'mxfp8' | 'nvfp4';

/** One LayerNormLinear (column parallel) or LayerNormMLP at TP=2 with SP: local rows 64, gathered 128. */
const spec = (recipe: Recipe, arch: 'hopper' | 'blackwell', kind: 'layernormLinear' | 'layernormMLP'): LayerSpec => ({
  format: 'tensorplan.layers', version: 1, name: `sp ${recipe} ${kind}`,
  model: { hidden: 128, ffn: 256, heads: 2, sequence: 64, microBatch: 2 },
  parallel: { tp: 2, sequenceParallel: true },
  recipe, arch,
  layers: kind === 'layernormLinear' ? [{ kind, outFeatures: 256, parallel: 'column' }] : [{ kind, activation: 'gelu' }],
});

const tensorsUnder = (lg: LayerGraph, prefix: string) => lg.graph.tensors.filter((t) => t.name.startsWith(prefix)).map((t) => t.name);
const op = (lg: LayerGraph, name: string) => {
  const found = lg.graph.ops.find((o) => o.name === name);
  if (!found) throw new Error(`no op ${name}`);
  return found;
};
/** Ops that read a tensor, in graph order. */
const readers = (lg: LayerGraph, tensor: string) => lg.graph.ops.filter((o) => o.inputs.includes(tensor)).map((o) => o.name);

describe.each(BACKENDS)('SP input all-gather as TE does it (%s)', (backend) => {
  const tp = session(backend);

  it.each(['fp8_current', 'fp8_delayed'] as const)('%s on Hopper, LayerNormLinear: the local norm output is rowwise only, re-gathered rowwise, transposed for wgrad', (recipe) => {
    const lg = tp.layerGraph(spec(recipe, 'hopper', 'layernormLinear'));
    // Forward: no local transpose (set_usage(columnwise=False) before the norm).
    expect(tensorsUnder(lg, 'L0.ln.out.').sort()).toEqual(['L0.ln.out.data', 'L0.ln.out.scale_inv']);
    const local = 'L0.ln.out.data';
    expect(lg.tensors[local].saved).toBe(true);
    // Backward: gathered again rowwise (128 rows), then the transpose of the gathered copy.
    const regather = op(lg, 'L0.linear.input_regather');
    expect(regather.inputs).toContain(local);
    expect(regather.outputs.some((t) => lg.tensors[t].buffer === '_data')).toBe(true);
    const transpose = op(lg, 'L0.linear.input_regathered_columnwise');
    expect(transpose.outputs.map((t) => lg.tensors[t].buffer)).toEqual(['_transpose']);
    const full = lg.graph.tensors.find((t) => t.name === transpose.outputs[0])!;
    expect(full.bytes).toBe(128 * 128);  // [in, rows gathered] of FP8
    expect(op(lg, 'L0.linear.wgrad').inputs).toContain(transpose.outputs[0]);
    // LayerNormLinear frees ln_out after wgrad: the wgrad holds it.
    expect(readers(lg, local)).toContain('L0.linear.wgrad');
    expect(readers(lg, local)).not.toContain('L0.ln.bwd');
  });

  it('fp8_current on Blackwell: the gathered rowwise data serves wgrad, no transpose is made', () => {
    const lg = tp.layerGraph(spec('fp8_current', 'blackwell', 'layernormLinear'));
    expect(lg.graph.ops.some((o) => o.name === 'L0.linear.input_regathered_columnwise')).toBe(false);
    const regathered = op(lg, 'L0.linear.input_regather').outputs;
    expect(op(lg, 'L0.linear.wgrad').inputs.some((t) => regathered.includes(t))).toBe(true);
  });

  it('MXFP8: both usages are made locally, the columnwise ones are saved and re-gathered (not rowwise-only)', () => {
    const lg = tp.layerGraph(spec('mxfp8', 'blackwell', 'layernormLinear'));
    const local = tensorsUnder(lg, 'L0.ln.out.');
    const columnwise = local.filter((t) => lg.tensors[t].buffer!.startsWith('_columnwise'));
    const rowwise = local.filter((t) => lg.tensors[t].buffer!.startsWith('_rowwise'));
    expect(columnwise.length).toBeGreaterThan(0);
    expect(rowwise.length).toBeGreaterThan(0);
    for (const t of columnwise) expect(readers(lg, t)).toContain('L0.linear.input_regather');
    // update_usage(rowwise_usage=False): the rowwise usage is not kept for backward.
    for (const t of rowwise) expect(readers(lg, t)).not.toContain('L0.linear.wgrad');
    // The local columnwise ln_out lives until wgrad (clear_tensor_data(ln_out)).
    for (const t of columnwise) expect(readers(lg, t)).toContain('L0.linear.wgrad');
  });

  it('NVFP4 LayerNormLinear keeps the rowwise usage of the local ln_out until wgrad (no update_usage for NVFP4 with a gather)', () => {
    const lg = tp.layerGraph(spec('nvfp4', 'blackwell', 'layernormLinear'));
    const rowwise = tensorsUnder(lg, 'L0.ln.out.').filter((t) => lg.tensors[t].buffer!.startsWith('_rowwise'));
    expect(rowwise.length).toBeGreaterThan(0);
    for (const t of rowwise) expect(readers(lg, t)).toContain('L0.linear.wgrad');
    // MXFP8 drops it (checked above); the difference is exactly these bytes held into backward.
  });

  it('LayerNormMLP with FP8 per-tensor on Hopper: FC1 input rowwise only, held until the node ends (after the norm backward)', () => {
    const lg = tp.layerGraph(spec('fp8_current', 'hopper', 'layernormMLP'));
    expect(tensorsUnder(lg, 'L0.ln2.out.').sort()).toEqual(['L0.ln2.out.data', 'L0.ln2.out.scale_inv']);
    expect(readers(lg, 'L0.ln2.out.data')).toContain('L0.ln2.bwd');
    expect(op(lg, 'L0.fc1.input_regathered_columnwise').outputs.map((t) => lg.tensors[t].buffer)).toEqual(['_transpose']);
  });

  it.each(['fp8_current', 'nvfp4'] as const)('%s SP graphs plan and validate with no diagnostic', (recipe) => {
    for (const kind of ['layernormLinear', 'layernormMLP'] as const) {
      const lg = tp.layerGraph(spec(recipe, recipe === 'nvfp4' ? 'blackwell' : 'hopper', kind));
      expect(tp.validate(tp.plan(lg.graph))).toEqual([]);
    }
  });
});

// Rule 7 for formats: c_api.h TP_RECIPE_LIST's last column is the lowest arch
// TE runs a recipe on (quantization.py _compute_mxfp8_support, _compute_nvfp4_support).
describe.each(BACKENDS)('formats: MXFP8 and NVFP4 need Blackwell (%s)', (backend) => {
  const tp = session(backend);

  it.each(['mxfp8', 'nvfp4'] as const)('%s with arch hopper is refused by every format call, naming the TE check', (recipe) => {
    const format = { dtype: 'bf16' as const, recipe, arch: 'hopper' as const };
    const calls: [string, () => unknown][] = [
      ['tensorSpecBuffers', () => tp.tensorSpecBuffers({ ...format, shape: [128, 128] })],
      ['groupedLayout', () => tp.groupedLayout([[128, 128], [64, 128]], format)],
      ['splitQuantizeLayout', () => tp.splitQuantizeLayout([[128, 128]], format, 'rowwise')],
      ['quantize', () => tp.quantize({ ...format, dtype: 'fp32', shape: [128, 128] }, new Uint8Array(128 * 128 * 4))],
    ];
    for (const [name, call] of calls) {
      let message = '';
      try {
        call();
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, name).toContain('arch = hopper');
      expect(message, name).toContain(`_compute_${recipe}_support`);
    }
    // The session stays usable.
    expect(tp.tensorSpecBuffers({ ...format, arch: 'blackwell', shape: [128, 128] }).totalBytes).toBeGreaterThan(0);
  });

  it('without an arch a format gets the lowest TE runs its recipe on', () => {
    for (const recipe of ['mxfp8', 'nvfp4'] as const) {
      expect(tp.tensorSpecToJson({ shape: [128, 128], dtype: 'bf16', recipe }).arch).toBe('blackwell');
    }
    for (const recipe of ['none', 'fp8_delayed', 'fp8_current', 'fp8_block_1d', 'fp8_block_2d'] as const) {
      expect(tp.tensorSpecToJson({ shape: [128, 128], dtype: 'bf16', recipe }).arch).toBe('hopper');
    }
  });
});
