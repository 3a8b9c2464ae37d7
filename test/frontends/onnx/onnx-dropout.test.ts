// Dropout on known inputs (src/frontends/onnx/fold/evaluate.ts, dropout): a copy of the input and
// an all-true mask where nothing is dropped (training_mode false or absent, ratio 0; Dropout-7/10;
// is_test set before opset 7), no value where the output is random (training_mode true with a
// ratio above 0; is_test 0 before opset 7): then the node stays an op, never a folded constant.
// Sources: onnx 1.23.1 Operators.md "Dropout" (each version), ONNX Runtime 1.30
// core/providers/cpu/nn/dropout_op.h (Dropout::Compute, "drop none").
import { describe, expect, it } from 'vitest';
import { importOnnx } from '../../../dist/index.mjs';
import type { Known } from '../../../src/frontends/onnx/fold/evaluate';
import { findPython, python, run } from './fold-support';
import { T, onnxModel } from './onnx-models.mjs';

const x: Known = { shape: [2, 2], elemType: 1, data: [1, 2, 3, 4] };
const ratio = (r: number): Known => ({ shape: [], elemType: 1, data: [r] });
const training = (t: boolean): Known => ({ shape: [], elemType: 9, data: [t ? 1n : 0n] });
type Out = { shape: number[]; data?: unknown[]; unknown?: string; varies?: boolean };
const dropout = (inputs: (Known | undefined)[], opset: number, attrs = {}) => run('Dropout', inputs, attrs, opset) as unknown as Out[];

describe('ONNX Dropout on known inputs', () => {
  it('is a copy with an all-true mask where nothing is dropped', () => {
    for (const [inputs, opset] of [[[x], 13], [[x, ratio(0.3)], 13], [[x, ratio(0.3), training(false)], 13], [[x, ratio(0), training(true)], 22], [[x], 10], [[x], 7]] as const) {
      const [y, mask] = dropout([...inputs], opset);
      expect(y.data, `opset ${opset}`).toEqual([1, 2, 3, 4]);
      expect(mask.data).toEqual([1n, 1n, 1n, 1n]);
    }
    expect(dropout([x], 6, { is_test: 1 })[0].data).toEqual([1, 2, 3, 4]);
  });

  it('has no value where the output is random, and says why', () => {
    const [y] = dropout([x, ratio(0.5), training(true)], 13);
    expect(y.shape).toEqual([2, 2]);
    expect(y.data).toBeUndefined();
    expect(y.unknown).toMatch(/training_mode true and ratio 0.5: its output is a random mask times 1\/\(1-ratio\)/);
    expect(y.varies).toBe(true);
    expect(dropout([x], 6)[0].unknown).toMatch(/is_test=0 .* training mode/);
    // A ratio outside [0, 1): ONNX Runtime fails on it even when not training; the spec ignores it.
    expect(dropout([x, ratio(1.5)], 13)[0].unknown).toMatch(/ratio 1.5 is outside \[0, 1\)/);
  });

  const py = findPython(['onnx', 'onnxruntime', 'numpy']);
  it.skipIf(!py.python)(`ONNX Runtime copies the input where the evaluator does (${py.why})`, () => {
    const program = `
import json, sys, numpy as np, onnxruntime as ort
from onnx import helper, TensorProto as TP
out = []
for opset, inputs in [(7, []), (10, []), (13, []), (13, ['r0', 't1']), (13, ['r5', 't0'])]:
  attrs = {'ratio': 0.5} if opset < 12 else {}
  inits = [helper.make_tensor('r0', TP.FLOAT, [], [0.0]), helper.make_tensor('r5', TP.FLOAT, [], [0.5]),
           helper.make_tensor('t0', TP.BOOL, [], [False]), helper.make_tensor('t1', TP.BOOL, [], [True])]
  g = helper.make_graph([helper.make_node('Dropout', ['x'] + inputs, ['y'], **attrs)], 'g', [helper.make_tensor_value_info('x', TP.FLOAT, [4])], [helper.make_tensor_value_info('y', TP.FLOAT, None)], inits)
  m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)]); m.ir_version = 7
  so = ort.SessionOptions(); so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
  out.append(ort.InferenceSession(m.SerializeToString(), so, providers=['CPUExecutionProvider']).run(None, {'x': np.array([1, 2, 3, 4], dtype=np.float32)})[0].tolist())
print(json.dumps(out))`;
    for (const y of python<number[][]>(py.python!, program, null)) expect(y).toEqual([1, 2, 3, 4]);
    for (const [inputs, opset] of [[[x], 7], [[x], 10], [[x], 13], [[x, ratio(0), training(true)], 13], [[x, ratio(0.5), training(false)], 13]] as const) {
      expect(dropout([...inputs], opset)[0].data).toEqual([1, 2, 3, 4]);
    }
  });

  it('a Dropout in training mode on a constant stays an op, and a shape that needs its value says why', () => {
    const model = (train: boolean, reshape: boolean) => onnxModel({
      nodes: [
        { op: 'Dropout', name: 'drop', inputs: ['c', 'r', 't'], outputs: ['d'] },
        ...(reshape ? [{ op: 'Cast', inputs: ['d'], outputs: ['s'], attrs: { to: T.INT64 } }, { op: 'Reshape', name: 'reshape', inputs: ['x', 's'], outputs: ['y'] }] : []),
      ],
      inputs: [{ name: 'x', shape: [6] }],
      initializers: [
        { name: 'c', dims: [2], type: T.FLOAT, floats: [2, 3] },
        { name: 'r', dims: [], type: T.FLOAT, floats: [0.5] },
        { name: 't', dims: [], type: T.BOOL, raw: new Uint8Array([train ? 1 : 0]) },
      ],
      outputs: [{ name: reshape ? 'y' : 'd' }],
    }, 13);
    const trained = importOnnx(model(true, false));
    expect(trained.graph.ops.map((o: { op: string }) => o.op)).toEqual(['Dropout']);
    expect(trained.folded).toBe(0);
    expect(importOnnx(model(false, false)).graph.ops).toHaveLength(0);
    expect(importOnnx(model(false, true)).graph.tensors.find((t: { name: string }) => t.name === 'y')?.shape).toEqual([2, 3]);
    expect(() => importOnnx(model(true, true))).toThrow(/node "reshape" \(Reshape\): cannot infer the shape of output "y": its shape \(input 1, "s"\) is not a constant known at import time: it is computed by node "drop" \(Dropout\), whose value the importer does not claim \(Dropout with training_mode true and ratio 0.5/);
  });
});
