// What real exporters write imports and plans. Input values (`values`, `--value`) pick
// If branches; constant folding by evaluation carries PyTorch's F.pad lowering; unsorted files
// (fp16 converters) are sorted, cycles named; external data is read for shapes only.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importOnnx } from '../../../dist/index.mjs';
import type { GraphDocument } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
import { T, int64Raw, ints, oneNode, onnxModel } from './onnx-models.mjs';
import { externalDataModel, fp16ConverterModel, sampleRateModel, torchPadModel } from './onnx-patterns.mjs';

const shape = (g: GraphDocument, name: string) => g.tensors.find((t) => t.name === name)?.shape;
const bin = new URL('../../../bin/tensorplan.mjs', import.meta.url).pathname;
const run = (...args: string[]) => {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
};
const dir = mkdtempSync(join(tmpdir(), 'tp-onnx16-'));
const file = (name: string, bytes: Uint8Array) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

describe('ONNX constant folding by evaluation', () => {
  it("PyTorch's F.pad lowering (Concat -> Reshape -> Slice step -1 -> Transpose -> Reshape -> Cast) folds to the pads", () => {
    const r = importOnnx(torchPadModel());
    expect(r.graph.ops.map((o) => o.op)).toEqual(['Pad']);
    // torch pads (1, 2, 3, 4) = (W begin, W end, H begin, H end) -> ONNX [0, 0, 3, 1, 0, 0, 4, 2].
    expect(shape(r.graph, 'y')).toEqual([1, 3, 15, 11]);
    expect(r.graph.ops[0].inputs).toEqual(['x', 'pads']);
    expect(shape(r.graph, 'pads')).toEqual([8]);
    expect(r.graph.persistent).toEqual(['pads']);
  });

  it('folds Range, Where, comparisons, NonZero and reductions on constants of any rank', () => {
    // target = [ReduceSum(Where(Range(0, 6) < 3, 1, 0)), 2*?]: a shape computed through ops the
    // old special cases never carried values through (rank-2 Where, NonZero, ReduceMax).
    const model = onnxModel({
      nodes: [
        { op: 'Range', inputs: ['zero', 'six', 'one'], outputs: ['r'] },
        { op: 'Reshape', inputs: ['r', 'two3'], outputs: ['r23'] },
        { op: 'Less', inputs: ['r23', 'three'], outputs: ['lt'] },
        { op: 'Where', inputs: ['lt', 'one', 'zero'], outputs: ['w'] },
        { op: 'ReduceSum', inputs: ['w'], outputs: ['n'], attrs: { keepdims: 1 } },
        { op: 'NonZero', inputs: ['w'], outputs: ['nz'] },
        { op: 'ReduceMax', inputs: ['nz'], outputs: ['m'], attrs: { keepdims: 0, axes: [1] } },
        { op: 'Reshape', inputs: ['n', 'minus1'], outputs: ['n1'] },
        { op: 'Concat', inputs: ['n1', 'm'], outputs: ['target'], attrs: { axis: 0 } },
        { op: 'Reshape', inputs: ['x', 'target'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', shape: [6] }],
      initializers: [
        { name: 'zero', dims: [], ints: [0] }, { name: 'six', dims: [], ints: [6] }, { name: 'one', dims: [], ints: [1] },
        { name: 'three', dims: [], ints: [3] }, ints('two3', [2, 3]), ints('minus1', [-1]),
      ],
      outputs: [{ name: 'y' }],
    });
    // Where gives [[1,1,1],[0,0,0]]: the sum is 3; NonZero's coordinates are (0,0),(0,1),(0,2), max per row [0, 2].
    // target = [3, 0, 2] would not hold 6 elements: the importer must compute exactly that and say so.
    expect(() => importOnnx(model)).toThrow(/cannot reshape \[6\] .* to \[3,0,2\]/);
  });

  it('int64 values are exact: INT64_MAX as a Slice end works, a dimension beyond 2^53 is an error', () => {
    const reshape = (target: bigint[]) => onnxModel({
      nodes: [{ op: 'Reshape', inputs: ['x', 's'], outputs: ['y'], name: 'r' }],
      inputs: [{ name: 'x', shape: [4] }],
      initializers: [int64Raw('s', target)],
      outputs: [{ name: 'y' }],
    });
    expect(shape(importOnnx(reshape([2n, 2n])).graph, 'y')).toEqual([2, 2]);
    expect(() => importOnnx(reshape([2n ** 60n, 2n]))).toThrow(/holds 1152921504606846976, beyond 2\^53/);
    const slice = onnxModel({
      nodes: [{ op: 'Slice', inputs: ['x', 'b', 'e'], outputs: ['y'] }],
      inputs: [{ name: 'x', shape: [7, 3] }],
      initializers: [int64Raw('b', [2n]), int64Raw('e', [2n ** 63n - 1n])],
      outputs: [{ name: 'y' }],
    });
    expect(shape(importOnnx(slice).graph, 'y')).toEqual([5, 3]);
  });
});

describe('ONNX input values (values, --value)', () => {
  it('nested Ifs on a sample rate are inlined by the value given; without it the error names the input and --value', () => {
    const model = sampleRateModel();
    const at16k = importOnnx(model, { values: { sr: 16000 } });
    expect(at16k.graph.ops.map((o) => o.op)).toEqual(['Relu', 'Sigmoid']);
    expect(at16k.inlinedIfs).toBe(2);
    expect(at16k.graph.inputs).toEqual(['x', 'sr']);
    expect(at16k.graph.persistent ?? []).not.toContain('sr');
    expect(importOnnx(model, { values: { sr: 8000n } }).graph.ops.map((o) => o.op)).toEqual(['Tanh', 'Sigmoid']);
    expect(() => importOnnx(model)).toThrow(/node "outer_if" \(If\): its condition "is16k" is not known at import time.*depends on graph input "sr".*--value sr=V/);
  });

  it('bad names, counts and element types are errors that name the input', () => {
    const model = sampleRateModel();
    expect(() => importOnnx(model, { values: { rate: 16000 } })).toThrow(/--value rate: the model has no graph input "rate" \(inputs: x, sr\)/);
    expect(() => importOnnx(model, { values: { sr: 1.5 } })).toThrow(/graph input "sr" is INT64: 1.5 is not an integer/);
    expect(() => importOnnx(model, { values: { sr: [1, 2] } })).toThrow(/graph input "sr" has shape \[\] \(1 element\), but 2 values are given/);
    expect(() => importOnnx(model, { values: { sr: 2 ** 60 } })).toThrow(/is not exact \(beyond 2\^53: give it as a bigint\)/);
    expect(() => importOnnx(model, { values: { sr: 2n ** 63n } })).toThrow(/9223372036854775808 is out of its range/);
    expect(() => importOnnx(model, { values: { sr: true } })).toThrow(/true is not an integer/);
    expect(() => importOnnx(model, { values: { sr: 'x' as unknown as number } })).toThrow(/options.values.sr = .*a number, a bigint or a boolean/);
    expect(() => importOnnx(model, { values: { x: [1] } })).toThrow(/graph input "x" has shape \[2,16\] \(32 elements\), but 1 value is given/);
    expect(() => importOnnx(model, { inputShapes: { sr: [16000] } })).toThrow(/"sr" is a scalar \(shape \[\]\) in the file.*use --value sr=16000/);
  });

  it('a bool flag and a rank-1 input of unknown length take their values; values of any type reach shape computations', () => {
    const model = onnxModel({
      nodes: [
        { op: 'Concat', inputs: ['dims', 'tail'], outputs: ['target'], attrs: { axis: 0 } },
        { op: 'Reshape', inputs: ['x', 'target'], outputs: ['y'] },
        { op: 'If', inputs: ['flag'], outputs: ['z'], attrs: {
          then_branch: { graph: { nodes: [{ op: 'Relu', inputs: ['y'], outputs: ['a'] }], outputs: [{ name: 'a' }] } },
          else_branch: { graph: { nodes: [{ op: 'Neg', inputs: ['y'], outputs: ['b'] }], outputs: [{ name: 'b' }] } },
        } },
      ],
      inputs: [{ name: 'x', shape: [24] }, { name: 'dims', shape: ['n'], type: T.INT64 }, { name: 'flag', shape: [], type: T.BOOL }],
      initializers: [ints('tail', [-1])],
      outputs: [{ name: 'z' }],
    });
    const r = importOnnx(model, { values: { dims: [2, 3], flag: false } });
    expect(shape(r.graph, 'y')).toEqual([2, 3, 4]);
    expect(r.graph.ops.map((o) => o.op)).toEqual(['Reshape', 'Neg']);
    expect(shape(r.graph, 'dims')).toEqual([2]);
    expect(() => importOnnx(model, { values: { dims: [2, 3], flag: 2 } })).toThrow(/"flag" is BOOL: 2 must be true, false, 0 or 1/);
  });
});

describe('ONNX node order', () => {
  it("an fp16 converter's file (Casts appended at the end) is sorted as ONNX Runtime sorts it", () => {
    const r = importOnnx(fp16ConverterModel());
    expect(r.graph.ops.map((o) => o.name)).toEqual(['graph_input_cast0', 'matmul', 'relu', 'graph_output_cast0']);
    expect(r.graph.tensors.find((t) => t.name === 'x16')).toMatchObject({ shape: [4, 32], dtype: 'fp16' });
    expect(shape(r.graph, 'y')).toEqual([4, 16]);
  });

  it('a cycle is an error that names its nodes', () => {
    const model = onnxModel({
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['a'], name: 'start' },
        { op: 'Add', inputs: ['a', 'c'], outputs: ['b'], name: 'add' },
        { op: 'Tanh', inputs: ['b'], outputs: ['c'], name: 'tanh' },
        { op: 'Neg', inputs: ['c'], outputs: ['y'], name: 'end' },
      ],
      inputs: [{ name: 'x', shape: [3] }],
      outputs: [{ name: 'y' }],
    });
    expect(() => importOnnx(model)).toThrow(/nodes node "add" \(Add\) -> node "tanh" \(Tanh\) read each other's outputs in a cycle/);
    const self = onnxModel({ nodes: [{ op: 'Add', inputs: ['x', 'y'], outputs: ['y'], name: 'loop' }], inputs: [{ name: 'x', shape: [3] }], outputs: [{ name: 'y' }] });
    expect(() => importOnnx(self)).toThrow(/nodes node "loop" \(Add\) read each other's outputs in a cycle/);
  });

  it('any shuffle of a random DAG imports to the same graph; a sorted file keeps its order exactly (stable)', () => {
    // A chain of element-wise ops, each reading the previous output and a random earlier one.
    const dag = fc.integer({ min: 2, max: 14 }).chain((n) => fc.record({
      reads: fc.array(fc.nat(), { minLength: n, maxLength: n }),
      order: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
    }));
    fc.assert(fc.property(dag, ({ reads, order }) => {
      const nodes = reads.map((r, k) => ({
        op: 'Add', name: `n${k}`, outputs: [`t${k}`],
        inputs: [k === 0 ? 'x' : `t${k - 1}`, r % (k + 1) === 0 ? 'x' : `t${(r % (k + 1)) - 1}`],
      }));
      const make = (list: typeof nodes) => onnxModel({ nodes: list, inputs: [{ name: 'x', shape: [5] }], outputs: [{ name: `t${nodes.length - 1}` }] });
      const sorted = importOnnx(make(nodes)).graph;
      expect(sorted.ops.map((o) => o.name)).toEqual(nodes.map((n) => n.name));
      const shuffled = importOnnx(make(order.map((i) => nodes[i]))).graph;
      // Producers come first; every tensor is the same.
      const seen = new Set(['x']);
      for (const op of shuffled.ops) {
        for (const i of op.inputs) expect(seen.has(i)).toBe(true);
        op.outputs.forEach((o) => seen.add(o));
      }
      expect([...shuffled.tensors].sort((a, b) => a.name.localeCompare(b.name))).toEqual([...sorted.tensors].sort((a, b) => a.name.localeCompare(b.name)));
    }), { numRuns: 60 });
  });
});

describe('ONNX external data', () => {
  it('initializers stored outside the file are read for their shapes only (the data file does not exist)', () => {
    const r = importOnnx(externalDataModel());
    expect(shape(r.graph, 'w')).toEqual([64, 128]);
    expect(shape(r.graph, 'y')).toEqual([4, 128]);
    expect(r.graph.persistent).toEqual(['w', 'b']);
    const cli = run('plan', file('external.onnx', externalDataModel()), '--json');
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout).persistentBytes).toBe((64 * 128 + 128) * 4);
  });

  it('a shape stored outside the file is an error that says so', () => {
    const model = onnxModel({
      nodes: [{ op: 'Reshape', inputs: ['x', 's'], outputs: ['y'], name: 'r' }],
      inputs: [{ name: 'x', shape: [4] }],
      initializers: [{ name: 's', dims: [2], type: T.INT64, external: { location: 'nowhere.bin' } }],
      outputs: [{ name: 'y' }],
    });
    expect(() => importOnnx(model)).toThrow(/its shape \(input 1, "s"\) is not a constant known at import time.*"s" is stored outside the file/);
  });
});

describe('tensorplan plan/import --value', () => {
  const sr = file('sr.onnx', sampleRateModel());
  it('--value picks the branches; --input on a scalar points at --value; bad values exit 2 naming the input', () => {
    const r = run('import', sr, '--value', 'sr=16000', '--json', '-o', join(dir, 'sr.json'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ inlinedIfs: 2, ops: 2 });
    expect(run('plan', sr, '--value', 'sr=8000').code).toBe(0);
    // Without a value the Ifs are data-dependent: planned with their branches as subgraphs,
    // the nested one inside the outer one's then_branch (whose Greater output, 256 B, is its arena).
    expect(run('plan', sr)).toMatchObject({ code: 0, stdout: expect.stringMatching(/If "outer_if\/inner_if": workspace 0 B[^\n]*\n\s*If "outer_if": workspace 256 B from its then_branch/) });
    expect(run('plan', sr, '--input', 'sr=16000')).toMatchObject({ code: 2, stderr: expect.stringMatching(/use --value sr=16000/) });
    expect(run('plan', sr, '--value', 'sr=16k')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--value sr=16k: expected NAME=V/) });
    expect(run('plan', sr, '--value', 'sr=1,2')).toMatchObject({ code: 2, stderr: expect.stringMatching(/"sr" has shape \[\] \(1 element\), but 2 values/) });
    expect(run('plan', sr, '--value', 'sr=9223372036854775808')).toMatchObject({ code: 2, stderr: expect.stringMatching(/out of its range/) });
    // An empty tensor and the non-finite values are values, checked against the input's type and shape.
    expect(run('plan', sr, '--value', 'sr=')).toMatchObject({ code: 2, stderr: expect.stringMatching(/"sr" has shape \[\] \(1 element\), but 0 values/) });
    expect(run('plan', sr, '--value', 'sr=-inf')).toMatchObject({ code: 2, stderr: expect.stringMatching(/"sr" is INT64: -Infinity is not an integer/) });
    expect(run('plan', sr, '--value', 'sr=1e400')).toMatchObject({ code: 2, stderr: expect.stringMatching(/expected NAME=V/) });
    const mask = file('mask.onnx', oneNode('Relu', { x: [3] }));
    expect(run('plan', mask, '--value', 'x=0,-INF,NaN')).toMatchObject({ code: 0, stderr: '' });
  });
});

describe.each(BACKENDS)('exporter patterns plan on %s', (backend) => {
  it('F.pad lowering, nested Ifs on a value, an unsorted fp16 file and external data all plan', () => {
    const tp = session(backend);
    const graphs = [
      importOnnx(torchPadModel()).graph,
      importOnnx(sampleRateModel(), { values: { sr: 16000 } }).graph,
      importOnnx(sampleRateModel(), { values: { sr: 8000 } }).graph,
      importOnnx(fp16ConverterModel()).graph,
      importOnnx(externalDataModel()).graph,
    ];
    for (const g of graphs) {
      const plan = tp.plan(g);
      expect(plan.arenaBytes).toBeGreaterThanOrEqual(plan.statistics.lowerBoundBytes);
    }
  });
});
