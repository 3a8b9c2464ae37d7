# Fixtures with ONNX Runtime's contrib operators (domain com.microsoft), for the importer's
# contrib shape rules (src/frontends/onnx/contrib-infer.ts):
#   bert_tiny_ort_optimized.onnx  a tiny random BERT from transformers, exported by torch.onnx and
#                                 fused by onnxruntime.transformers.optimizer.optimize_model
#                                 (EmbedLayerNormalization, Attention, SkipLayerNormalization, BiasGelu)
#   contrib_ops.onnx              one node of each contrib operator ORT's CPU provider runs, built
#                                 with onnx.helper as ORT's schemas define them
# export.py calls build(); on its own this script adds the two files to OUT_DIR/manifest.json:
#   /tmp/venv/bin/python scripts/onnx-fixtures/ort_fixtures.py [OUT_DIR]
import json, os, sys, warnings

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

warnings.filterwarnings('ignore')
MS = 'com.microsoft'


def bert_optimized(out, manifest):
    import torch, transformers
    from onnxruntime.transformers.optimizer import optimize_model

    cfg = transformers.BertConfig(vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                  intermediate_size=64, max_position_embeddings=64, attn_implementation='eager')
    torch.manual_seed(0)
    model = transformers.BertModel(cfg).eval()
    ids = torch.randint(0, 128, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    segments = torch.zeros(2, 16, dtype=torch.int64)
    raw = os.path.join(out, 'bert_tiny_ort_raw.onnx')

    class Wrap(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = model

        # onnxruntime 1.30's attention and embedding fusions do not match the graph transformers
        # 5.18 exports (its mask is built with Where/And/ConstantOfShape; with or without a mask
        # only SkipLayerNormalization and BiasGelu fuse); contrib_ops.onnx covers the others.
        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state

    with torch.no_grad():
        torch.onnx.export(Wrap().eval(), (ids, mask, segments), raw, dynamo=False, opset_version=14, do_constant_folding=True,
                          input_names=['input_ids', 'attention_mask', 'token_type_ids'], output_names=['hidden'])
    # opt_level=0: only the python fusions, so the file holds what the optimizer's fusions emit,
    # not ORT's own (session-time) graph rewrites.
    opt = optimize_model(raw, model_type='bert', num_heads=2, hidden_size=32, opt_level=0, use_gpu=False)
    path = os.path.join(out, 'bert_tiny_ort_optimized.onnx')
    opt.save_model_to_file(path)
    os.remove(raw)
    m = onnx.load(path)
    ops = sorted({n.op_type for n in m.graph.node if n.domain == MS})
    spec = {'shape': [2, 16], 'dtype': 'int64'}
    manifest['models']['bert_tiny_ort_optimized'] = {
        'exporter': 'torchscript (opset 14) + onnxruntime.transformers.optimizer.optimize_model(model_type=bert, opt_level=0)',
        'inputs': {'input_ids': spec, 'attention_mask': spec, 'token_type_ids': spec},
        'bytes': os.path.getsize(path), 'nodes': len(m.graph.node),
        'note': f'transformers BertModel (hidden 32, 2 layers, 2 heads) fused by ORT\'s optimizer: {", ".join(ops)}',
    }
    print(f'bert_tiny_ort_optimized: {os.path.getsize(path)} bytes, com.microsoft ops {ops}')


def contrib_ops(out, manifest):
    rng = np.random.default_rng(0)
    init = lambda name, a: nh.from_array(np.asarray(a), name)
    f32 = lambda a: np.asarray(a, np.float32)
    B, S, H, N = 2, 4, 32, 2
    nodes, inits = [], []
    inputs = {'x': ([B, S, H], T.FLOAT), 'skip': ([B, S, H], T.FLOAT), 'q8': ([2, 3, 16], T.UINT8), 'img8': ([1, 4, 9, 9], T.UINT8),
              'nhwc8': ([1, 9, 9, 4], T.UINT8), 'pos': ([B, S], T.INT64), 'ids': ([B, S], T.INT32), 'seg': ([B, S], T.INT32),
              'past_k': ([B, N, 3, H // N], T.FLOAT), 'past_v': ([B, N, 3, H // N], T.FLOAT)}
    add = lambda op, ins, outs, **attrs: nodes.append(h.make_node(op, ins, outs, name=outs[0], domain=MS, **attrs))
    inits += [init('w_qkv', f32(rng.standard_normal((H, 3 * H)) * .1)), init('b_qkv', f32(np.zeros(3 * H))),
              init('gamma', f32(np.ones(H))), init('beta', f32(np.zeros(H))), init('bias', f32(np.zeros(H))),
              init('w_fm', f32(rng.standard_normal((2, H, 8)))),
              init('word', f32(rng.standard_normal((10, H)))), init('position', f32(rng.standard_normal((16, H)))),
              init('segment', f32(rng.standard_normal((2, H)))),
              init('cos', f32(np.ones((16, H // N // 2)))), init('sin', f32(np.zeros((16, H // N // 2)))),
              init('s1', f32(.1)), init('z1', np.array(128, np.uint8)), init('s2', f32(.2)),
              init('w8', rng.integers(0, 255, (16, 8)).astype(np.uint8)),
              init('w4', rng.integers(0, 255, (8, 2, 8)).astype(np.uint8)), init('w4_scales', f32(np.ones(16))),
              init('seqlens', np.array([3, 3], np.int32)), init('total', np.array(4, np.int32))]
    add('FusedMatMul', ['x', 'w_fm'], ['fused_matmul'], transBatchA=0, transA=0, alpha=0.5)
    add('FusedMatMul', ['x', 'x'], ['fused_matmul_t'], transB=1)
    add('Attention', ['x', 'w_qkv', 'b_qkv'], ['attention', 'attention_present'], num_heads=N)
    add('MultiHeadAttention', ['x', 'skip', 'skip', '', '', '', 'past_k', 'past_v'], ['mha', 'mha_present_k', 'mha_present_v'], num_heads=N)
    add('GroupQueryAttention', ['x', 'gqa_kv', 'gqa_kv', '', '', 'seqlens', 'total'], ['gqa', 'gqa_present_k', 'gqa_present_v'], num_heads=N, kv_num_heads=1)
    nodes.append(h.make_node('Slice', ['skip', 'sl_start', 'sl_end', 'sl_axes'], ['gqa_kv'], name='gqa_kv'))
    inits += [init('sl_start', np.array([0], np.int64)), init('sl_end', np.array([H // N], np.int64)), init('sl_axes', np.array([2], np.int64))]
    add('SkipLayerNormalization', ['x', 'skip', 'gamma', 'beta', 'bias'], ['sln', 'sln_mean', 'sln_inv_std', 'sln_sum'])
    add('SkipSimplifiedLayerNormalization', ['x', 'skip', 'gamma'], ['ssln', '', '', 'ssln_sum'])
    nodes.append(h.make_node('SimplifiedLayerNormalization', ['x', 'gamma'], ['rms', 'rms_inv_std'], name='rms', axis=-1))
    add('EmbedLayerNormalization', ['ids', 'seg', 'word', 'position', 'segment', 'gamma', 'beta', 'ids'], ['embed', 'embed_mask_index', 'embed_sum'])
    for op in ['Gelu', 'FastGelu', 'QuickGelu']:
        add(op, ['x'], [op.lower()])
    add('BiasGelu', ['x', 'bias'], ['bias_gelu'])
    add('FastGelu', ['x', 'bias'], ['fast_gelu_bias'])
    add('RotaryEmbedding', ['x', 'pos', 'cos', 'sin'], ['rotary'], num_heads=N)
    add('QLinearAdd', ['q8', 's1', 'z1', 'q8', 's1', 'z1', 's2', 'z1'], ['qlinear_add'])
    add('QLinearMul', ['q8', 's1', 'z1', 'q8', 's1', 'z1', 's2', 'z1'], ['qlinear_mul'])
    add('QLinearSigmoid', ['q8', 's1', 'z1', 's2', 'z1'], ['qlinear_sigmoid'])
    add('QLinearAveragePool', ['img8', 's1', 'z1', 's2', 'z1'], ['qlinear_avgpool'], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    add('QLinearAveragePool', ['nhwc8', 's1', 'z1', 's2', 'z1'], ['qlinear_avgpool_nhwc'], kernel_shape=[3, 3], strides=[2, 2], channels_last=1)
    add('QLinearGlobalAveragePool', ['img8', 's1', 'z1', 's2', 'z1'], ['qlinear_gap'])
    add('QLinearGlobalAveragePool', ['nhwc8', 's1', 'z1', 's2', 'z1'], ['qlinear_gap_nhwc'], channels_last=1)
    add('DynamicQuantizeMatMul', ['dq_a', 'w8', 's1', 'z1'], ['dq_matmul'])
    nodes.append(h.make_node('Slice', ['x', 'sl_start', 'dq_end', 'sl_axes'], ['dq_a'], name='dq_a'))
    inits.append(init('dq_end', np.array([16], np.int64)))
    add('MatMulIntegerToFloat', ['q8', 'w8', 's1', 's1', 'z1', 'z1'], ['matmul_int_to_float'])
    add('MatMulNBits', ['x', 'w4', 'w4_scales'], ['matmul_nbits'], K=H, N=8, bits=4, block_size=16)
    graph_inputs = [h.make_tensor_value_info(n, t, s) for n, (s, t) in inputs.items()]
    outs = [o for n in nodes for o in n.output if o]
    graph = h.make_graph(nodes, 'contrib_ops', graph_inputs, [onnx.ValueInfoProto(name=o) for o in outs], inits)
    m = h.make_model(graph, opset_imports=[h.make_opsetid('', 17), h.make_opsetid(MS, 1)], ir_version=9, producer_name='tensorplan ort_fixtures.py')
    path = os.path.join(out, 'contrib_ops.onnx')
    onnx.save(m, path)
    names = {'int64': T.INT64, 'int32': T.INT32, 'uint8': T.UINT8, 'float32': T.FLOAT}
    manifest['models']['contrib_ops'] = {
        'exporter': 'onnx.helper (ort_fixtures.py), as ONNX Runtime\'s contrib schemas define the operators',
        'inputs': {n: {'shape': s, 'dtype': next(k for k, v in names.items() if v == t)} for n, (s, t) in inputs.items()},
        'bytes': os.path.getsize(path), 'nodes': len(nodes),
        'note': 'one node of each com.microsoft operator ORT\'s CPU provider runs: ' + ', '.join(sorted({n.op_type for n in nodes if n.domain == MS})),
    }
    print(f'contrib_ops: {os.path.getsize(path)} bytes, {len(nodes)} nodes')


def build(out, manifest):
    bert_optimized(out, manifest)
    contrib_ops(out, manifest)


if __name__ == '__main__':
    OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'test', 'fixtures', 'onnx-real')
    mpath = os.path.join(OUT, 'manifest.json')
    manifest = json.load(open(mpath)) if os.path.exists(mpath) else {'models': {}}
    build(OUT, manifest)
    with open(mpath, 'w') as f:
        json.dump(manifest, f, indent=2)
        f.write('\n')
