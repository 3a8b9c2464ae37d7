// TE's attention block of a TransformerLayer (TransformerEngine d0067d0da6,
// transformer_engine/pytorch/attention/multi_head_attention.py
// `MultiheadAttention`): LayerNormLinear (norm + QKV projection), core
// attention, Linear (output projection). Fused core attention saves Q, K, V
// (views into the QKV output), its output and the softmax statistics
// (attention/dot_product_attention/backends.py `FusedAttnFunc.forward`
// prepare_for_saving); unfused (`UnfusedDotProductAttention`) repeats K and V
// for GQA and saves the probabilities.
import type { AttentionSettings, Normalization } from '../layer-spec.js';
import type { GraphState } from './graph-state.js';
import { layerNormLinear } from './layernorm-linear.js';
import { linear } from './linear.js';
import type { Act, Bwd } from './values.js';

/** Core attention on a QKV projection output [tokens, (heads + 2 kv) · d] of this rank. */
function coreAttention(g: GraphState, module: string, qkv: Act, settings: AttentionSettings): { y: Act; bwd: Bwd } {
  const m = g.spec.model;
  const hl = m.heads / g.tp;
  const kvl = Math.max(1, (m.kvHeads ?? m.heads) / g.tp);
  const d = g.d;
  const T = qkv.rows;
  const b = m.microBatch;
  const s = T / b;
  const el = g.elementBytes(g.dtype);
  const qBytes = T * hl * d * el;
  const kvBytes = T * kvl * d * el;
  const q = g.view(`${module}.q`, qkv.name!, module, 'activation', { bytes: qBytes }, 0);
  const k = g.view(`${module}.k`, qkv.name!, module, 'activation', { bytes: kvBytes }, qBytes);
  const v = g.view(`${module}.v`, qkv.name!, module, 'activation', { bytes: kvBytes }, qBytes + kvBytes);
  const ws = settings.workspaceBytes ?? 0;
  const ctx = g.hp(`${module}.out`, T, hl * d, module, 'activation');
  if (settings.fused ?? true) {
    const lse = g.t(`${module}.softmax_stats`, { shape: [b, hl, s], dtype: 'fp32' }, module, 'activation');
    g.tag([q, k, v, ctx, lse], 'savedAttention');
    g.op(`${module}.fwd`, 'fused_attention', [q, k, v], [ctx, lse], ws);
    const bwd: Bwd = (dy) => {
      const dqkv = g.hp(`${module}.grad_in`, T, qkv.cols, module, 'gradient');
      g.op(`${module}.bwd`, 'fused_attention_bwd', [q, k, v, ctx, lse, dy.name], [dqkv], ws);
      return { name: dqkv, rows: T, cols: qkv.cols };
    };
    return { y: { name: ctx, rows: T, cols: hl * d }, bwd };
  }
  // Unfused (TE UnfusedDotProductAttention): GQA repeats K and V, QK^T, softmax, AV.
  let kk = k;
  let vv = v;
  if (kvl < hl) {
    kk = g.hp(`${module}.k_repeated`, T, hl * d, module, 'activation');
    vv = g.hp(`${module}.v_repeated`, T, hl * d, module, 'activation');
    g.op(`${module}.repeat_kv`, 'repeat_interleave', [k, v], [kk, vv]);
  }
  const scoreShape = { shape: [b, hl, s, s], dtype: g.dtype } as const;
  const scores = g.t(`${module}.scores`, { ...scoreShape, shape: [...scoreShape.shape] }, module, 'activation');
  const probs = g.t(`${module}.probs`, { ...scoreShape, shape: [...scoreShape.shape] }, module, 'activation');
  g.op(`${module}.qk`, 'bmm', [q, kk], [scores]);
  g.op(`${module}.softmax`, 'softmax', [scores], [probs]);
  g.op(`${module}.av`, 'bmm', [probs, vv], [ctx]);
  const bwd: Bwd = (dy) => {
    const dprobs = g.t(`${module}.grad_probs`, { ...scoreShape, shape: [...scoreShape.shape] }, module, 'gradient');
    const dscores = g.t(`${module}.grad_scores`, { ...scoreShape, shape: [...scoreShape.shape] }, module, 'gradient');
    const dvv = g.hp(`${module}.grad_v_full`, T, hl * d, module, 'gradient');
    const dq = g.hp(`${module}.grad_q`, T, hl * d, module, 'gradient');
    const dkk = g.hp(`${module}.grad_k_full`, T, hl * d, module, 'gradient');
    g.op(`${module}.grad_av_probs`, 'bmm', [dy.name, vv], [dprobs]);
    g.op(`${module}.grad_av_v`, 'bmm', [probs, dy.name], [dvv]);
    g.op(`${module}.softmax_bwd`, 'softmax_backward', [dprobs, probs], [dscores]);
    g.writer.inPlace(dscores, dprobs);
    g.op(`${module}.grad_qk_q`, 'bmm', [dscores, kk], [dq]);
    g.op(`${module}.grad_qk_k`, 'bmm', [dscores, q], [dkk]);
    let dk = dkk;
    let dv = dvv;
    if (kvl < hl) {
      dk = g.hp(`${module}.grad_k`, T, kvl * d, module, 'gradient');
      dv = g.hp(`${module}.grad_v`, T, kvl * d, module, 'gradient');
      g.op(`${module}.reduce_kv`, 'sum_heads', [dkk, dvv], [dk, dv]);
    }
    // Autograd's backward of the QKV split concatenates into a new buffer.
    const dqkv = g.hp(`${module}.grad_in`, T, qkv.cols, module, 'gradient');
    g.op(`${module}.grad_concat`, 'cat', [dq, dk, dv], [dqkv]);
    return { name: dqkv, rows: T, cols: qkv.cols };
  };
  return { y: { name: ctx, rows: T, cols: hl * d }, bwd };
}

/** TE TransformerLayer's attention: LayerNormLinear (ln1 + qkv), core attention, Linear (proj). */
export function attentionBlock(g: GraphState, x: Act, normalization: Normalization, settings: AttentionSettings): { y: Act; bwd: Bwd } {
  const m = g.spec.model;
  const hl = m.heads / g.tp;
  const kvl = Math.max(1, (m.kvHeads ?? m.heads) / g.tp);
  const qkv = layerNormLinear(g, { normModule: 'ln1', module: 'qkv', x, normalization, out: (hl + 2 * kvl) * g.d, parallel: 'column' });
  const core = coreAttention(g, 'attn', qkv.y, settings);
  const proj = linear(g, { module: 'proj', x: core.y, out: m.hidden, parallel: 'row', unit: 'dense' });
  return {
    y: proj.y,
    bwd: (dy) => qkv.bwd(core.bwd(proj.bwd(dy))),
  };
}
