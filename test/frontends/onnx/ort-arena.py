# What ONNX Runtime's CPU arena holds while it runs a model like-for-like with
# `tensorplan plan MODEL --external-io --runtime ort-cpu`: the initializers are fed as graph inputs
# (user buffers, outside the arena), graph optimisations are off (the plan is of the file's graph),
# one intra-op thread (ortThreads 1). Run 3 times (the first run records the memory pattern, later
# runs allocate the pattern's block at run start) with profiling; from the last run's node events
# (onnxruntime/core/framework/sequential_executor.cc adds the CPU arena's stats to each node's
# kernel_time event) print, as JSON: the least `mem_bytes_requested_in_use` at a node's end
# (`minRequested`: the pattern block as ORT asked for it, plus graph outputs ORT allocated so far;
# kernel scratch is freed before a node ends), the least `mem_bytes_in_use` (`minInUse`: the same in
# the arena's chunks, which BFCArena may leave unsplit and larger than asked: whisper-tiny's encoder
# block of 100,080,128 B held a 134,217,728 B chunk), the arena's all-time `mem_in_use_peak`
# (scratch included), and per node its name, op and in-use.
# Usage: python ort-arena.py MODEL.onnx '{"input": {"shape": [...], "dtype": "float32"}, ...}'
import json, os, sys, tempfile
import numpy as np, onnx, onnxruntime as ort
from onnx import numpy_helper

path, spec = sys.argv[1], json.loads(sys.argv[2])
m = onnx.load(path)
feeds = {}
for init in list(m.graph.initializer):
    arr = numpy_helper.to_array(init)
    feeds[init.name] = arr
    m.graph.input.append(onnx.helper.make_tensor_value_info(init.name, init.data_type, list(arr.shape)))
del m.graph.initializer[:]
rng = np.random.default_rng(0)
for inp in m.graph.input:
    if inp.name in feeds: continue
    s = spec[inp.name]
    dt = np.dtype(s['dtype'])
    if 'value' in s: feeds[inp.name] = np.full(s['shape'], s['value'], dtype=dt)
    elif dt.kind == 'f': feeds[inp.name] = (rng.random(s['shape']) * 3).astype(dt)
    else: feeds[inp.name] = np.ones(s['shape'], dtype=dt)
tmp = tempfile.mkdtemp()
f = os.path.join(tmp, 'm.onnx')
onnx.save(m, f)
so = ort.SessionOptions()
so.enable_profiling = True
so.profile_file_prefix = os.path.join(tmp, 'p')
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
so.intra_op_num_threads = 1
s = ort.InferenceSession(f, so, providers=['CPUExecutionProvider'])
for _ in range(3): s.run(None, feeds)
events = json.load(open(s.end_profiling()))
last = [e for e in events if e.get('name') == 'model_run'][-1]
t0, t1 = last['ts'], last['ts'] + last['dur']
nodes = [e for e in events if e.get('cat') == 'Node' and t0 <= e['ts'] <= t1 and e['name'].endswith('_kernel_time') and 'mem_bytes_in_use' in e.get('args', {})]
nodes.sort(key=lambda e: e['ts'])
print(json.dumps({
    'minRequested': min(int(e['args']['mem_bytes_requested_in_use']) for e in nodes),
    'minInUse': min(int(e['args']['mem_bytes_in_use']) for e in nodes),
    'peak': max(int(e['args']['mem_in_use_peak']) for e in nodes),
    'nodes': [{'name': e['name'][:-len('_kernel_time')], 'op': e['args'].get('op_name'), 'inUse': int(e['args']['mem_bytes_in_use'])} for e in nodes],
}))
