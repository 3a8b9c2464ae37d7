// LayerNorm and RMSNorm as TE runs them in front of a Linear (TransformerEngine
// d0067d0da6, transformer_engine/pytorch/module/layernorm_linear.py
// `_LayerNormLinear.forward`, layernorm_mlp.py `_LayerNormMLP._forward`;
// csrc/extensions/normalization.cpp `layernorm_fwd`, `rmsnorm_fwd`): the input
// (a view) and mu/rsigma are saved for the backward; the quantized output is
// written by the kernel itself where TE has a fused kernel for the recipe, else
// through a high-precision temporary (te-transients.ts normHasTemporary).
import type { Normalization } from '../layer-spec.js';
import { normHasTemporary } from '../te-transients.js';
import { type GraphState, invalid } from './graph-state.js';
import { rowwiseOnlyGather } from './parallelism.js';
import { param, wgrad } from './parameters.js';
import { quantized } from './quantized-tensors.js';
import { type Act, type Bwd, type Parallel, type Usage, all } from './values.js';

/**
 * The usages a norm's quantized output is made with when it feeds a Linear of
 * the given parallel mode: rowwise only for FP8 per-tensor under SP
 * (rowwiseOnlyGather), else both.
 */
export function normUsages(g: GraphState, parallel: Parallel): Usage[] {
  return rowwiseOnlyGather(g, parallel) ? ['rowwise'] : ['rowwise', 'columnwise'];
}

/** LayerNorm / RMSNorm; with a quantized recipe the kernel writes the quantized output directly (fused cast). */
export function norm(g: GraphState, module: string, x: Act, kind: Normalization, quantize: boolean,
  usages: Usage[] = ['rowwise', 'columnwise']): { y: Act; bwd: Bwd } {
  if (!x.name) invalid(`${module}: norm input must be high precision`);
  const h = x.cols;
  const gamma = param(g, module, [h]);
  // TE's LayerNorm has a bias (beta); RMSNorm has none.
  const beta = kind === 'layernorm' ? [param(g, module, [h], 'bias')] : [];
  const saved = g.view(`${module}.saved_input`, x.name, module, 'activation', { shape: [x.rows, h], dtype: g.dtype });
  const stats: string[] = [];
  if (kind === 'layernorm') stats.push(g.t(`${module}.mu`, { shape: [x.rows], dtype: 'fp32' }, module, 'activation'));
  stats.push(g.t(`${module}.rsigma`, { shape: [x.rows], dtype: 'fp32' }, module, 'activation'));
  g.tag([saved, ...stats], 'savedNormInput');
  let y: Act;
  const q = quantize ? quantized(g, `${module}.out`, [x.rows, h], g.roles.inputs, usages, module, 'quantizedActivation') : undefined;
  if (q && normHasTemporary(g.roles.inputs, g.spec.cudnnNorms ?? false, x.rows, h)) {
    // TE computes the norm into a high-precision temporary, then quantizes it
    // (normQuantizeTemporary): it lives across this op pair only.
    const tmp = g.hp(`${module}.out_hp`, x.rows, h, module, 'activation');
    g.tag([tmp], 'normQuantizeTemporary');
    g.op(`${module}.fwd`, kind, [x.name, gamma, ...beta], [tmp, ...stats]);
    g.op(`${module}.out_quantize`, 'quantize', [tmp], all(q));
    y = { q, rows: x.rows, cols: h };
  } else if (q) {
    g.op(`${module}.fwd`, kind, [x.name, gamma, ...beta], [...all(q), ...stats]);
    y = { q, rows: x.rows, cols: h };
  } else {
    const out = g.hp(`${module}.out`, x.rows, h, module, 'activation');
    g.op(`${module}.fwd`, kind, [x.name, gamma, ...beta], [out, ...stats]);
    y = { name: out, rows: x.rows, cols: h };
  }
  const bwd: Bwd = (dy) => {
    const dx = g.hp(`${module}.grad_in`, x.rows, h, module, 'gradient');
    const dgamma = wgrad(g, module, [h], '', false);
    const dbeta = beta.length > 0 ? [wgrad(g, module, [h], '', false, 'bias_wgrad')] : [];
    // Op set v1 order: dy, x, gamma, [mean,] rstd -> dx, dgamma[, dbeta].
    g.op(`${module}.bwd`, `${kind}_backward`, [dy.name, saved, gamma, ...stats], [dx, dgamma, ...dbeta]);
    return { name: dx, rows: x.rows, cols: h };
  };
  return { y, bwd };
}
