# Cases derived from the operators' specs, beside ONNX's own node tests (onnx-node-suite.py): for
# the operators whose shape rules live in src/frontends/onnx/infer/, one-node models over other
# shapes, attributes and opsets than the node tests use, each output computed by onnx's reference
# implementation (onnx.reference.ReferenceEvaluator, onnx 1.23.1), or by onnxruntime where the
# reference has no implementation (MaxRoiPool, Multinomial) or fails on the case. Inputs marked constant are
# initializers (a shape rule may need their values). Written in onnx-node-suite.py's layout
# (model.onnx, stripped.onnx, manifest.json) for onnx-node-suite.test.ts.
#
# Usage: python3 onnx-derived-cases.py OUTDIR
import importlib.util
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('onnx_node_suite', os.path.join(_here, 'onnx-node-suite.py'))
suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite)

rng = np.random.default_rng(7)
f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
i64 = lambda *v: np.array(v, dtype=np.int64)
CASES = []
REFERENCE_DEPARTS = {'Optional', 'OptionalHasElement', 'OptionalGetElement', 'Scaler'}


def case(name, op, inputs, opset, outputs=1, domain='', consts=(), **attrs):
    """inputs: list of (name, array or None for omitted). consts: names given as initializers.
    domain: the node's domain, 'domain@version' for a version other than 1."""
    CASES.append((name, op, inputs, opset, outputs, domain, set(consts), attrs))


def attention_cases():
    for opset in (23, 24):
        for (b, hq, hkv, sq, skv, e, ev, past) in [(2, 4, 2, 3, 5, 8, 6, 0), (1, 3, 1, 1, 4, 4, 4, 2), (2, 2, 2, 4, 4, 5, 7, 3)]:
            q, k, v = f32(b, hq, sq, e), f32(b, hkv, skv, e), f32(b, hkv, skv, ev)
            ins = [('Q', q), ('K', k), ('V', v)]
            outs = 4 if hq == 2 else 1
            if past:
                ins += [('mask', None), ('past_key', f32(b, hkv, past, e)), ('past_value', f32(b, hkv, past, ev))]
                outs = 4
            case(f'attention_4d_{opset}_{hq}_{hkv}_{past}', 'Attention', ins, opset, outs)
            ins3 = [('Q', q.transpose(0, 2, 1, 3).reshape(b, sq, hq * e)), ('K', k.transpose(0, 2, 1, 3).reshape(b, skv, hkv * e)),
                    ('V', v.transpose(0, 2, 1, 3).reshape(b, skv, hkv * ev))] + ins[3:]
            case(f'attention_3d_{opset}_{hq}_{hkv}_{past}', 'Attention', ins3, opset, outs, q_num_heads=hq, kv_num_heads=hkv)
    case('rotary_embedding_4d', 'RotaryEmbedding', [('X', f32(2, 3, 4, 8)), ('cos', f32(2, 4, 4)), ('sin', f32(2, 4, 4))], 23)
    case('rotary_embedding_3d_ids', 'RotaryEmbedding', [('X', f32(2, 4, 6 * 2)), ('cos', f32(10, 3)), ('sin', f32(10, 3)), ('pos', i64(*range(4), *range(4)).reshape(2, 4))], 23, num_heads=2)
    case('attention_3d_causal_softcap', 'Attention', [('Q', f32(2, 5, 4 * 3)), ('K', f32(2, 6, 2 * 3)), ('V', f32(2, 6, 2 * 5))], 23, 4,
         q_num_heads=4, kv_num_heads=2, is_causal=1, softcap=2.0)
    case('rms_normalization_axis1', 'RMSNormalization', [('X', f32(2, 3, 4)), ('scale', f32(3, 4))], 23, axis=1)
    case('rms_normalization_fp16_scale', 'RMSNormalization', [('X', f32(3, 5)), ('scale', f32(5).astype(np.float16))], 23)
    case('tensor_scatter_axis2', 'TensorScatter', [('past', f32(2, 3, 6, 4)), ('update', f32(2, 3, 2, 4)), ('idx', i64(1, 3))], 24, axis=2)
    case('swiglu_3d', 'SwiGLU', [('A', f32(2, 3, 5)), ('B', f32(2, 3, 5))], 28)
    case('causal_conv_with_state_past', 'CausalConvWithState', [('x', f32(2, 3, 6)), ('w', f32(3, 1, 4)), ('b', f32(3)), ('past', f32(2, 3, 3))], 27, outputs=2)
    case('linear_attention_gqa', 'LinearAttention', [('q', f32(1, 3, 4 * 2)), ('k', f32(1, 3, 2 * 2)), ('v', f32(1, 3, 2 * 5)), ('past', f32(1, 2, 2, 5))], 27,
         outputs=2, q_num_heads=4, kv_num_heads=2, update_rule='linear')


def loss_cases():
    for reduction in ('none', 'sum', 'mean'):
        x = f32(3, 5, 2, 2)
        t = rng.integers(0, 5, (3, 2, 2)).astype(np.int64)
        case(f'nll_4d_{reduction}', 'NegativeLogLikelihoodLoss', [('x', x), ('t', t), ('w', np.abs(f32(5)))], 22, reduction=reduction)
        case(f'sce_4d_{reduction}', 'SoftmaxCrossEntropyLoss', [('x', x), ('t', t)], 13, outputs=2, reduction=reduction)
    case('nll_2d_default', 'NegativeLogLikelihoodLoss', [('x', f32(4, 3)), ('t', i64(0, 2, 1, 1))], 13)


def signal_cases():
    x = f32(2, 9, 1)
    for opset in (17, 20):
        case(f'dft_{opset}_onesided', 'DFT', [('x', x)] + ([('n', None), ('axis', i64(1).reshape(()))] if opset >= 20 else []), opset, onesided=1, consts=('axis',), **({'axis': 1} if opset < 20 else {}))
        case(f'dft_{opset}_length', 'DFT', [('x', x), ('n', i64(12).reshape(()))], opset, consts=('n',))
        case(f'dft_{opset}_irfft', 'DFT', [('x', f32(2, 5, 2))], opset, onesided=1, inverse=1)
    case('dft_17_negative_axis', 'DFT', [('x', f32(2, 3, 5, 1))], 17, axis=-2)
    case('dft_20_axis0', 'DFT', [('x', f32(6, 3, 2)), ('n', None), ('axis', i64(0).reshape(()))], 20, consts=('axis',))
    case('dft_20_negative_axis', 'DFT', [('x', f32(2, 3, 7, 1)), ('n', np.array(5, dtype=np.int64)), ('axis', i64(-3).reshape(()))], 20, consts=('n', 'axis'))
    sig = f32(2, 64, 1)
    case('stft_window', 'STFT', [('s', sig), ('step', i64(8).reshape(())), ('w', np.hanning(16).astype(np.float32))], 17, consts=('step', 'w'))
    case('stft_complex', 'STFT', [('s', f32(1, 32, 2)), ('step', i64(4).reshape(())), ('w', None), ('len', i64(8).reshape(()))], 17, onesided=0, consts=('step', 'len'))
    case('stft_length_twosided', 'STFT', [('s', sig), ('step', i64(5).reshape(())), ('w', None), ('len', i64(10).reshape(()))], 17, onesided=0, consts=('step', 'len'))
    for op in ('HannWindow', 'HammingWindow', 'BlackmanWindow'):
        case(f'{op}_double', op, [('n', np.array(7, dtype=np.int64))], 17, output_datatype=T.DOUBLE, periodic=0, consts=('n',))
    case('mel_weight_matrix', 'MelWeightMatrix', [('bins', np.array(6, dtype=np.int64)), ('n', np.array(15, dtype=np.int64)), ('rate', np.array(8000, dtype=np.int64)),
         ('lo', np.array(0, dtype=np.float32)), ('hi', np.array(4000, dtype=np.float32))], 17, consts=('bins', 'n', 'rate', 'lo', 'hi'))


def image_cases():
    case('grid_sample_3d', 'GridSample', [('x', f32(1, 2, 3, 4, 5)), ('g', rng.uniform(-1, 1, (1, 2, 3, 2, 3)).astype(np.float32))], 22)
    case('grid_sample_16', 'GridSample', [('x', f32(1, 2, 4, 4)), ('g', rng.uniform(-1, 1, (1, 3, 5, 2)).astype(np.float32))], 16, align_corners=1)
    case('grid_sample_2d_nearest', 'GridSample', [('x', f32(2, 3, 4, 4)), ('g', rng.uniform(-1, 1, (2, 5, 2, 2)).astype(np.float32))], 20, mode='nearest')
    case('affine_grid_3d', 'AffineGrid', [('theta', f32(2, 3, 4)), ('size', i64(2, 1, 3, 4, 5))], 20, consts=('size',))
    case('roi_align_sizes', 'RoiAlign', [('x', f32(2, 3, 8, 8)), ('rois', np.array([[0, 0, 4, 4], [1, 1, 6, 7], [2, 2, 3, 3]], np.float32)), ('bi', i64(0, 1, 1))], 16,
         output_height=2, output_width=3)
    case('max_roi_pool', 'MaxRoiPool', [('x', f32(1, 2, 6, 6)), ('rois', np.array([[0, 0, 0, 3, 3], [0, 1, 1, 5, 4]], np.float32))], 1, pooled_shape=[2, 3])
    case('deform_conv_strided', 'DeformConv', [('x', f32(1, 2, 5, 6)), ('w', f32(4, 2, 2, 3)), ('off', np.zeros((1, 12, 2, 2), np.float32))], 19, strides=[2, 2], pads=[0, 0, 0, 0])
    case('col2im_strided', 'Col2Im', [('x', f32(1, 2 * 4, 9)), ('img', i64(6, 6)), ('blk', i64(2, 2))], 18, strides=[2, 2], consts=('img', 'blk'))
    case('roi_align_22', 'RoiAlign', [('x', f32(1, 2, 5, 5)), ('rois', np.array([[0, 0, 2, 2]], np.float32)), ('bi', i64(0))], 22, mode='max', output_height=3)
    case('center_crop_pad_axes', 'CenterCropPad', [('x', f32(4, 5, 3)), ('shape', i64(7, 2))], 18, axes=[0, -2], consts=('shape',))
    case('max_unpool_strided', 'MaxUnpool', [('x', f32(1, 1, 2, 2)), ('i', i64(0, 3, 10, 15).reshape(1, 1, 2, 2))], 11, kernel_shape=[2, 2], strides=[2, 2])
    case('max_unpool_output_shape', 'MaxUnpool', [('x', f32(1, 1, 2, 2)), ('i', i64(0, 3, 10, 15).reshape(1, 1, 2, 2)), ('shape', i64(1, 1, 5, 5))], 11,
         kernel_shape=[2, 2], strides=[2, 2], consts=('shape',))


def data_dependent_cases():
    boxes = rng.uniform(0, 1, (2, 6, 4)).astype(np.float32)
    scores = rng.uniform(0, 1, (2, 3, 6)).astype(np.float32)
    case('nms_const_max', 'NonMaxSuppression', [('b', boxes), ('s', scores), ('m', i64(2)), ('iou', np.array([0.5], np.float32)), ('t', np.array([0.1], np.float32))], 11,
         consts=('m', 'iou', 't'))
    case('nms_input_max', 'NonMaxSuppression', [('b', boxes), ('s', scores), ('m', i64(10)), ('iou', np.array([0.3], np.float32))], 11)
    case('nms_no_max', 'NonMaxSuppression', [('b', boxes), ('s', scores)], 11)
    case('nonzero_3d', 'NonZero', [('x', (rng.integers(0, 2, (2, 3, 4))).astype(np.int32))], 13)
    case('unique_axis1', 'Unique', [('x', np.array([[1, 1, 2], [3, 3, 4]], np.float32))], 11, outputs=4, axis=1, sorted=1)
    case('unique_negative_axis', 'Unique', [('x', np.array([[1, 1], [2, 2], [1, 1]], np.int32))], 11, outputs=4, axis=-2)
    case('unique_flat_unsorted', 'Unique', [('x', np.array([[2, 1, 2], [1, 5, 2]], np.int64))], 11, outputs=4, sorted=0)
    case('compress_short_condition', 'Compress', [('x', f32(3, 4)), ('c', np.array([1, 0, 1], np.bool_))], 11, axis=1)
    case('compress_flat_input_condition', 'Compress', [('x', f32(2, 3)), ('c', np.array([1, 0, 1, 1], np.bool_))], 11)
    case('nonzero_scalar', 'NonZero', [('x', np.array(3, np.float32))], 13)
    case('compress_const_condition', 'Compress', [('x', f32(3, 4)), ('c', np.array([0, 1, 1, 0, 1], np.bool_))], 11, consts=('c',))


def math_cases():
    case('cumprod_reverse', 'CumProd', [('x', f32(2, 3)), ('axis', i64(1).reshape(()))], 26, reverse=1, exclusive=1, consts=('axis',))
    for op in ('Acosh', 'Asinh', 'Atanh'):
        x = rng.uniform(1.1, 3, (2, 2)).astype(np.float32) if op == 'Acosh' else rng.uniform(-0.9, 0.9, (3,)).astype(np.float32)
        case(f'{op}_fp32', op, [('x', x)], 22)
    case('bitcast_int32_to_float', 'BitCast', [('x', np.array([[1065353216, 0]], np.int32))], 26, to=T.FLOAT)
    case('bitcast_uint16_to_fp16', 'BitCast', [('x', np.array([15360], np.uint16))], 26, to=T.FLOAT16)
    case('det_batched', 'Det', [('x', f32(2, 3, 4, 4))], 22)
    case('eye_like_dtype', 'EyeLike', [('x', f32(3, 5))], 22, k=1, dtype=T.INT32)
    case('random_uniform_like_dtype', 'RandomUniformLike', [('x', f32(2, 3))], 22, dtype=T.DOUBLE)
    case('bernoulli_input_type', 'Bernoulli', [('x', rng.uniform(0, 1, (4,)).astype(np.float64))], 22)
    case('multinomial_samples', 'Multinomial', [('x', np.log(np.full((2, 3), 1 / 3, np.float32)))], 7, sample_size=5)
    case('tfidf_1d_idf', 'TfIdfVectorizer', [('x', np.array([1, 2, 3, 2], np.int64))], 9, mode='IDF', min_gram_length=1, max_gram_length=1,
         max_skip_count=0, ngram_counts=[0], ngram_indexes=[2, 0, 1], pool_int64s=[1, 2, 3], weights=[0.5, 1.0, 2.0])
    case('tfidf_2d', 'TfIdfVectorizer', [('x', np.array([[1, 2, 3, 4], [2, 3, 4, 5]], np.int32))], 9, mode='TF', min_gram_length=1, max_gram_length=2,
         max_skip_count=0, ngram_counts=[0, 3], ngram_indexes=[0, 1, 2, 3, 4], pool_int64s=[2, 3, 5, 2, 3, 4, 5])


def ml_cases():
    x = f32(4, 3)
    ml = 'ai.onnx.ml'
    case('ml_array_feature_extractor_1d', 'ArrayFeatureExtractor', [('x', f32(5)), ('i', i64(0, 3, 4))], 13, domain=ml)
    case('ml_array_feature_extractor_3d', 'ArrayFeatureExtractor', [('x', f32(2, 3, 5)), ('i', i64(1, 2))], 13, domain=ml)
    case('ml_binarizer', 'Binarizer', [('x', x)], 13, domain=ml, threshold=0.1)
    case('ml_scaler_int', 'Scaler', [('x', np.array([[1, 2], [3, 4]], np.int64))], 13, domain=ml, offset=[0.5, 1.0], scale=[2.0, 3.0])
    case('ml_normalizer', 'Normalizer', [('x', x)], 13, domain=ml, norm='L2')
    case('ml_imputer', 'Imputer', [('x', x)], 13, domain=ml, imputed_value_floats=[0.0, 1.0, 2.0], replaced_value_float=0.0)
    case('ml_label_encoder_int_to_float', 'LabelEncoder', [('x', i64(1, 2, 3))], 13, domain=f'{ml}@2', keys_int64s=[1, 2], values_floats=[0.5, 1.5], default_float=-1.0)
    case('ml_one_hot_encoder', 'OneHotEncoder', [('x', i64(1, 3, 1).reshape(1, 3))], 13, domain=ml, cats_int64s=[1, 2, 3, 4], zeros=1)
    case('ml_linear_regressor', 'LinearRegressor', [('x', x)], 13, domain=ml, coefficients=f32(6).tolist(), intercepts=[0.1, 0.2], targets=2)
    case('ml_svm_regressor', 'SVMRegressor', [('x', x)], 13, domain=ml, coefficients=[1.0, -1.0], support_vectors=f32(6).tolist(), n_supports=2, rho=[0.5],
         kernel_type='LINEAR')
    tree = dict(nodes_featureids=[0, 0, 0], nodes_modes=['BRANCH_LEQ', 'LEAF', 'LEAF'], nodes_nodeids=[0, 1, 2], nodes_treeids=[0, 0, 0],
                nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0], nodes_values=[0.0, 0.0, 0.0],
                target_ids=[0, 1, 0], target_nodeids=[1, 1, 2], target_treeids=[0, 0, 0], target_weights=[1.0, 2.0, 3.0], n_targets=2)
    case('ml_tree_ensemble_regressor', 'TreeEnsembleRegressor', [('x', x)], 13, domain=f'{ml}@3', **tree)


def sequence_cases():
    # Sequences inside one graph: built and read back as tensors.
    CASES.append(('split_to_sequence_concat', None, [
        h.make_node('SplitToSequence', ['x', 'split'], ['seq'], axis=1),
        h.make_node('SequenceAt', ['seq', 'one'], ['second']),
        h.make_node('ConcatFromSequence', ['seq'], ['y'], axis=1),
        h.make_node('SequenceLength', ['seq'], ['n']),
    ], 11, ['second', 'y', 'n'], '', {'split', 'one'}, {'x': f32(2, 7), 'split': i64(2, 5), 'one': np.array(-1, np.int64)}))
    CASES.append(('sequence_insert_erase_stack', None, [
        h.make_node('SplitToSequence', ['x'], ['seq'], axis=0, keepdims=0),
        h.make_node('SequenceInsert', ['seq', 'x0'], ['seq2']),
        h.make_node('SequenceErase', ['seq2', 'zero'], ['seq3']),
        h.make_node('ConcatFromSequence', ['seq3'], ['y'], axis=1, new_axis=1),
    ], 11, ['y'], '', {'zero'}, {'x': f32(3, 4), 'x0': f32(4), 'zero': np.array(0, np.int64)}))
    body = h.make_graph([h.make_node('Transpose', ['e'], ['t']), h.make_node('Mul', ['e', 'w'], ['m'])], 'body',
                        [h.make_tensor_value_info('e', T.FLOAT, None), h.make_tensor_value_info('w', T.FLOAT, None)],
                        [h.make_tensor_value_info('t', T.FLOAT, None), h.make_tensor_value_info('m', T.FLOAT, None)])
    CASES.append(('sequence_map_transpose', None, [
        h.make_node('SplitToSequence', ['x', 'split'], ['seq'], axis=1),
        h.make_node('SequenceMap', ['seq', 'w'], ['ts', 'ms'], body=body),
        h.make_node('ConcatFromSequence', ['ts'], ['y'], axis=0),
        h.make_node('SequenceAt', ['ms', 'one'], ['z']),
    ], 17, ['y', 'z'], '', {'split', 'one'}, {'x': f32(2, 7), 'w': f32(2, 1), 'split': i64(3, 4), 'one': np.array(1, np.int64)}))
    CASES.append(('split_to_sequence_scalar_split_insert', None, [
        h.make_node('SplitToSequence', ['x', 'three'], ['seq'], axis=1),
        h.make_node('SequenceInsert', ['seq', 'x0', 'zero'], ['seq2']),
        h.make_node('SequenceAt', ['seq2', 'last'], ['tail']),
        h.make_node('SequenceAt', ['seq2', 'zero'], ['head']),
        h.make_node('ConcatFromSequence', ['seq2'], ['y'], axis=-1),
    ], 11, ['tail', 'head', 'y'], '', {'three', 'zero', 'last'},
        {'x': f32(2, 7), 'x0': f32(2, 4), 'three': np.array(3, np.int64), 'zero': np.array(0, np.int64), 'last': np.array(-1, np.int64)}))
    CASES.append(('optional_tensor', None, [
        h.make_node('Optional', ['x'], ['o']),
        h.make_node('OptionalHasElement', ['o'], ['has']),
        h.make_node('OptionalGetElement', ['o'], ['y']),
    ], 18, ['has', 'y'], '', set(), {'x': f32(2, 3)}))


def build(name, op, inputs, opset, outputs, domain, consts, attrs):
    if op is None:  # a multi-node graph: inputs are the nodes, outputs the graph outputs, attrs the feeds
        nodes, feeds, out_names = inputs, attrs, outputs
        graph_inputs = [(n, v) for n, v in feeds.items() if n not in consts]
        inits = [numpy_helper.from_array(v, n) for n, v in feeds.items() if n in consts]
    else:
        names = [n if v is not None else '' for n, v in inputs]
        out_names = [f'y{k}' for k in range(outputs)]
        nodes = [h.make_node(op, names, out_names, domain=domain.split('@')[0], **attrs)]
        graph_inputs = [(n, v) for n, v in inputs if v is not None and n not in consts]
        inits = [numpy_helper.from_array(v, n) for n, v in inputs if v is not None and n in consts]
        feeds = {n: v for n, v in inputs if v is not None}
    vi = [h.make_tensor_value_info(n, h.np_dtype_to_tensor_dtype(v.dtype), v.shape) for n, v in graph_inputs]
    probe = h.make_model(h.make_graph(nodes, name, vi, [h.make_value_info(o, onnx.TypeProto()) for o in out_names], inits),
                         opset_imports=[h.make_opsetid('', opset)] + ([h.make_opsetid(domain.split('@')[0], int((domain + '@1').split('@')[1]))] if domain else []))
    probe.ir_version = 10
    try:
        # Where onnx 1.23.1's reference departs from the spec, onnxruntime runs the case: its
        # Optional wraps a tensor in a list (OptionalGetElement then gives [1, ...shape]), and its
        # Scaler keeps an integer input's type (the spec's Y is tensor(float)).
        if any(n.op_type in REFERENCE_DEPARTS for n in nodes):
            raise NotImplementedError(nodes[0].op_type)
        results = ReferenceEvaluator(probe).run(None, {n: v for n, v in graph_inputs})
    except Exception:
        import onnxruntime
        session = onnxruntime.InferenceSession(probe.SerializeToString(), providers=['CPUExecutionProvider'])
        results = session.run(None, {n: v for n, v in graph_inputs})
    outs = [h.make_tensor_value_info(o, h.np_dtype_to_tensor_dtype(np.asarray(r).dtype), np.asarray(r).shape) for o, r in zip(out_names, results)]
    model = h.make_model(h.make_graph(nodes, name, vi, outs, inits), opset_imports=probe.opset_import)
    model.ir_version = 10
    return model, [v for _, v in graph_inputs], results


class Case:
    def __init__(self, name, model, inputs, outputs):
        self.name, self.model, self.data_sets, self.rtol, self.atol = name, model, [(inputs, outputs)], 1e-3, 1e-7


def collect():
    warnings.simplefilter('ignore')
    for make in (attention_cases, loss_cases, signal_cases, image_cases, data_dependent_cases, math_cases, ml_cases, sequence_cases):
        make()
    made = []
    for c in CASES:
        try:
            model, inputs, outputs = build(*c)
        except Exception as error:  # a case the reference cannot run is left out, and said so
            print(f'{c[0]}: left out, the reference implementation fails: {str(error).splitlines()[0][:200]}', file=sys.stderr)
            continue
        made.append(Case(f'derived_{c[0]}', model, inputs, [np.asarray(r) for r in outputs]))
    return made


if __name__ == '__main__':
    suite.main(collect)
