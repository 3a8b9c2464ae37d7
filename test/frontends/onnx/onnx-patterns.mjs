// Models reproducing what real exporters write: PyTorch's F.pad lowering, nested Ifs
// on an input value (a sample rate), an fp16 converter's unsorted node list, weights stored
// outside the file. Built with the test's own protobuf writer (onnx-models.mjs).
import { T, int64Raw, ints, onnxModel, weight } from './onnx-models.mjs';

export const INT64_MIN_PLUS_1 = -(2n ** 63n) + 1n;

/**
 * F.pad(x, (1, 2, 3, 4)) as torch.onnx (TorchScript exporter, opset >= 11) lowers it
 * (torch/onnx/symbolic_opset11.py, _prepare_onnx_paddings): the torch pads are extended with
 * zeros to 2 * rank, reshaped to pairs, reversed (Slice with step -1 and end -INT64_MAX),
 * transposed to begins-then-ends, flattened and cast. Expected output: [1, 3, 8 + 3 + 4, 8 + 1 + 2].
 */
export function torchPadModel() {
  return onnxModel({
    nodes: [
      { op: 'Constant', inputs: [], outputs: ['pad'], attrs: { value: { tensor: { dims: [4], ints: [1, 2, 3, 4] } } } },
      { op: 'Shape', inputs: ['x'], outputs: ['xs'] },
      { op: 'Size', inputs: ['xs'], outputs: ['rank'] },
      { op: 'Mul', inputs: ['rank', 'two'], outputs: ['rank2'] },
      { op: 'Size', inputs: ['pad'], outputs: ['plen'] },
      { op: 'Sub', inputs: ['rank2', 'plen'], outputs: ['ext'] },
      { op: 'Unsqueeze', inputs: ['ext', 'axis0'], outputs: ['ext1'] },
      { op: 'ConstantOfShape', inputs: ['ext1'], outputs: ['zeros'], attrs: { value: { tensor: { dims: [1], ints: [0] } } } },
      { op: 'Concat', inputs: ['pad', 'zeros'], outputs: ['p8'], attrs: { axis: 0 } },
      { op: 'Reshape', inputs: ['p8', 'pairs'], outputs: ['p42'] },
      { op: 'Slice', inputs: ['p42', 'sStart', 'sEnd', 'axis0', 'sStep'], outputs: ['rev'] },
      { op: 'Transpose', inputs: ['rev'], outputs: ['tr'], attrs: { perm: [1, 0] } },
      { op: 'Reshape', inputs: ['tr', 'flat'], outputs: ['p8b'] },
      { op: 'Cast', inputs: ['p8b'], outputs: ['pads'], attrs: { to: T.INT64 } },
      { op: 'Pad', inputs: ['x', 'pads'], outputs: ['y'], name: 'pad', attrs: { mode: 'constant' } },
    ],
    inputs: [{ name: 'x', shape: [1, 3, 8, 8] }],
    initializers: [
      { name: 'two', dims: [], ints: [2] }, ints('axis0', [0]), ints('pairs', [-1, 2]), ints('flat', [-1]),
      int64Raw('sStart', [-1n]), int64Raw('sEnd', [INT64_MIN_PLUS_1]), ints('sStep', [-1]),
    ],
    outputs: [{ name: 'y' }],
  });
}

const graphOf = (nodes, output) => ({ graph: { nodes, outputs: [{ name: output }] } });

/**
 * Nested Ifs on a sample rate, as the Silero VAD export has them: `sr == 16000` picks the outer
 * branch, and inside it `sr > 8000` picks the inner one (the inner condition reads the outer graph
 * input). 16000 -> Relu; 16000 with another inner answer is impossible; 8000 -> Tanh.
 */
export function sampleRateModel() {
  const inner = {
    op: 'If', inputs: ['wide'], outputs: ['inner'], name: 'inner_if', attrs: {
      then_branch: graphOf([{ op: 'Relu', inputs: ['x'], outputs: ['relu_out'], name: 'relu' }], 'relu_out'),
      else_branch: graphOf([{ op: 'Neg', inputs: ['x'], outputs: ['neg_out'], name: 'neg' }], 'neg_out'),
    },
  };
  return onnxModel({
    nodes: [
      { op: 'Equal', inputs: ['sr', 'k16000'], outputs: ['is16k'] },
      { op: 'If', inputs: ['is16k'], outputs: ['z'], name: 'outer_if', attrs: {
        then_branch: graphOf([{ op: 'Greater', inputs: ['sr', 'k8000'], outputs: ['wide'] }, inner], 'inner'),
        else_branch: graphOf([{ op: 'Tanh', inputs: ['x'], outputs: ['tanh_out'], name: 'tanh' }], 'tanh_out'),
      } },
      { op: 'Sigmoid', inputs: ['z'], outputs: ['y'], name: 'sigmoid' },
    ],
    inputs: [{ name: 'x', shape: [2, 16] }, { name: 'sr', shape: [], type: T.INT64 }],
    initializers: [{ name: 'k16000', dims: [], ints: [16000] }, { name: 'k8000', dims: [], ints: [8000] }],
    outputs: [{ name: 'y' }],
  });
}

/**
 * What onnxconverter-common's float16 conversion writes: the Cast nodes it inserts at the graph's
 * input and output are appended at the end of the node list, after the nodes that read them.
 */
export function fp16ConverterModel() {
  return onnxModel({
    nodes: [
      { op: 'MatMul', inputs: ['x16', 'w'], outputs: ['h16'], name: 'matmul' },
      { op: 'Relu', inputs: ['h16'], outputs: ['r16'], name: 'relu' },
      { op: 'Cast', inputs: ['r16'], outputs: ['y'], name: 'graph_output_cast0', attrs: { to: T.FLOAT } },
      { op: 'Cast', inputs: ['x'], outputs: ['x16'], name: 'graph_input_cast0', attrs: { to: T.FLOAT16 } },
    ],
    inputs: [{ name: 'x', shape: [4, 32] }],
    initializers: [weight('w', [32, 16], T.FLOAT16)],
    outputs: [{ name: 'y', type: T.FLOAT }],
  });
}

/** A MatMul whose weight is stored outside the file (the file named does not exist). */
export function externalDataModel(location = 'weights-that-do-not-exist.bin') {
  return onnxModel({
    nodes: [
      { op: 'MatMul', inputs: ['x', 'w'], outputs: ['h'], name: 'matmul' },
      { op: 'Add', inputs: ['h', 'b'], outputs: ['y'], name: 'add' },
    ],
    inputs: [{ name: 'x', shape: [4, 64] }],
    initializers: [
      { name: 'w', dims: [64, 128], type: T.FLOAT, external: { location, offset: 0, length: 64 * 128 * 4 } },
      { name: 'b', dims: [128], type: T.FLOAT, external: { location, offset: 64 * 128 * 4, length: 128 * 4 } },
    ],
    outputs: [{ name: 'y' }],
  });
}
