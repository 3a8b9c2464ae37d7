// Resize's output shape (src/frontends/onnx/resize-shape.ts) for every opset's inputs: scales
// (floor(in * scale)), sizes with keep_aspect_ratio_policy stretch / not_larger / not_smaller
// (onnx 1.23.1 Operators.md "Resize": scale = Min / Max(sizes[i] / in[d]), round_int halves up),
// and the `axes` attribute (Resize-18). Where python has onnx and onnxruntime, every case is also
// run by ONNX Runtime and the shapes compared.
import { describe, expect, it } from 'vitest';
import { importOnnx } from '../../../dist/index.mjs';
import { findPython, python } from './fold-support';
import { T, onnxModel } from './onnx-models.mjs';

interface ResizeCase {
  name: string;
  x: number[];
  scales?: number[];
  sizes?: number[];
  policy?: string;
  axes?: number[];
  opset?: number;
  /** The shape the spec gives (checked by hand). */
  want: number[];
}

const CASES: ResizeCase[] = [
  // The spec's not_smaller example shape: scale = max(1/1, 1/1, 1/2, 3/4) = 1.
  { name: 'sizes, not_smaller, every axis', x: [1, 1, 2, 4], sizes: [1, 1, 1, 3], policy: 'not_smaller', want: [1, 1, 2, 4] },
  { name: 'sizes, not_larger, every axis', x: [1, 1, 2, 4], sizes: [1, 1, 1, 3], policy: 'not_larger', want: [1, 1, 1, 2] },
  { name: 'sizes, stretch (verbatim)', x: [1, 1, 2, 4], sizes: [1, 1, 1, 3], policy: 'stretch', want: [1, 1, 1, 3] },
  { name: 'sizes on axes [2, 3], not_larger', x: [1, 3, 20, 10], sizes: [7, 9], axes: [2, 3], policy: 'not_larger', want: [1, 3, 7, 4] },
  { name: 'sizes on axes [3, 2], not_smaller', x: [1, 3, 20, 10], sizes: [9, 7], axes: [3, 2], policy: 'not_smaller', want: [1, 3, 18, 9] },
  { name: 'sizes on axes [-1, -2], stretch', x: [1, 3, 20, 10], sizes: [9, 7], axes: [-1, -2], want: [1, 3, 7, 9] },
  { name: 'sizes on axes [3], stretch', x: [2, 3, 4, 5], sizes: [11], axes: [3], want: [2, 3, 4, 11] },
  { name: 'scales (floor)', x: [1, 1, 4, 4], scales: [1, 1, 0.6, 1.7], want: [1, 1, 2, 6] },
  { name: 'scales on axes [2, 3]', x: [1, 1, 4, 5], scales: [2.5, 0.5], axes: [2, 3], want: [1, 1, 10, 2] },
  { name: 'scales at opset 13', x: [1, 2, 3, 3], scales: [1, 1, 1.5, 2], opset: 13, want: [1, 2, 4, 6] },
  { name: 'sizes at opset 13', x: [1, 2, 3, 3], sizes: [1, 2, 5, 1], opset: 13, want: [1, 2, 5, 1] },
  { name: 'round_int halves up: 3 * 0.5 = 1.5 gives 2', x: [1, 1, 4, 3], sizes: [1, 1, 2, 100], policy: 'not_larger', want: [1, 1, 2, 2] },
];

/** A one-Resize model: X [shape], roi empty, scales or sizes as constants. */
function resizeModel(c: ResizeCase): Uint8Array {
  const opset = c.opset ?? 19;
  const attrs: Record<string, unknown> = { mode: 'nearest' };
  if (c.policy) attrs.keep_aspect_ratio_policy = c.policy;
  if (c.axes) attrs.axes = c.axes;
  const initializers = [
    ...(c.scales ? [{ name: 'scales', dims: [c.scales.length], type: T.FLOAT, floats: c.scales }] : []),
    ...(c.sizes ? [{ name: 'sizes', dims: [c.sizes.length], ints: c.sizes }] : []),
  ];
  return onnxModel({
    nodes: [{ op: 'Resize', name: 'resize', inputs: ['x', '', c.scales ? 'scales' : '', ...(c.sizes ? ['sizes'] : [])], outputs: ['y'], attrs }],
    inputs: [{ name: 'x', shape: c.x }],
    initializers,
    outputs: [{ name: 'y' }],
  }, opset);
}

const shapeOf = (c: ResizeCase) => importOnnx(resizeModel(c)).graph.tensors.find((t: { name: string }) => t.name === 'y')?.shape;

describe('ONNX import: Resize output shapes', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(shapeOf(c)).toEqual(c.want);
  });

  it('refuses what it cannot size, naming the reason', () => {
    const model = (over: Partial<ResizeCase>) => resizeModel({ name: '', x: [1, 1, 2, 4], want: [], ...over });
    expect(() => importOnnx(model({ sizes: [1, 3], policy: 'stretch' }))).toThrow(/sizes has 2 values for 4 axes \(rank 4\)/);
    expect(() => importOnnx(model({ sizes: [1, 1, 2, 3], policy: 'bigger' }))).toThrow(/keep_aspect_ratio_policy "bigger" is not one of/);
    // ONNX Runtime 1.30 keeps [20, 10] here (a negative axis matches no axis of its policy); the spec gives [18, 9].
    expect(() => importOnnx(model({ x: [1, 3, 20, 10], sizes: [9, 7], axes: [-1, -2], policy: 'not_smaller' }))).toThrow(/axes \[-1,-2\] hold a negative axis: with keep_aspect_ratio_policy "not_smaller" ONNX Runtime 1.30 keeps the input's sizes/);
    expect(() => importOnnx(model({ scales: [1, 1, 2, 2], policy: 'not_larger' }))).toThrow(/keep_aspect_ratio_policy "not_larger" applies to sizes, and scales are given/);
    // 10 x FLOAT(0.3) is 3.0000001 exactly but 3 in FLOAT: both floor to 3, so this one is sized.
    expect(shapeOf({ name: '', x: [1, 1, 1, 10], scales: [1, 1, 1, 0.3], want: [] })).toEqual([1, 1, 1, 3]);
    // FLOAT(0.7) = 0.699999988...: 10 x it is 6.99999988 exactly (floor 6), 7 in FLOAT (ORT: 7).
    expect(() => importOnnx(model({ x: [1, 1, 1, 10], scales: [1, 1, 1, 0.7] }))).toThrow(/axis 3: 10 x scale 0.699999988079071 is 6 rounded down exactly \(the spec\), 7 in FLOAT \(ONNX Runtime\)/);
  });

  const py = findPython(['onnx', 'onnxruntime', 'numpy']);
  it.skipIf(!py.python)(`every case's shape is ONNX Runtime's (${py.why})`, () => {
    const program = `
import json, sys, numpy as np, onnx, onnxruntime as ort
from onnx import helper, TensorProto as TP
out = []
for c in json.load(sys.stdin):
  opset = c.get('opset') or 19
  attrs = {'mode': 'nearest'}
  if c.get('policy'): attrs['keep_aspect_ratio_policy'] = c['policy']
  if c.get('axes'): attrs['axes'] = c['axes']
  inits = []
  if c.get('scales'): inits.append(helper.make_tensor('scales', TP.FLOAT, [len(c['scales'])], c['scales']))
  if c.get('sizes'): inits.append(helper.make_tensor('sizes', TP.INT64, [len(c['sizes'])], c['sizes']))
  ins = ['x', '', 'scales' if c.get('scales') else ''] + (['sizes'] if c.get('sizes') else [])
  g = helper.make_graph([helper.make_node('Resize', ins, ['y'], **attrs)], 'g', [helper.make_tensor_value_info('x', TP.FLOAT, c['x'])], [helper.make_tensor_value_info('y', TP.FLOAT, None)], inits)
  m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)]); m.ir_version = 9
  y = ort.InferenceSession(m.SerializeToString(), providers=['CPUExecutionProvider']).run(None, {'x': np.zeros(c['x'], dtype=np.float32)})[0]
  out.append(list(y.shape))
print(json.dumps(out))`;
    const shapes = python<number[][]>(py.python!, program, CASES);
    CASES.forEach((c, k) => expect(shapes[k], c.name).toEqual(c.want));
  });
});
