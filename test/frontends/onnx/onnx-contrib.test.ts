// ONNX Runtime's contrib operators (domain com.microsoft): output shapes from ORT's schemas
// (src/frontends/onnx/contrib-infer.ts cites each: onnxruntime/core/graph/contrib_ops/bert_defs.cc
// at commit e548164874889d144768614996682bf4c09b069b (MultiHeadAttention, GroupQueryAttention,
// SkipLayerNormalization, EmbedLayerNormalization, FastGelu, RotaryEmbedding schemas),
// shape_inference_functions.cc at 8a44a125d2b1 (AttentionTypeAndShapeInference,
// EmbedLayerNormalizationShapeInference), contrib_defs.cc at 6fa5002d5848
// (FusedMatMulShapeInference, Gelu, BiasGelu, QuickGelu, SimplifiedLayerNormalization),
// quantization_defs.cc (QLinear*, DynamicQuantizeMatMul, MatMulIntegerToFloat, MatMulNBits) and
// nhwc_schema_defs.cc (NhwcConv)). The expected shapes below are what onnxruntime 1.30.0's CPU
// provider returned for the same nodes (scripts/onnx-fixtures/ort_fixtures.py builds
// test/fixtures/onnx-real/contrib_ops.onnx; onnx-real.test.ts compares every tensor with ORT where
// python can run it).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importOnnx } from '../../../dist/index.mjs';
import type { GraphDocument } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
import { errorOf } from '../../support/errors';
import { T, onnxModel, weight } from './onnx-models.mjs';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../../fixtures/onnx-real/${name}.onnx`, import.meta.url)));
const shapeOf = (g: GraphDocument, name: string) => {
  const t = g.tensors.find((x) => x.name === name);
  if (!t) throw new Error(`no tensor ${name}`);
  return [t.shape, t.dtype];
};

/** One com.microsoft node; outputs undeclared, so the shape comes from the rule alone. */
function contribNode(op: string, inputs: Record<string, (number | string)[]>, outputs: string[], opts: { attrs?: Record<string, unknown>; initializers?: unknown[]; types?: Record<string, number>; declared?: Record<string, (number | string)[]> } = {}) {
  const inits = opts.initializers ?? [];
  return onnxModel({
    nodes: [{ op, domain: 'com.microsoft', inputs: [...Object.keys(inputs), ...inits.map((i) => (i as { name: string }).name)], outputs, attrs: opts.attrs }],
    inputs: Object.entries(inputs).map(([name, shape]) => ({ name, shape, type: opts.types?.[name] ?? T.FLOAT })),
    initializers: inits,
    outputs: outputs.filter((o) => o !== '').map((name) => ({ name, ...(opts.declared?.[name] ? { shape: opts.declared[name] } : {}) })),
  }, 17, { 'com.microsoft': 1 });
}

describe('ONNX Runtime contrib operators: shapes as ORT computes them (contrib_ops.onnx)', () => {
  const { graph } = importOnnx(fixture('contrib_ops'));
  it.each([
    // FusedMatMul (x [2,4,32] x w [2,32,8]; x x^T with transB)
    ['fused_matmul', [2, 4, 8], 'fp32'], ['fused_matmul_t', [2, 4, 4], 'fp32'],
    // Attention: output (B,S,Hv); present without past (2,B,num_heads,S,head_size)
    ['attention', [2, 4, 32], 'fp32'], ['attention_present', [2, 2, 2, 4, 16], 'fp32'],
    // MultiHeadAttention with past (B,N,3,H): present length 3 + kv length 4
    ['mha', [2, 4, 32], 'fp32'], ['mha_present_k', [2, 2, 7, 16], 'fp32'], ['mha_present_v', [2, 2, 7, 16], 'fp32'],
    // GroupQueryAttention without past: (B, kv_num_heads, total_sequence_length, head_size)
    ['gqa', [2, 4, 32], 'fp32'], ['gqa_present_k', [2, 1, 4, 16], 'fp32'], ['gqa_present_v', [2, 1, 4, 16], 'fp32'],
    // SkipLayerNormalization and its optional outputs (mean, inv_std_var: (B,S,1) float; the sum)
    ['sln', [2, 4, 32], 'fp32'], ['sln_mean', [2, 4, 1], 'fp32'], ['sln_inv_std', [2, 4, 1], 'fp32'], ['sln_sum', [2, 4, 32], 'fp32'],
    ['ssln', [2, 4, 32], 'fp32'], ['ssln_sum', [2, 4, 32], 'fp32'],
    // SimplifiedLayerNormalization (default domain, ORT's schema): inv_std_var (B,S,1)
    ['rms', [2, 4, 32], 'fp32'], ['rms_inv_std', [2, 4, 1], 'fp32'],
    // EmbedLayerNormalization: (B,S,hidden), mask_index (B) int32, embedding_sum
    ['embed', [2, 4, 32], 'fp32'], ['embed_mask_index', [2], 'int32'], ['embed_sum', [2, 4, 32], 'fp32'],
    ['gelu', [2, 4, 32], 'fp32'], ['fastgelu', [2, 4, 32], 'fp32'], ['quickgelu', [2, 4, 32], 'fp32'],
    ['bias_gelu', [2, 4, 32], 'fp32'], ['fast_gelu_bias', [2, 4, 32], 'fp32'], ['rotary', [2, 4, 32], 'fp32'],
    // quantized ops (uint8 in, uint8 out)
    ['qlinear_add', [2, 3, 16], 'uint8'], ['qlinear_mul', [2, 3, 16], 'uint8'], ['qlinear_sigmoid', [2, 3, 16], 'uint8'],
    ['qlinear_avgpool', [1, 4, 5, 5], 'uint8'], ['qlinear_avgpool_nhwc', [1, 4, 4, 4], 'uint8'],
    ['qlinear_gap', [1, 4, 1, 1], 'uint8'], ['qlinear_gap_nhwc', [1, 1, 1, 4], 'uint8'],
    ['dq_matmul', [2, 4, 8], 'fp32'], ['matmul_int_to_float', [2, 3, 8], 'fp32'], ['matmul_nbits', [2, 4, 8], 'fp32'],
  ])('%s is %j %s', (name, shape, dtype) => {
    expect(shapeOf(graph, name)).toEqual([shape, dtype]);
  });

  it.each(BACKENDS)('plans on %s', (backend) => {
    const tp = session(backend);
    const plan = tp.plan(tp.importOnnx(fixture('contrib_ops'), { runtime: 'ort-cpu', externalIO: true }).graph);
    expect(tp.validate(plan)).toEqual([]);
  });
});

describe('ONNX Runtime contrib operators: rules on their own', () => {
  it('Attention with past: present grows by the sequence (AttentionTypeAndShapeInference), or keeps past with past_present_share_buffer', () => {
    const w = weight('w', [8, 24]), b = weight('b', [24]);
    const grow = contribNode('Attention', { x: [2, 4, 8] }, ['y', 'present'], { attrs: { num_heads: 2 }, initializers: [w, b] });
    // The node's inputs are x, w, b; past is input 4, so build it explicitly.
    const withPast = onnxModel({
      nodes: [{ op: 'Attention', domain: 'com.microsoft', inputs: ['x', 'w', 'b', '', 'past'], outputs: ['y', 'present'], attrs: { num_heads: 2 } }],
      inputs: [{ name: 'x', shape: [2, 4, 8] }, { name: 'past', shape: [2, 2, 2, 3, 4] }], initializers: [w, b], outputs: [{ name: 'y' }, { name: 'present' }],
    }, 17, { 'com.microsoft': 1 });
    const shared = onnxModel({
      nodes: [{ op: 'Attention', domain: 'com.microsoft', inputs: ['x', 'w', 'b', '', 'past'], outputs: ['y', 'present'], attrs: { num_heads: 2, past_present_share_buffer: 1 } }],
      inputs: [{ name: 'x', shape: [2, 4, 8] }, { name: 'past', shape: [2, 2, 2, 16, 4] }], initializers: [w, b], outputs: [{ name: 'y' }, { name: 'present' }],
    }, 17, { 'com.microsoft': 1 });
    expect(shapeOf(importOnnx(grow).graph, 'present')[0]).toEqual([2, 2, 2, 4, 4]);
    expect(shapeOf(importOnnx(withPast).graph, 'present')[0]).toEqual([2, 2, 2, 7, 4]);
    expect(shapeOf(importOnnx(shared).graph, 'present')[0]).toEqual([2, 2, 2, 16, 4]);
    // qkv_hidden_sizes sets the output width (v_hidden_size)
    const qkv = contribNode('Attention', { x: [2, 4, 8] }, ['y'], { attrs: { num_heads: 2, qkv_hidden_sizes: [8, 8, 4] }, initializers: [weight('w', [8, 20]), weight('b', [20])] });
    expect(shapeOf(importOnnx(qkv).graph, 'y')[0]).toEqual([2, 4, 4]);
  });

  it('FusedMatMul with transBatchA moves the first batch dimension next to the matrix (FusedMatMulShapeInference)', () => {
    // ORT 1.30: a [5,3,4] with transBatchA, b [3,4,6] -> [3,5,6]
    const m = contribNode('FusedMatMul', { a: [5, 3, 4], b: [3, 4, 6] }, ['y'], { attrs: { transBatchA: 1 } });
    expect(shapeOf(importOnnx(m).graph, 'y')[0]).toEqual([3, 5, 6]);
    const t = contribNode('FusedMatMul', { a: [3, 5, 4], b: [3, 5, 6] }, ['y'], { attrs: { transA: 1 } });
    expect(shapeOf(importOnnx(t).graph, 'y')[0]).toEqual([3, 4, 6]);
  });

  it('MultiHeadAttention with packed QKV (B,S,N,3,H) gives (B,S,N*H); without past the presents are (B,N,L,H)', () => {
    const packed = contribNode('MultiHeadAttention', { qkv: [2, 4, 2, 3, 8] }, ['y'], { attrs: { num_heads: 2 } });
    expect(shapeOf(importOnnx(packed).graph, 'y')[0]).toEqual([2, 4, 16]);
    const cross = contribNode('MultiHeadAttention', { q: [2, 4, 16], k: [2, 6, 16], v: [2, 6, 16] }, ['y', 'pk', 'pv'], { attrs: { num_heads: 2 } });
    const g = importOnnx(cross).graph;
    expect([shapeOf(g, 'y')[0], shapeOf(g, 'pk')[0], shapeOf(g, 'pv')[0]]).toEqual([[2, 4, 16], [2, 2, 6, 8], [2, 2, 6, 8]]);
  });

  it('NhwcConv reads X and writes Y channels-last (nhwc_schema_defs.cc)', () => {
    const m = contribNode('NhwcConv', { x: [1, 9, 9, 4] }, ['y'], { attrs: { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] }, initializers: [weight('w', [6, 4, 3, 3])] });
    expect(shapeOf(importOnnx(m).graph, 'y')[0]).toEqual([1, 5, 5, 6]);
  });

  it('a contrib op without a rule uses the file\'s value_info, binding its symbolic dimensions', () => {
    const declared = contribNode('WordConvEmbedding', { seq: [2, 5] }, ['y'], { types: { seq: T.INT32 }, declared: { y: ['batch', 7] } });
    expect(shapeOf(importOnnx(declared, { dims: { batch: 2 } }).graph, 'y')[0]).toEqual([2, 7]);
  });

  it('a contrib op without a rule or value_info is an error naming the node, the op, the domain and the fix', () => {
    const bare = contribNode('WordConvEmbedding', { seq: [2, 5] }, ['y'], { types: { seq: T.INT32 } });
    const e = errorOf(() => importOnnx(bare, { source: 'm.onnx' }));
    expect(e.code).toBe('UNSUPPORTED');
    expect(e.message).toContain('node "wordconvembedding_0" (WordConvEmbedding)');
    expect(e.message).toContain('operator WordConvEmbedding of domain "com.microsoft"');
    expect(e.message).toContain('value_info');
    expect(e.message).toContain('--input');
  });

  it('an op of the default domain named like a contrib op is not read with the contrib rule (Attention-23 is ONNX\'s own)', () => {
    const m = onnxModel({
      nodes: [{ op: 'Attention', inputs: ['x', 'w'], outputs: ['y'], attrs: { num_heads: 2 } }],
      inputs: [{ name: 'x', shape: [2, 4, 8] }], initializers: [weight('w', [8, 24])], outputs: [{ name: 'y' }],
    }, 17);
    expect(errorOf(() => importOnnx(m)).message).toContain('no shape rule for this operator');
  });
});
