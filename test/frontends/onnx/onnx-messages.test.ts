// What the importer says where it stops, and the values it takes: graph inputs that are not
// tensors, element types by their ONNX names (onnx 1.23.1 TensorProto.DataType), Split folded like
// the other movement ops (and a message that names the node folding stops at), and `values` with
// empty tensors, NaN and +-Infinity.
import { describe, expect, it } from 'vitest';
import { importOnnx } from '../../../dist/index.mjs';
import type { Known } from '../../../src/frontends/onnx/fold/evaluate';
import { inferNode } from '../../../src/frontends/onnx/onnx-infer';
import { findPython, python } from './fold-support';
import { T, ints, onnxModel, oneNode } from './onnx-models.mjs';

const tensorOf = (model: Uint8Array, name: string, options = {}) => importOnnx(model, options).graph.tensors.find((t: { name: string }) => t.name === name);

describe('ONNX import: graph inputs that are not tensors', () => {
  it.each([
    ['sequence', /graph input "s" is seq\(tensor\(float\)\) \(a sequence\): the importer plans tensors only, so neither --input nor --value can describe it/],
    ['optional', /graph input "s" is optional\(tensor\(float\)\) \(an optional\)/],
  ] as const)('a %s input is named as such, never told to use --input', (kind, message) => {
    const model = onnxModel({
      nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }],
      inputs: [{ name: 'x', shape: [2] }, { name: 's', kind, shape: [2] }],
      outputs: [{ name: 'y' }],
    }, 18);
    expect(() => importOnnx(model)).toThrow(message);
    expect(() => importOnnx(model, { inputShapes: { s: [2] } })).toThrow(message);
    try { importOnnx(model); } catch (error) { expect(String(error)).not.toMatch(/--input s=/); }
  });
});

describe('ONNX import: element types by name', () => {
  it('INT4 and INT2 are named and sized packed; FLOAT6 is named', () => {
    expect(tensorOf(oneNode('Identity', { x: [3, 5] }, { types: { x: T.INT4 } }), 'y')).toMatchObject({ bytes: 8 }); // ceil(15 / 2)
    expect(tensorOf(oneNode('Identity', { x: [3, 5] }, { types: { x: T.INT2 } }), 'y')).toMatchObject({ bytes: 4 }); // ceil(15 / 4)
    expect(() => importOnnx(oneNode('Identity', { x: [2] }, { types: { x: T.FLOAT6E2M3 } }))).toThrow(/element type FLOAT6E2M3 has no fixed size/);
    expect(() => importOnnx(oneNode('Identity', { x: [2] }, { types: { x: 99 } }))).toThrow(/element type 99 \(not a TensorProto.DataType of onnx 1.23.1\)/);
  });

  it('a --value for an input of a type values cannot be given for names the type', () => {
    const model = oneNode('Identity', { x: [] }, { types: { x: T.INT4 } });
    expect(() => importOnnx(model, { values: { x: 1 } })).toThrow(/graph input "x" is INT4; values can be given for numeric and bool inputs only/);
  });
});

describe('ONNX import: Split folds', () => {
  const x: Known = { shape: [2, 5], elemType: 7, data: [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n] };
  it('by split sizes, by num_outputs (the last part smaller), and evenly before opset 18', () => {
    const infer = (attrs: Record<string, number | number[]>, opset: number, outputs: number, sizes?: number[]) => {
      const node = { name: 'split', opType: 'Split', domain: '', inputs: ['x', ...(sizes ? ['s'] : [])], outputs: Array.from({ length: outputs }, (_, k) => `o${k}`), attributes: new Map(Object.entries(attrs).map(([name, v]) => [name, Array.isArray(v) ? { name, type: 7, ints: v, floats: [], exactInts: v.map(BigInt) } : { name, type: 2, i: v, ints: [], floats: [], exactInts: [] }])) };
      const inputs = [x, ...(sizes ? [{ shape: [sizes.length], elemType: 7, data: sizes.map(BigInt) }] : [])];
      return inferNode({ node, inputs, opset }) as Known[];
    };
    expect(infer({ axis: 1 }, 13, 2, [2, 3]).map((v) => v.data)).toEqual([[0n, 1n, 5n, 6n], [2n, 3n, 4n, 7n, 8n, 9n]]);
    expect(infer({ axis: 1, num_outputs: 2 }, 18, 2).map((v) => v.shape)).toEqual([[2, 3], [2, 2]]);
    expect(infer({ axis: -1, num_outputs: 3 }, 18, 3).map((v) => v.data)).toEqual([[0n, 1n, 5n, 6n], [2n, 3n, 7n, 8n], [4n, 9n]]);
    expect(infer({ axis: 0 }, 13, 2).map((v) => v.data)).toEqual([[0n, 1n, 2n, 3n, 4n], [5n, 6n, 7n, 8n, 9n]]);
    expect(infer({ axis: 1, split: [1, 4] }, 11, 2).map((v) => v.shape)).toEqual([[2, 1], [2, 4]]);
    // Before opset 18 without sizes the parts must be equal (ORT: "The input is not evenly splittable").
    expect(() => infer({ axis: 1 }, 13, 2)).toThrow(/an axis of size 5 does not split evenly into 2 outputs/);
    // 5 in 4 parts of ceil(5/4) = 2 leaves -1 for the last (ORT fails: "Split size 2 exceeds the remaining size").
    expect(() => infer({ axis: 1, num_outputs: 4 }, 18, 4)).toThrow(/cannot be cut into 4 parts of 2/);
    expect(() => infer({ axis: 1 }, 18, 2)).toThrow(/neither the split input nor the num_outputs attribute/);
    expect(() => infer({ axis: 1 }, 13, 2, [2, 2])).toThrow(/do not add up to 5/);
  });

  it('a shape computed through Split folds; where folding stops, the message names the node it stops at', () => {
    const model = (op: string) => onnxModel({
      nodes: [
        { op: 'Shape', inputs: ['x'], outputs: ['shape'] },
        { op, name: 'cut', inputs: ['shape'], outputs: op === 'Split' ? ['a', 'b'] : ['a'], ...(op === 'Split' ? { attrs: { num_outputs: 2 } } : {}) },
        { op: 'Concat', inputs: ['a', 'minus1'], outputs: ['target'], attrs: { axis: 0 } },
        { op: 'Reshape', name: 'reshape', inputs: ['x', 'target'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', shape: [2, 3, 4, 5] }],
      initializers: [ints('minus1', [-1])],
      outputs: [{ name: 'y' }],
    }, 18);
    expect(tensorOf(model('Split'), 'y')?.shape).toEqual([2, 3, 20]);
    // An op the evaluator does not compute (Softmax on an int64 shape is not one) is named as the stop.
    expect(() => importOnnx(model('Hardmax'))).toThrow(/node "reshape" \(Reshape\): cannot infer the shape of output "y": its shape \(input 1, "target"\) is not a constant known at import time: it is computed by node "cut" \(Hardmax\), which the importer does not evaluate/);
  });

});

describe('ONNX import: values with empty tensors, NaN and Infinity', () => {
  const model = onnxModel({
    nodes: [{ op: 'Shape', inputs: ['m'], outputs: ['n'] }, { op: 'Add', inputs: ['m', 'm'], outputs: ['y'] }],
    inputs: [{ name: 'm', shape: ['len'] }],
    outputs: [{ name: 'y' }, { name: 'n' }],
  }, 18);

  it('an empty array is an empty tensor', () => {
    expect(tensorOf(model, 'y', { values: { m: [] } })?.shape).toEqual([0]);
  });

  it('NaN and +-Infinity are float values (attention masks hold -Infinity)', () => {
    expect(tensorOf(model, 'y', { values: { m: [0, -Infinity, NaN, Infinity] } })?.shape).toEqual([4]);
  });

  it('refuses NaN and Infinity for an integer input, and a finite value its type would turn into Infinity', () => {
    const intModel = oneNode('Identity', { x: [2] }, { types: { x: T.INT64 } });
    expect(() => importOnnx(intModel, { values: { x: [1, NaN] } })).toThrow(/graph input "x" is INT64: NaN \(value 1\) is not an integer/);
    expect(() => importOnnx(intModel, { values: { x: [Infinity, 1] } })).toThrow(/Infinity \(value 0\) is not an integer/);
    const half = oneNode('Identity', { x: [1] }, { types: { x: T.FLOAT16 } });
    expect(() => importOnnx(half, { values: { x: [70000] } })).toThrow(/graph input "x" is FLOAT16: 70000 is beyond its largest finite value/);
  });

  const py = findPython(['onnx', 'onnxruntime', 'numpy']);
  it.skipIf(!py.python)(`ONNX Runtime takes the same empty and non-finite values (${py.why})`, () => {
    const program = `
import json, sys, numpy as np, onnx, onnxruntime as ort
from onnx import helper, TensorProto as TP
g = helper.make_graph([helper.make_node('Add', ['m', 'm'], ['y'])], 'g', [helper.make_tensor_value_info('m', TP.FLOAT, ['len'])], [helper.make_tensor_value_info('y', TP.FLOAT, None)])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 18)]); m.ir_version = 9
s = ort.InferenceSession(m.SerializeToString(), providers=['CPUExecutionProvider'])
print(json.dumps([list(s.run(None, {'m': np.array(v, dtype=np.float32)})[0].shape) for v in [[], [0, -np.inf, np.nan, np.inf]]]))`;
    expect(python<number[][]>(py.python!, program, null)).toEqual([[0], [4]]);
  });
});
