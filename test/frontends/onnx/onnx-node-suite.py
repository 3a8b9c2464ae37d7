# ONNX's backend node tests, generated from the installed onnx package
# (onnx.backend.test.case.node.collect_testcases, the cases `backend-test-tools generate-data`
# writes as backend/test/data/node): for each case, its model as written (model.onnx), the same
# model with every declared shape removed (stripped.onnx: value_info dropped, the shapes of graph
# and subgraph outputs cleared, element types kept), and a manifest.json with each graph input's
# and output's kind, element type, shape and elements (test_data_set_0), for
# onnx-node-suite.test.ts.
#
# Usage: python3 onnx-node-suite.py OUTDIR
import json
import math
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper
from onnx.backend.test.case import node as node_cases

# Elements of inputs and outputs beyond this many are not written (the values mode needs them all).
MAX_ELEMENTS = 1 << 16


def strip_graph(graph):
    del graph.value_info[:]
    for o in graph.output:
        clear_shapes(o.type)
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                strip_graph(a.g)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for g in a.graphs:
                    strip_graph(g)


def clear_shapes(t):
    kind = t.WhichOneof('value')
    if kind == 'tensor_type' or kind == 'sparse_tensor_type':
        getattr(t, kind).ClearField('shape')
    elif kind == 'sequence_type':
        clear_shapes(t.sequence_type.elem_type)
    elif kind == 'optional_type':
        clear_shapes(t.optional_type.elem_type)
    elif kind == 'map_type':
        clear_shapes(t.map_type.value_type)


def number(v):
    """A float as JSON carries it: non-finite values as strings."""
    f = float(v)
    if math.isnan(f):
        return 'nan'
    if math.isinf(f):
        return 'inf' if f > 0 else '-inf'
    return f


def tensor_entry(arr, elem_type):
    entry = {'kind': 'tensor', 'elemType': elem_type, 'shape': [int(d) for d in arr.shape]}
    if arr.size > MAX_ELEMENTS:
        return entry
    flat = arr.reshape(-1)
    try:
        if elem_type in (TensorProto.STRING, TensorProto.COMPLEX64, TensorProto.COMPLEX128):
            return entry
        if arr.dtype == np.bool_:
            entry['values'] = [str(int(x)) for x in flat]
        elif np.issubdtype(arr.dtype, np.integer):
            entry['values'] = [str(int(x)) for x in flat]
        else:
            entry['values'] = [number(x) for x in flat.astype(np.float64)]
    except (TypeError, ValueError):
        pass
    return entry


def entry_of(value, type_proto):
    kind = type_proto.WhichOneof('value')
    if kind != 'tensor_type':
        return {'kind': {'sequence_type': 'sequence', 'optional_type': 'optional', 'map_type': 'map'}.get(kind, str(kind))}
    elem_type = type_proto.tensor_type.elem_type
    if isinstance(value, TensorProto):
        elem_type = value.data_type
        value = numpy_helper.to_array(value)
    arr = np.asarray(value)
    return tensor_entry(arr, elem_type)


def main(collect=node_cases.collect_testcases):
    out = sys.argv[1]
    warnings.simplefilter('ignore')
    np.seterr(all='ignore')
    cases = []
    for case in collect():
        model = case.model
        folder = os.path.join(out, case.name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, 'model.onnx'), 'wb') as f:
            f.write(model.SerializeToString())
        stripped = onnx.ModelProto()
        stripped.CopyFrom(model)
        strip_graph(stripped.graph)
        with open(os.path.join(folder, 'stripped.onnx'), 'wb') as f:
            f.write(stripped.SerializeToString())
        inputs, outputs = case.data_sets[0]
        g = model.graph
        cases.append({
            'name': case.name,
            'ops': sorted({n.op_type for n in g.node}),
            'opset': next((o.version for o in model.opset_import if o.domain in ('', 'ai.onnx')), None),
            'rtol': case.rtol,
            'atol': case.atol,
            'inputs': [dict(entry_of(v, g.input[k].type), name=g.input[k].name) for k, v in enumerate(inputs)],
            'outputs': [dict(entry_of(v, g.output[k].type), name=g.output[k].name) for k, v in enumerate(outputs)],
        })
    with open(os.path.join(out, 'manifest.json'), 'w') as f:
        json.dump({'onnx': onnx.__version__, 'cases': cases}, f)


if __name__ == '__main__':
    main()
