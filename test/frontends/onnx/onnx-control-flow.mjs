// Control-flow models: a data-dependent If whose branches need different
// memory, a Loop with a trip count (from the file or from an input value), a Scan, and an If
// nested in a Loop body. Tensors are [4, 16] fp32 (256 bytes, one alignment unit) or [64, 64]
// fp32 (16 KiB), so the hand computations in the tests are sums of whole tensors.
import { T, onnxModel } from './onnx-models.mjs';

const sub = (nodes, outputs, inputs = [], initializers = []) => ({ graph: { nodes, inputs, initializers, outputs } });

/**
 * `y = Sigmoid(If(c) { Neg(Tanh(Relu(x))) } else { Abs(Neg(x)) })` on x of [64, 64] fp32 (16 KiB).
 * The then branch holds two intermediates at once (Relu's output while Tanh runs): 32 KiB; the
 * else branch one: 16 KiB. `swap` exchanges the branches.
 */
export function dataDependentIfModel({ swap = false, opset = 17 } = {}) {
  const big = sub([
    { op: 'Relu', inputs: ['x'], outputs: ['a'], name: 'relu' },
    { op: 'Tanh', inputs: ['a'], outputs: ['b'], name: 'tanh' },
    { op: 'Neg', inputs: ['b'], outputs: ['big_out'], name: 'neg_big' },
  ], [{ name: 'big_out' }]);
  const small = sub([
    { op: 'Neg', inputs: ['x'], outputs: ['e'], name: 'neg_small' },
    { op: 'Abs', inputs: ['e'], outputs: ['small_out'], name: 'abs' },
  ], [{ name: 'small_out' }]);
  return onnxModel({
    nodes: [
      { op: 'If', inputs: ['c'], outputs: ['y'], name: 'gate', attrs: { then_branch: swap ? small : big, else_branch: swap ? big : small } },
      { op: 'Sigmoid', inputs: ['y'], outputs: ['z'], name: 'sigmoid' },
    ],
    inputs: [{ name: 'c', shape: [], type: T.BOOL }, { name: 'x', shape: [64, 64] }],
    outputs: [{ name: 'z' }],
  }, opset);
}

/**
 * An If on x of [4, 8] whose branches give outputs of different shapes: then x[0:2] ([2, 8]),
 * else x[0:4, 0:4] ([4, 4]), or with `rank1` x reshaped to [32].
 */
export function unequalShapesIfModel({ rank1 = false, opset = 17 } = {}) {
  const ints = (name, v) => ({ name, dims: [v.length], ints: v });
  const other = rank1
    ? sub([{ op: 'Reshape', inputs: ['x', 'flat'], outputs: ['e'], name: 'reshape' }], [{ name: 'e' }], [], [ints('flat', [32])])
    : sub([{ op: 'Slice', inputs: ['x', 'zeros', 'fours', 'both'], outputs: ['e'], name: 'slice_else' }], [{ name: 'e' }], [],
      [ints('zeros', [0, 0]), ints('fours', [4, 4]), ints('both', [0, 1])]);
  return onnxModel({
    nodes: [
      { op: 'If', inputs: ['c'], outputs: ['y'], name: 'gate', attrs: {
        then_branch: sub([{ op: 'Slice', inputs: ['x', 'zero', 'two', 'rows'], outputs: ['t'], name: 'slice_then' }], [{ name: 't' }], [],
          [ints('zero', [0]), ints('two', [2]), ints('rows', [0])]),
        else_branch: other,
      } },
      { op: 'Relu', inputs: ['y'], outputs: ['z'], name: 'relu' },
    ],
    inputs: [{ name: 'c', shape: [], type: T.BOOL }, { name: 'x', shape: [4, 8] }],
    outputs: [{ name: 'z' }],
  }, opset);
}

/**
 * `Loop(M, '', acc0)` with body `acc = Relu(acc + x); per = Neg(acc)`, x read from the outer graph,
 * one loop-carried value and one scan output, all [4, 16] fp32. M is an initializer (5) or, with
 * `tripFromInput`, a graph input (set it with --value M=N). `nested` puts an If in the body on
 * `i < 3` (data-dependent: i is the iteration number): then Neg(Relu(acc_in)), else Neg(acc_in).
 */
export function loopModel({ tripFromInput = false, trip = 5, nested = false, noTrip = false } = {}) {
  const inner = { op: 'If', inputs: ['early'], outputs: ['h'], name: 'inner_if', attrs: {
    then_branch: sub([{ op: 'Relu', inputs: ['acc_in'], outputs: ['r1'], name: 'relu_then' }, { op: 'Neg', inputs: ['r1'], outputs: ['h_then'], name: 'neg_then' }], [{ name: 'h_then' }]),
    else_branch: sub([{ op: 'Neg', inputs: ['acc_in'], outputs: ['h_else'], name: 'neg_else' }], [{ name: 'h_else' }]),
  } };
  const body = sub([
    ...(nested ? [{ op: 'Less', inputs: ['i', 'three'], outputs: ['early'], name: 'less' }, inner] : []),
    { op: 'Add', inputs: [nested ? 'h' : 'acc_in', 'x'], outputs: ['s'], name: 'add' },
    { op: 'Relu', inputs: ['s'], outputs: ['acc_out'], name: 'relu' },
    { op: 'Neg', inputs: ['acc_out'], outputs: ['per'], name: 'neg' },
    { op: 'Identity', inputs: ['cond_in'], outputs: ['cond_out'], name: 'keep_going' },
  ], [{ name: 'cond_out', type: T.BOOL }, { name: 'acc_out' }, { name: 'per' }],
  [{ name: 'i', shape: [], type: T.INT64 }, { name: 'cond_in', shape: [], type: T.BOOL }, { name: 'acc_in', shape: [4, 16] }],
  nested ? [{ name: 'three', dims: [], ints: [3] }] : []);
  return onnxModel({
    nodes: [{ op: 'Loop', inputs: [noTrip ? '' : 'M', noTrip ? 'go' : '', 'acc0'], outputs: ['acc', 'scan'], name: 'loop', attrs: { body } }],
    inputs: [
      { name: 'x', shape: [4, 16] }, { name: 'acc0', shape: [4, 16] },
      ...(tripFromInput ? [{ name: 'M', shape: [], type: T.INT64 }] : []),
      ...(noTrip ? [{ name: 'go', shape: [], type: T.BOOL }] : []),
    ],
    initializers: tripFromInput || noTrip ? [] : [{ name: 'M', dims: [], ints: [trip] }],
    outputs: [{ name: 'acc' }, { name: 'scan' }],
  });
}

/**
 * `Scan` over xs (6 steps of [4, 16] fp32) with one state: `acc = Relu(acc + x_t); y_t = Tanh(acc)`.
 * `inputAxis` 1 lays xs out as [4, 6, 16] (ORT transposes it into a temporary).
 */
export function scanModel({ inputAxis = 0 } = {}) {
  const body = sub([
    { op: 'Add', inputs: ['acc_in', 'x_t'], outputs: ['s'], name: 'add' },
    { op: 'Relu', inputs: ['s'], outputs: ['acc_out'], name: 'relu' },
    { op: 'Tanh', inputs: ['acc_out'], outputs: ['y_t'], name: 'tanh' },
  ], [{ name: 'acc_out' }, { name: 'y_t' }], [{ name: 'acc_in', shape: [4, 16] }, { name: 'x_t', shape: [4, 16] }]);
  return onnxModel({
    nodes: [{ op: 'Scan', inputs: ['acc0', 'xs'], outputs: ['acc', 'ys'], name: 'scan', attrs: {
      body, num_scan_inputs: 1, ...(inputAxis ? { scan_input_axes: [inputAxis] } : {}),
    } }],
    inputs: [{ name: 'acc0', shape: [4, 16] }, { name: 'xs', shape: inputAxis === 1 ? [4, 6, 16] : [6, 4, 16] }],
    outputs: [{ name: 'acc' }, { name: 'ys' }],
  });
}
