# Reference shapes of every tensor of an ONNX model, for test/frontends/onnx/onnx-real.test.ts:
# ONNX's own shape inference (onnx.shape_inference.infer_shapes with data propagation) and the
# shapes onnxruntime really produces when it runs the model on random inputs (every node output
# of the main graph is made a graph output, so ORT returns it).
#
#   python3 scripts/onnx-fixtures/shapes.py MODEL.onnx '{"x": {"shape": [1, 3], "dtype": "float32"}}' '{"mode": 1}'
#
# Prints JSON: { "onnx": {name: [dims] | null}, "ort": {name: {"shape": [...], "dtype": "fp32"}},
#               "subgraph": [names produced inside If/Loop/Scan bodies, which ORT cannot return] }
import json, sys

import numpy as np
import onnx
import onnxruntime as ort

DTYPES = {np.float32: 'fp32', np.float16: 'fp16', np.float64: 'fp64', np.int64: 'int64', np.int32: 'int32',
          np.int16: 'int16', np.int8: 'int8', np.uint8: 'uint8', np.bool_: 'bool'}

path, inputs, values = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
model = onnx.load(path)

inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
static = {}
for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
    t = vi.type.tensor_type
    dims = [d.dim_value if d.HasField('dim_value') else None for d in t.shape.dim] if t.HasField('shape') else None
    static[vi.name] = dims if dims is not None and None not in dims else None

subgraph = []
def walk(graph, top):
    for node in graph.node:
        if not top: subgraph.extend(o for o in node.output if o)
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH: walk(a.g, False)
            for g in a.graphs: walk(g, False)
walk(model.graph, True)

# Every main-graph node output becomes a graph output, so the session returns its array.
names = [o.name for o in model.graph.output]
for node in model.graph.node:
    for o in node.output:
        if o and o not in names:
            names.append(o)
            model.graph.output.append(onnx.ValueInfoProto(name=o))
rng = np.random.default_rng(0)
feeds = {}
for name, spec in inputs.items():
    dtype = np.dtype(spec['dtype'])
    if name in values:
        feeds[name] = np.array(values[name], dtype=dtype).reshape(spec['shape'])
    elif np.issubdtype(dtype, np.integer):
        feeds[name] = rng.integers(0, 2, size=spec['shape']).astype(dtype)
    else:
        feeds[name] = rng.standard_normal(spec['shape']).astype(dtype)
options = ort.SessionOptions()
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
session = ort.InferenceSession(model.SerializeToString(), options, providers=['CPUExecutionProvider'])
outs = session.run(names, feeds)
actual = {n: {'shape': list(a.shape), 'dtype': DTYPES.get(a.dtype.type, str(a.dtype))} for n, a in zip(names, outs)}
json.dump({'onnx': static, 'ort': actual, 'subgraph': subgraph}, sys.stdout)
