// Shape rules for ONNX Runtime's contrib operators (domain com.microsoft), and for the operators
// ORT registers in the default domain that ONNX does not define (SimplifiedLayerNormalization).
// Current exporters and ORT's own tools (onnxruntime.transformers.optimizer, the quantizer,
// the NHWC transformer) emit them. Each rule follows the operator's schema in ORT's source
// (microsoft/onnxruntime, MIT; read, not copied), cited per rule with the file, the schema or
// inference function and the commit read:
//   bert_defs.cc                  commit e548164874889d144768614996682bf4c09b069b
//   shape_inference_functions.cc  commit 8a44a125d2b1418e55e28844a2d0b69b5261715d
//   contrib_defs.cc               commit 6fa5002d5848f8425b49334396371032694d4ede
// and quantization_defs.cc / nhwc_schema_defs.cc (schemas named per rule). Where a schema infers
// no shape for an optional output, the rule uses the shape the schema's output documentation
// gives, or leaves the output to the file's value_info (InferenceGap).
import { DT } from './onnx-model.js';
import {
  attr, attrInt, attrInts, broadcastShapes, conv, convLike, gap, input, matmulShape, normAxis,
} from './infer-helpers.js';
import type { InferContext, Rule, Value } from './infer-helpers.js';

const same = (v: Value): Value => ({ shape: [...v.shape], elemType: v.elemType });
const optional = (c: InferContext, k: number): Value | undefined => c.inputs[k];
/** The number of outputs the node names (trailing optional outputs may be absent). */
const wants = (c: InferContext, k: number) => (c.node.outputs[k] ?? '') !== '';

/**
 * FusedMatMul: MatMul with transposes folded in (transA, transB, and transBatchA/B, which move the
 * first batch dimension next to the matrix). contrib_defs.cc, FusedMatMulShapeInference.
 */
function fusedMatMul(c: InferContext): Value[] {
  const a = input(c, 0), b = input(c, 1);
  const arrange = (shape: number[], trans: boolean, transBatch: boolean): number[] => {
    const rank = shape.length;
    if (rank === 1) return shape; // numpy: a vector is not transposed
    const batch = transBatch ? shape.slice(1, rank - 1) : shape.slice(0, rank - 2);
    const rows = shape[trans ? rank - 1 : (transBatch ? 0 : rank - 2)];
    const cols = shape[trans ? (transBatch ? 0 : rank - 2) : rank - 1];
    return [...batch, rows, cols];
  };
  const s0 = arrange(a.shape, attrInt(c, 'transA', 0) !== 0, attrInt(c, 'transBatchA', 0) !== 0);
  const s1 = arrange(b.shape, attrInt(c, 'transB', 0) !== 0, attrInt(c, 'transBatchB', 0) !== 0);
  return [{ shape: matmulShape(s0, s1), elemType: a.elemType }];
}

/**
 * Attention: input (B, S, Hin), weights (Hin, Hq + Hk + Hv), bias (Hq + Hk + Hv); output (B, S, Hv)
 * with Hv = qkv_hidden_sizes[2] or bias / 3. shape_inference_functions.cc,
 * AttentionTypeAndShapeInference (Attention schema, bert_defs.cc, past input 4). present (output
 * 1): past's shape with the total sequence length S + past[3], or past's shape itself when
 * past_present_share_buffer; without past, the schema's documented shape (2, B, num_heads, S,
 * head_size), head_size = Hk / num_heads (the kernel's present, attention_cpu_base.h).
 */
function attention(c: InferContext): Value[] {
  const x = input(c, 0);
  const bias = optional(c, 2);
  if (x.shape.length !== 3) gap(`input 0 has rank ${x.shape.length}; Attention takes (batch, sequence, hidden)`);
  const qkv = attrInts(c, 'qkv_hidden_sizes');
  if (qkv && qkv.length !== 3) gap('qkv_hidden_sizes must have 3 elements');
  const total = bias ? bias.shape[0] : input(c, 1).shape[1];
  if (!bias && !qkv && total % 3 !== 0) gap(`the merged Q/K/V width ${total} is not divisible by 3`);
  const vHidden = qkv ? qkv[2] : Math.floor(total / 3);
  const kHidden = qkv ? qkv[1] : Math.floor(total / 3);
  const elemType = (bias ?? x).elemType;
  const out: Value[] = [{ shape: [x.shape[0], x.shape[1], vHidden], elemType }];
  if (wants(c, 1)) {
    const past = optional(c, 4);
    const heads = attr(c, 'num_heads')?.i ?? gap('the num_heads attribute is missing');
    if (past) {
      if (past.shape.length !== 5) gap('the past input must have 5 dimensions');
      const share = attrInt(c, 'past_present_share_buffer', 0) !== 0;
      out.push({ shape: past.shape.map((d, k) => (k === 3 && !share ? d + x.shape[1] : d)), elemType });
    } else {
      out.push({ shape: [2, x.shape[0], heads, x.shape[1], Math.floor(kHidden / heads)], elemType });
    }
  }
  return out;
}

/**
 * MultiHeadAttention (past_key input 6) and its present_key / present_value. bert_defs.cc,
 * MultiHeadAttentionTypeAndShapeInference: packed QKV query (B, S, N, 3, H) gives (B, S, N*H);
 * otherwise value (B, L, Hv) gives (B, S, Hv) and value (B, N, L, H) gives (B, S, N*H); packed KV
 * key (B, L, N, 2, H) keeps the query's shape. Presents: past's shape with L + past[2] (or past's
 * shape when past_present_share_buffer); without past, the schema's documented (B, N, L, H) (for
 * self attention total = L), or the key / value itself when it is already (B, N, L, H).
 */
function multiHeadAttention(c: InferContext, pastIndex: number): Value[] {
  const q = input(c, 0);
  const key = optional(c, 1), value = optional(c, 2);
  let shape: number[];
  if (q.shape.length === 5) shape = [q.shape[0], q.shape[1], q.shape[2] * q.shape[4]];
  else if (q.shape.length !== 3) return gap(`query has rank ${q.shape.length}; it must have 3 or 5 dimensions`);
  else if (value) {
    if (value.shape.length === 3) shape = [q.shape[0], q.shape[1], value.shape[2]];
    else if (value.shape.length === 4) shape = [q.shape[0], q.shape[1], value.shape[1] * value.shape[3]];
    else return gap('value must have 3 or 4 dimensions');
  } else if (key && key.shape.length === 5) shape = [...q.shape];
  else return gap('neither value nor a packed key gives the output width');
  const out: Value[] = [{ shape, elemType: q.elemType }];
  if (!wants(c, 1) && !wants(c, 2)) return out;
  const heads = attr(c, 'num_heads')?.i ?? gap('the num_heads attribute is missing');
  const share = attrInt(c, 'past_present_share_buffer', 0) !== 0;
  const present = (k: number, source: Value | undefined): Value => {
    const past = optional(c, pastIndex + k);
    if (past) {
      if (past.shape.length !== 4) gap(`past input ${pastIndex + k} must have 4 dimensions`);
      if (share) return same(past);
      const kv = value && value.shape.length === 3 ? value.shape[1] : gap('the kv sequence length is not known (value is not 3-D)');
      return { shape: past.shape.map((d, i) => (i === 2 ? d + kv : d)), elemType: past.elemType };
    }
    if (!source) return gap('no key / value to size the present state from');
    if (source.shape.length === 4) return same(source);
    if (source.shape.length !== 3) return gap('packed key / value: the present state is not documented');
    return { shape: [source.shape[0], heads, source.shape[1], Math.floor(source.shape[2] / heads)], elemType: source.elemType };
  };
  out.push(present(0, key), present(1, value));
  return out;
}

/**
 * GroupQueryAttention: output (B, S, hidden) from query (B, S, hidden); bert_defs.cc,
 * GroupQueryAttentionTypeAndShapeInference (past_key input 3), which gives present_key /
 * present_value past's shape (the kv cache buffer). The outputs' documentation gives their length
 * otherwise: max_sequence_length when past is the shared buffer, else past_sequence_length +
 * kv_sequence_length; ORT's CPU kernel (group_query_attention.cc) allocates (B, kv_num_heads,
 * max(past length, total_sequence_length), head_size), total_sequence_length being input 6's value.
 * Without a past that is (B, kv_num_heads, total_sequence_length or the key's length, head_size).
 */
function groupQueryAttention(c: InferContext): Value[] {
  const q = input(c, 0);
  if (q.shape.length !== 3) gap('query must have 3 dimensions');
  const out: Value[] = [{ shape: [...q.shape], elemType: q.elemType }];
  if (!wants(c, 1) && !wants(c, 2)) return out;
  const total = optional(c, 6)?.data?.length === 1 ? Number(optional(c, 6)!.data![0]) : undefined;
  const kvHeads = attr(c, 'kv_num_heads')?.i ?? gap('the kv_num_heads attribute is missing');
  for (const k of [3, 4]) {
    const past = optional(c, k);
    if (past) {
      if (past.shape.length !== 4) gap(`past input ${k} must have 4 dimensions`);
      out.push({ shape: past.shape.map((d, i) => (i === 2 && total !== undefined ? Math.max(d, total) : d)), elemType: past.elemType });
      continue;
    }
    const kv = optional(c, k - 2) ?? gap(`present output ${k - 2}: no past input ${k} and no key / value input ${k - 2} (packed QKV) to size it`);
    if (kv.shape.length !== 3) gap(`key / value input ${k - 2} must have 3 dimensions`);
    out.push({ shape: [kv.shape[0], kvHeads, total ?? kv.shape[1], Math.floor(kv.shape[2] / kvHeads)], elemType: kv.elemType });
  }
  return out;
}

/**
 * SkipLayerNormalization / SkipSimplifiedLayerNormalization: output (and input_skip_bias_sum,
 * output 3) of input 0's shape and type (bert_defs.cc: propagateShapeAndTypeFromFirstInput and
 * the output's documented shape). mean / inv_std_var (outputs 1, 2; float, "saved for training")
 * have no inferred shape; they take the LayerNormalization statistics' shape, input 0's with the
 * normalized (last) axis 1.
 */
function skipLayerNorm(c: InferContext): Value[] {
  const x = input(c, 0);
  const stat: Value = { shape: x.shape.map((d, k) => (k === x.shape.length - 1 ? 1 : d)), elemType: DT.FLOAT };
  return [same(x), stat, { ...stat, shape: [...stat.shape] }, same(x)];
}

/**
 * EmbedLayerNormalization: output (B, S, hidden) of word_embedding's type, mask_index (B) int32
 * (when mask_index_type is not 0), embedding_sum (B, S, hidden). shape_inference_functions.cc,
 * EmbedLayerNormalizationShapeInference.
 */
function embedLayerNorm(c: InferContext): Value[] {
  const ids = input(c, 0), word = input(c, 2);
  if (ids.shape.length !== 2) gap('input_ids must have 2 dimensions');
  if (word.shape.length !== 2) gap('word_embedding must have 2 dimensions');
  const shape = [ids.shape[0], ids.shape[1], word.shape[1]];
  return [{ shape, elemType: word.elemType }, { shape: [ids.shape[0]], elemType: ids.elemType }, { shape: [...shape], elemType: word.elemType }];
}

/**
 * SimplifiedLayerNormalization as ORT registers it, in the default domain only (version 1,
 * contrib_defs.cc, ONNX_CONTRIB_OPERATOR_SCHEMA with kOnnxDomain, beside ORT's LayerNormalization
 * version 1, which the default domain's LayerNormalization rule covers): Y of X's shape;
 * the statistics (mean and inv_std_var, or SimplifiedLayerNormalization's inv_std_var alone) of X's
 * shape with the axis dimension 1, type stash_type (float). The schema sets only dimension `axis`
 * to 1; ORT's kernel (layer_norm_impl.cc) allocates 1 for every dimension from `axis` on, which is
 * what the plan must hold; both agree for the usual last axis.
 */
function layerNormStats(c: InferContext, stats: number): Value[] {
  const x = input(c, 0);
  const axis = normAxis(attrInt(c, 'axis', -1), x.shape.length);
  const stat = { shape: x.shape.map((d, k) => (k < axis ? d : 1)), elemType: attrInt(c, 'stash_type', DT.FLOAT) };
  return [same(x), ...Array.from({ length: stats }, () => ({ ...stat, shape: [...stat.shape] }))];
}

/** QLinearAdd / QLinearMul (quantization_defs.cc, QLinearMathDocGenerator): A and B broadcast, C of A's type. */
const qlinearBinary: Rule = (c) => [{ shape: broadcastShapes([input(c, 0).shape, input(c, 3).shape]), elemType: input(c, 0).elemType }];

/**
 * MatMulNBits (contrib_defs.cc / quantization_defs.cc, MatMulNBits schema): A (..., K) times the
 * packed N x K weight; Y (..., N) with N the attribute, of A's type.
 */
function matMulNBits(c: InferContext): Value[] {
  const a = input(c, 0);
  const n = attr(c, 'N')?.i ?? gap('the N attribute is missing');
  if (a.shape.length < 1) gap('A is a scalar');
  return [{ shape: [...a.shape.slice(0, -1), n], elemType: a.elemType }];
}

/**
 * QLinearAveragePool (quantization_defs.cc): the pooling window rule of AveragePool on X, or on
 * X read as NHWC when channels_last = 1; Y of X's type.
 */
function qlinearAveragePool(c: InferContext): Value[] {
  const x = input(c, 0);
  const kernel = attrInts(c, 'kernel_shape') ?? gap('kernel_shape is missing');
  if (attrInt(c, 'channels_last', 0) === 0) return [{ shape: convLike(c, x, kernel, x.shape[1], false), elemType: x.elemType }];
  const nchw = { shape: [x.shape[0], x.shape[x.shape.length - 1], ...x.shape.slice(1, -1)], elemType: x.elemType };
  const y = convLike(c, nchw, kernel, nchw.shape[1], false);
  return [{ shape: [y[0], ...y.slice(2), y[1]], elemType: x.elemType }];
}

/** QLinearGlobalAveragePool (quantization_defs.cc): (N, C, 1...) or, channels_last, (N, 1..., C). */
function qlinearGlobalAveragePool(c: InferContext): Value[] {
  const x = input(c, 0);
  if (x.shape.length < 3) gap(`X has rank ${x.shape.length}, below 3`);
  const last = attrInt(c, 'channels_last', 0) !== 0;
  return [{ shape: x.shape.map((d, k) => (k === 0 || (last ? k === x.shape.length - 1 : k === 1) ? d : 1)), elemType: x.elemType }];
}

/**
 * NhwcConv (nhwc_schema_defs.cc, NhwcConv schema): Conv with X and Y channels-last (N, H, W, C);
 * W stays (M, C / group, kH, kW).
 */
function nhwcConv(c: InferContext): Value[] {
  const x = input(c, 0);
  const nchw: Value = { shape: [x.shape[0], x.shape[x.shape.length - 1], ...x.shape.slice(1, -1)], elemType: x.elemType };
  const [y] = conv({ ...c, inputs: [nchw, ...c.inputs.slice(1)] }, 0, 1);
  return [{ shape: [y.shape[0], ...y.shape.slice(2), y.shape[1]], elemType: x.elemType }];
}

/**
 * Rules by op type for nodes of domain com.microsoft. Ops both domains define alike (Gelu,
 * FastGelu, QuickGelu, BiasGelu-like element-wise ops) fall back to the default domain's rules.
 */
export const CONTRIB_RULES: Record<string, Rule> = {
  FusedMatMul: fusedMatMul,
  Attention: attention,
  MultiHeadAttention: (c) => multiHeadAttention(c, 6),
  DecoderMaskedMultiHeadAttention: (c) => multiHeadAttention(c, 5),
  GroupQueryAttention: groupQueryAttention,
  SkipLayerNormalization: skipLayerNorm,
  SkipSimplifiedLayerNormalization: skipLayerNorm,
  EmbedLayerNormalization: embedLayerNorm,
  // Element-wise on input 0 (contrib_defs.cc / bert_defs.cc: propagateShapeAndTypeFromFirstInput):
  // Gelu, BiasGelu (A + 1-D bias B), FastGelu (optional bias), QuickGelu; RotaryEmbedding (bert_defs.cc:
  // propagateShapeFromInputToOutput(0, 0)); BiasAdd (X + bias + skip, (B, S, C)); QLinearSigmoid,
  // QLinearLeakyRelu (quantization_defs.cc, the input's shape).
  ...Object.fromEntries(['Gelu', 'BiasGelu', 'FastGelu', 'QuickGelu', 'RotaryEmbedding', 'BiasAdd', 'QLinearSigmoid', 'QLinearLeakyRelu']
    .map((op) => [op, (c: InferContext) => [same(input(c, 0))]])),
  QLinearAdd: qlinearBinary,
  QLinearMul: qlinearBinary,
  QLinearAveragePool: qlinearAveragePool,
  QLinearGlobalAveragePool: qlinearGlobalAveragePool,
  // DynamicQuantizeMatMul (A float, B int8/uint8, b_scale ...; Y float) and MatMulIntegerToFloat
  // (A, B 8-bit, a_scale ...; Y of a_scale's type): quantization_defs.cc, matmulShapeInference(0, 1).
  DynamicQuantizeMatMul: (c) => [{ shape: matmulShape(input(c, 0).shape, input(c, 1).shape), elemType: input(c, 0).elemType }],
  MatMulIntegerToFloat: (c) => [{ shape: matmulShape(input(c, 0).shape, input(c, 1).shape), elemType: input(c, 2).elemType }],
  MatMulNBits: matMulNBits,
  NhwcConv: nhwcConv,
};

/**
 * Operators ORT registers in the default domain that ONNX does not define:
 * SimplifiedLayerNormalization (version 1, contrib_defs.cc, kOnnxDomain), which the transformer
 * optimizer emits for RMSNorm.
 */
export const ORT_ONNX_DOMAIN_RULES: Record<string, Rule> = {
  SimplifiedLayerNormalization: (c) => layerNormStats(c, 1),
};
