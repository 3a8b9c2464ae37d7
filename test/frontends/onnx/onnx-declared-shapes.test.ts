// The shape a node's rule infers against the shape the file declares for that output (value_info,
// graph outputs): where both are concrete and differ, the import stops and names the node, the
// operator and both shapes (src/frontends/onnx/importer.ts, checkDeclared). Symbolic dimensions
// compare once bound; unbound ones, and files whose input shapes --input changed, are not compared.
import { describe, expect, it } from 'vitest';
import { importOnnx } from '../../../dist/index.mjs';
import { onnxModel } from './onnx-models.mjs';

const transposeModel = (declared: (number | string)[] | undefined, inputShape: (number | string)[] = [2, 3]) => onnxModel({
  nodes: [{ op: 'Transpose', name: 'flip', inputs: ['x'], outputs: ['t'] }, { op: 'Relu', name: 'relu', inputs: ['t'], outputs: ['y'] }],
  inputs: [{ name: 'x', shape: inputShape }],
  valueInfo: [{ name: 't', shape: declared }],
  outputs: [{ name: 'y' }],
});

describe('ONNX import: inferred against declared shapes', () => {
  it('a concrete declared shape that differs stops the import, naming node, op and both shapes', () => {
    expect(() => importOnnx(transposeModel([2, 3]))).toThrow(/node "flip" \(Transpose\): output "t" is declared \[2,3\] in the file, and the operator's definition gives \[3,2\] from its inputs/);
    expect(() => importOnnx(transposeModel([3, 2, 1]))).toThrow(/declared \[3,2,1\]/);
    expect(() => importOnnx(transposeModel([]))).toThrow(/declared \[\] in the file/); // no dimensions: a scalar
  });

  it('an equal shape, an unbound symbol or a shape the file does not give passes', () => {
    expect(importOnnx(transposeModel([3, 2])).graph.tensors.find((t: { name: string }) => t.name === 't')?.shape).toEqual([3, 2]);
    expect(() => importOnnx(transposeModel(['n', 2]))).not.toThrow();
    expect(() => importOnnx(transposeModel(undefined))).not.toThrow();
  });

  it('a bound symbol compares with its value', () => {
    const model = transposeModel(['n', 'm'], ['m', 'n']);
    expect(() => importOnnx(model, { dims: { n: 3, m: 2 } })).not.toThrow();
    expect(() => importOnnx(transposeModel(['n', 3], ['m', 'n']), { dims: { n: 4, m: 2 } })).toThrow(/output "t" is declared \[n,3\] \(= \[4,3\]\) in the file, and the operator's definition gives \[4,2\]/);
  });

  it('graph outputs are compared too', () => {
    const model = onnxModel({
      nodes: [{ op: 'Transpose', name: 'flip', inputs: ['x'], outputs: ['y'] }],
      inputs: [{ name: 'x', shape: [2, 3] }],
      outputs: [{ name: 'y', shape: [2, 3] }],
    });
    expect(() => importOnnx(model)).toThrow(/node "flip" \(Transpose\): output "y" is declared \[2,3\]/);
  });

  it('input shapes given with --input that differ from the file\'s leave the file\'s value_info out of the check', () => {
    expect(importOnnx(transposeModel([3, 2]), { inputShapes: { x: [4, 5] } }).graph.tensors.find((t: { name: string }) => t.name === 't')?.shape).toEqual([5, 4]);
  });
});
