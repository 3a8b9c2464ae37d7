// Shape rules for the attention operators of the default domain and ai.onnx.preview, and the
// operators new LLM exports put around them (RotaryEmbedding, TensorScatter, LinearAttention,
// CausalConvWithState, SwiGLU). Each follows the operator's schema in onnx 1.23.1
// (onnx/defs/nn/defs.cc for Attention, RotaryEmbedding, LinearAttention, CausalConvWithState,
// FlexAttention; onnx/defs/math/defs.cc for SwiGLU; onnx/defs/tensor/defs.cc for TensorScatter),
// as Operators.md documents each input's and output's shape.
import { attr, gap, input } from '../infer-helpers.js';
import type { InferContext, Rule, Value } from '../infer-helpers.js';

const heads = (c: InferContext, name: string): number => {
  const n = attr(c, name)?.i ?? gap(`the ${name} attribute is missing (a 3-D input needs it)`);
  if (n <= 0) gap(`${name} is ${n}`);
  return n;
};
const rank = (v: Value, ranks: number[], what: string) => {
  if (!ranks.includes(v.shape.length)) gap(`${what} has rank ${v.shape.length}, expected ${ranks.join(' or ')}`);
};
const perHead = (width: number, n: number, what: string): number => {
  if (width % n !== 0) gap(`${what} width ${width} is not a multiple of its ${n} heads`);
  return width / n;
};

/**
 * Attention-23/24: Q, K, V are 4-D (batch, heads, sequence, head_size) or 3-D (batch, sequence,
 * heads * head_size, with q_num_heads / kv_num_heads). Y is (batch, q_heads, q_seq, v_head_size),
 * or (batch, q_seq, q_heads * v_head_size) for 3-D Q; present_key / present_value are
 * (batch, kv_heads, past + kv_seq, head_size / v_head_size); qk_matmul_output is
 * (batch, q_heads, q_seq, past + kv_seq). Operators.md, Attention-24.
 */
function attention(c: InferContext): Value[] {
  const q = input(c, 0), k = input(c, 1), v = input(c, 2);
  rank(q, [3, 4], 'Q'); rank(k, [3, 4], 'K'); rank(v, [3, 4], 'V');
  const batch = q.shape[0];
  const qHeads = q.shape.length === 4 ? q.shape[1] : heads(c, 'q_num_heads');
  const qSeq = q.shape.length === 4 ? q.shape[2] : q.shape[1];
  const kvHeads = k.shape.length === 4 ? k.shape[1] : heads(c, 'kv_num_heads');
  const kvSeq = k.shape.length === 4 ? k.shape[2] : k.shape[1];
  const headSize = k.shape.length === 4 ? k.shape[3] : perHead(k.shape[2], kvHeads, 'K');
  const vHeadSize = v.shape.length === 4 ? v.shape[3] : perHead(v.shape[2], kvHeads, 'V');
  const past = c.inputs[4];
  const total = (past ? past.shape[2] : 0) + kvSeq;
  const out: Value[] = [{ shape: q.shape.length === 4 ? [batch, qHeads, qSeq, vHeadSize] : [batch, qSeq, qHeads * vHeadSize], elemType: q.elemType }];
  out.push({ shape: [batch, kvHeads, total, headSize], elemType: k.elemType });
  out.push({ shape: [batch, kvHeads, total, vHeadSize], elemType: v.elemType });
  out.push({ shape: [batch, qHeads, qSeq, total], elemType: q.elemType });
  return out.slice(0, Math.max(1, c.node.outputs.length));
}

/**
 * FlexAttention (ai.onnx.preview, version 1): rank-4 Q (B, Hq, Sq, E), K (B, Hkv, Skv, E),
 * V (B, Hkv, Skv, Ev); Y is (B, Hq, Sq, Ev) of Q's type. Operators.md, FlexAttention.
 */
function flexAttention(c: InferContext): Value[] {
  const q = input(c, 0), v = input(c, 2);
  rank(q, [4], 'Q'); rank(v, [4], 'V');
  return [{ shape: [q.shape[0], q.shape[1], q.shape[2], v.shape[3]], elemType: q.elemType }];
}

/**
 * LinearAttention-27: query (B, T, Hq * dk), key (B, T, Hkv * dk), value (B, T, Hkv * dv);
 * output (B, T, Hq * dv), present_state (B, Hkv, dk, dv), past_state's type when given (type S),
 * else the query's.
 */
function linearAttention(c: InferContext): Value[] {
  const q = input(c, 0), k = input(c, 1), v = input(c, 2);
  rank(q, [3], 'query'); rank(k, [3], 'key'); rank(v, [3], 'value');
  const qHeads = heads(c, 'q_num_heads'), kvHeads = heads(c, 'kv_num_heads');
  const dk = perHead(k.shape[2], kvHeads, 'key');
  const dv = perHead(v.shape[2], kvHeads, 'value');
  const past = c.inputs[3];
  return [
    { shape: [q.shape[0], q.shape[1], qHeads * dv], elemType: q.elemType },
    { shape: [q.shape[0], kvHeads, dk, dv], elemType: past?.elemType ?? q.elemType },
  ];
}

/**
 * CausalConvWithState-27: input (B, C, L), weight (C, 1, k); output like the input,
 * present_state (B, C, k - 1).
 */
function causalConvWithState(c: InferContext): Value[] {
  const x = input(c, 0), w = input(c, 1);
  rank(x, [3], 'input'); rank(w, [3], 'weight');
  return [{ shape: [...x.shape], elemType: x.elemType }, { shape: [x.shape[0], x.shape[1], w.shape[2] - 1], elemType: x.elemType }];
}

/** Outputs shaped like input 0 (RotaryEmbedding-23: Y like X; TensorScatter-24: present_cache like past_cache). */
const likeInput0: Rule = (c) => { const x = input(c, 0); return [{ shape: [...x.shape], elemType: x.elemType }]; };

/** SwiGLU-28: A and B of one shape (no broadcasting); Y like them. */
function swiglu(c: InferContext): Value[] {
  const a = input(c, 0), b = input(c, 1);
  if (a.shape.join(',') !== b.shape.join(',')) gap(`A [${a.shape.join(',')}] and B [${b.shape.join(',')}] differ (SwiGLU does not broadcast)`);
  return [{ shape: [...a.shape], elemType: a.elemType }];
}

/** Rules of the default domain. */
export const ATTENTION_RULES: Record<string, Rule> = {
  Attention: attention,
  RotaryEmbedding: likeInput0,
  TensorScatter: likeInput0,
  LinearAttention: linearAttention,
  CausalConvWithState: causalConvWithState,
  SwiGLU: swiglu,
};

/** Rules of the ai.onnx.preview domain. */
export const PREVIEW_RULES: Record<string, Rule> = { FlexAttention: flexAttention };
