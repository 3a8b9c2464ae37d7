// Larger ONNX models built in code, shared by the ONNX tests and bench/onnx.bench.mjs.
import { T, ints, onnxModel, weight } from './onnx-models.mjs';

/** A small ResNet-like CNN: conv-BN-relu blocks with residual adds, pooling and a classifier. */
export function convNet(batch = 2) {
  const nodes = [], inits = [];
  let x = 'image', ch = 3;
  const conv = (name, input, cin, cout, k, stride) => {
    inits.push(weight(`${name}_w`, [cout, cin, k, k]), weight(`${name}_b`, [cout]));
    nodes.push({ op: 'Conv', name, inputs: [input, `${name}_w`, `${name}_b`], outputs: [`${name}_out`], attrs: { pads: [k >> 1, k >> 1, k >> 1, k >> 1], strides: [stride, stride] } });
    for (const p of ['s', 'b', 'm', 'v']) inits.push(weight(`${name}_bn_${p}`, [cout]));
    nodes.push({ op: 'BatchNormalization', inputs: [`${name}_out`, ...['s', 'b', 'm', 'v'].map((p) => `${name}_bn_${p}`)], outputs: [`${name}_bn`] });
    return `${name}_bn`;
  };
  x = conv('stem', x, ch, 16, 3, 2); ch = 16;
  nodes.push({ op: 'Relu', inputs: [x], outputs: ['stem_relu'] }); x = 'stem_relu';
  nodes.push({ op: 'MaxPool', inputs: [x], outputs: ['pool'], attrs: { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] } }); x = 'pool';
  for (let b = 0; b < 4; ++b) {
    const down = b % 2 === 1;
    const cout = down ? ch * 2 : ch;
    const a = conv(`b${b}c1`, x, ch, cout, 3, down ? 2 : 1);
    nodes.push({ op: 'Relu', inputs: [a], outputs: [`b${b}r1`] });
    const c = conv(`b${b}c2`, `b${b}r1`, cout, cout, 3, 1);
    const skip = down ? conv(`b${b}sk`, x, ch, cout, 1, 2) : x;
    nodes.push({ op: 'Add', inputs: [c, skip], outputs: [`b${b}add`] });
    nodes.push({ op: 'Relu', inputs: [`b${b}add`], outputs: [`b${b}out`] });
    x = `b${b}out`; ch = cout;
  }
  nodes.push({ op: 'GlobalAveragePool', inputs: [x], outputs: ['gap'] });
  nodes.push({ op: 'Flatten', inputs: ['gap'], outputs: ['flat'] });
  inits.push(weight('fc_w', [10, ch]), weight('fc_b', [10]));
  nodes.push({ op: 'Gemm', inputs: ['flat', 'fc_w', 'fc_b'], outputs: ['logits'], attrs: { transB: 1 } });
  nodes.push({ op: 'Softmax', inputs: ['logits'], outputs: ['probs'], attrs: { axis: 1 } });
  return onnxModel({ name: 'convnet', nodes, initializers: inits, inputs: [{ name: 'image', shape: [batch, 3, 64, 64] }], outputs: [{ name: 'probs' }] });
}

/** One pre-norm transformer block with shape computations (Shape/Gather/Concat) feeding the Reshapes. */
export function transformerBlock(seq = 128, hidden = 256, heads = 4) {
  const nodes = [], inits = [];
  const hd = hidden / heads;
  inits.push(weight('ln1_g', [hidden]), weight('ln1_b', [hidden]), weight('ln2_g', [hidden]), weight('ln2_b', [hidden]));
  inits.push(weight('wqkv', [hidden, 3 * hidden]), weight('wo', [hidden, hidden]), weight('w1', [hidden, 4 * hidden]), weight('w2', [4 * hidden, hidden]));
  inits.push(ints('split3', [hidden, hidden, hidden]), ints('zero', [0]), ints('one', [1]), ints('tail', [heads, hd]), ints('merge', [0, 0, hidden]));
  inits.push({ name: 'scale', dims: [], floats: [1 / Math.sqrt(hd)] }, { name: 'sqrt2', dims: [], floats: [Math.SQRT2] }, { name: 'half', dims: [], floats: [0.5] }, { name: 'onef', dims: [], floats: [1] });
  nodes.push({ op: 'LayerNormalization', inputs: ['x', 'ln1_g', 'ln1_b'], outputs: ['h1'], attrs: { axis: -1 } });
  nodes.push({ op: 'MatMul', inputs: ['h1', 'wqkv'], outputs: ['qkv'] });
  nodes.push({ op: 'Split', inputs: ['qkv', 'split3'], outputs: ['q', 'k', 'v'], attrs: { axis: -1 } });
  nodes.push({ op: 'Shape', inputs: ['x'], outputs: ['xs'] });
  nodes.push({ op: 'Slice', inputs: ['xs', 'zero', 'one'], outputs: ['b'] });
  nodes.push({ op: 'Gather', inputs: ['xs', 'one'], outputs: ['s'], attrs: { axis: 0 } });
  nodes.push({ op: 'Concat', inputs: ['b', 's', 'tail'], outputs: ['heads_shape'], attrs: { axis: 0 } });
  for (const t of ['q', 'k', 'v']) {
    nodes.push({ op: 'Reshape', inputs: [t, 'heads_shape'], outputs: [`${t}4`] });
    nodes.push({ op: 'Transpose', inputs: [`${t}4`], outputs: [`${t}t`], attrs: { perm: t === 'k' ? [0, 2, 3, 1] : [0, 2, 1, 3] } });
  }
  nodes.push({ op: 'MatMul', inputs: ['qt', 'kt'], outputs: ['scores'] });
  nodes.push({ op: 'Mul', inputs: ['scores', 'scale'], outputs: ['scaled'] });
  nodes.push({ op: 'Softmax', inputs: ['scaled'], outputs: ['attn'], attrs: { axis: -1 } });
  nodes.push({ op: 'MatMul', inputs: ['attn', 'vt'], outputs: ['ctx'] });
  nodes.push({ op: 'Transpose', inputs: ['ctx'], outputs: ['ctx_t'], attrs: { perm: [0, 2, 1, 3] } });
  nodes.push({ op: 'Reshape', inputs: ['ctx_t', 'merge'], outputs: ['ctx2'] });
  nodes.push({ op: 'MatMul', inputs: ['ctx2', 'wo'], outputs: ['proj'] });
  nodes.push({ op: 'Add', inputs: ['x', 'proj'], outputs: ['res1'] });
  nodes.push({ op: 'LayerNormalization', inputs: ['res1', 'ln2_g', 'ln2_b'], outputs: ['h2'], attrs: { axis: -1 } });
  nodes.push({ op: 'MatMul', inputs: ['h2', 'w1'], outputs: ['up'] });
  // GELU written out as ONNX exporters emit it: x * 0.5 * (1 + erf(x / sqrt(2))).
  nodes.push({ op: 'Div', inputs: ['up', 'sqrt2'], outputs: ['g1'] });
  nodes.push({ op: 'Erf', inputs: ['g1'], outputs: ['g2'] });
  nodes.push({ op: 'Add', inputs: ['g2', 'onef'], outputs: ['g3'] });
  nodes.push({ op: 'Mul', inputs: ['up', 'g3'], outputs: ['g4'] });
  nodes.push({ op: 'Mul', inputs: ['g4', 'half'], outputs: ['gelu'] });
  nodes.push({ op: 'MatMul', inputs: ['gelu', 'w2'], outputs: ['down'] });
  nodes.push({ op: 'Add', inputs: ['res1', 'down'], outputs: ['y'] });
  return onnxModel({ name: 'transformer-block', nodes, initializers: inits, inputs: [{ name: 'x', shape: ['batch', 'seq', hidden] }], outputs: [{ name: 'y' }] }, 17);
}

/** An LSTM encoder with a GRU on top and a linear head (batch-first GRU). */
export function recurrent() {
  return onnxModel({
    name: 'recurrent',
    nodes: [
      { op: 'LSTM', inputs: ['x', 'lw', 'lr', 'lb'], outputs: ['ly', 'lh', 'lc'], attrs: { hidden_size: 64, direction: 'bidirectional' } },
      { op: 'Transpose', inputs: ['ly'], outputs: ['lyt'], attrs: { perm: [2, 0, 1, 3] } },
      { op: 'Reshape', inputs: ['lyt', 'shape'], outputs: ['seq'] },
      { op: 'GRU', inputs: ['seq', 'gw', 'gr'], outputs: ['gy', 'gh'], attrs: { hidden_size: 32, layout: 1 } },
      { op: 'Squeeze', inputs: ['gh', 'ax1'], outputs: ['last'] },
      { op: 'Gemm', inputs: ['last', 'hw'], outputs: ['y'] },
    ],
    initializers: [weight('lw', [2, 256, 40]), weight('lr', [2, 256, 64]), weight('lb', [2, 512]), ints('shape', [8, 50, 128]),
      weight('gw', [1, 96, 128]), weight('gr', [1, 96, 32]), ints('ax1', [1]), weight('hw', [32, 5])],
    inputs: [{ name: 'x', shape: [50, 8, 40] }],
    outputs: [{ name: 'y' }],
  });
}

/** An encoder-decoder (U-Net-like) with ConvTranspose, Resize, Concat, Pad, Slice and reductions. */
export function unet() {
  const nodes = [
    { op: 'Conv', inputs: ['x', 'e1w'], outputs: ['e1'], attrs: { pads: [1, 1, 1, 1] } },
    { op: 'Relu', inputs: ['e1'], outputs: ['e1r'] },
    { op: 'MaxPool', inputs: ['e1r'], outputs: ['p1'], attrs: { kernel_shape: [2, 2], strides: [2, 2] } },
    { op: 'Conv', inputs: ['p1', 'e2w'], outputs: ['e2'], attrs: { pads: [1, 1, 1, 1] } },
    { op: 'Sigmoid', inputs: ['e2'], outputs: ['e2s'] },
    { op: 'Mul', inputs: ['e2', 'e2s'], outputs: ['e2r'] },
    { op: 'AveragePool', inputs: ['e2r'], outputs: ['p2'], attrs: { kernel_shape: [2, 2], strides: [2, 2] } },
    { op: 'ConvTranspose', inputs: ['p2', 'd2w'], outputs: ['u2'], attrs: { strides: [2, 2], kernel_shape: [2, 2] } },
    { op: 'Concat', inputs: ['u2', 'e2r'], outputs: ['c2'], attrs: { axis: 1 } },
    { op: 'Conv', inputs: ['c2', 'd2c'], outputs: ['d2'], attrs: { pads: [1, 1, 1, 1] } },
    { op: 'Resize', inputs: ['d2', '', 'up2'], outputs: ['u1'], attrs: { mode: 'nearest' } },
    { op: 'Pad', inputs: ['u1', 'pads'], outputs: ['u1p'] },
    { op: 'Slice', inputs: ['u1p', 'sst', 'sen', 'sax'], outputs: ['u1s'] },
    { op: 'Concat', inputs: ['u1s', 'e1r'], outputs: ['c1'], attrs: { axis: 1 } },
    { op: 'Conv', inputs: ['c1', 'd1w'], outputs: ['d1'] },
    { op: 'ReduceMean', inputs: ['d1'], outputs: ['mean'], attrs: { axes: [2, 3], keepdims: 1 } },
    { op: 'Sub', inputs: ['d1', 'mean'], outputs: ['y'] },
  ];
  return onnxModel({
    name: 'unet',
    nodes,
    initializers: [weight('e1w', [16, 3, 3, 3]), weight('e2w', [32, 16, 3, 3]), weight('d2w', [32, 16, 2, 2]), weight('d2c', [32, 48, 3, 3]),
      { name: 'up2', dims: [4], floats: [1, 1, 2, 2] }, ints('pads', [0, 0, 1, 1, 0, 0, 1, 1]), ints('sst', [1, 1]), ints('sen', [-1, -1]), ints('sax', [2, 3]),
      weight('d1w', [2, 48, 1, 1])],
    inputs: [{ name: 'x', shape: [1, 3, 96, 96] }],
    outputs: [{ name: 'y' }],
  });
}

/** A quantized conv block (QDQ form): QuantizeLinear/DequantizeLinear around Conv and MatMul. */
export function quantized() {
  return onnxModel({
    name: 'qdq',
    nodes: [
      { op: 'QuantizeLinear', inputs: ['x', 'sx', 'zx'], outputs: ['xq'] },
      { op: 'DequantizeLinear', inputs: ['xq', 'sx', 'zx'], outputs: ['xd'] },
      { op: 'DequantizeLinear', inputs: ['wq', 'sw', 'zw'], outputs: ['wd'] },
      { op: 'Conv', inputs: ['xd', 'wd'], outputs: ['c'], attrs: { strides: [2, 2] } },
      { op: 'Relu', inputs: ['c'], outputs: ['r'] },
      { op: 'QuantizeLinear', inputs: ['r', 'sx', 'zx'], outputs: ['rq'] },
      { op: 'DequantizeLinear', inputs: ['rq', 'sx', 'zx'], outputs: ['rd'] },
      { op: 'Flatten', inputs: ['rd'], outputs: ['f'] },
      { op: 'MatMul', inputs: ['f', 'fc'], outputs: ['y'] },
    ],
    initializers: [weight('sx', []), { name: 'zx', dims: [], type: T.UINT8, raw: new Uint8Array(1) }, { name: 'wq', dims: [8, 3, 3, 3], type: T.INT8, raw: new Uint8Array(0) },
      weight('sw', []), { name: 'zw', dims: [], type: T.INT8, raw: new Uint8Array(1) }, weight('fc', [8 * 15 * 15, 10])],
    inputs: [{ name: 'x', shape: [4, 3, 32, 32] }],
    outputs: [{ name: 'y' }],
  });
}

/**
 * A generated model of `nodes` nodes: a chain of residual blocks (MatMul, Add, Relu, Reshape,
 * Transpose, Softmax, Concat, Slice) with varied widths, for scale.
 */
export function generatedModel(nodes = 10_000, seed = 1) {
  let state = seed >>> 0;
  const random = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const list = [], inits = [ints('flat', [0, -1]), ints('st0', [0]), ints('e64', [64]), ints('ax1', [1])];
  const width = 64;
  let x = 'x';
  let k = 0;
  const push = (n) => { list.push({ ...n, name: `n${list.length}` }); };
  const recent = [];
  while (list.length + 9 <= nodes) {
    const w = `w${k}`;
    inits.push(weight(w, [width, width]));
    push({ op: 'MatMul', inputs: [x, w], outputs: [`m${k}`] });
    push({ op: 'Relu', inputs: [`m${k}`], outputs: [`r${k}`] });
    const skip = recent.length ? recent[Math.floor(random() * recent.length)] : x;
    push({ op: 'Add', inputs: [`r${k}`, skip], outputs: [`a${k}`] });
    push({ op: 'Reshape', inputs: [`a${k}`, 'flat'], outputs: [`f${k}`] });
    push({ op: 'Transpose', inputs: [`f${k}`], outputs: [`t${k}`], attrs: { perm: [1, 0] } });
    push({ op: 'Softmax', inputs: [`t${k}`], outputs: [`s${k}`], attrs: { axis: -1 } });
    push({ op: 'Transpose', inputs: [`s${k}`], outputs: [`u${k}`], attrs: { perm: [1, 0] } });
    push({ op: 'Concat', inputs: [`u${k}`, `a${k}`], outputs: [`c${k}`], attrs: { axis: 1 } });
    push({ op: 'Slice', inputs: [`c${k}`, 'st0', 'e64', 'ax1'], outputs: [`o${k}`] });
    recent.push(`a${k}`);
    if (recent.length > 8) recent.shift();
    x = `o${k}`;
    k += 1;
  }
  while (list.length < nodes) {
    push({ op: 'Reshape', inputs: [x, 'flat'], outputs: [`v${list.length}`] });
    x = `v${list.length - 1}`;
  }
  return onnxModel({ name: `generated ${nodes}`, nodes: list, initializers: inits, inputs: [{ name: 'x', shape: [32 + Math.floor(random() * 32), width] }], outputs: [{ name: x }] });
}

/** Every model the ONNX tests plan, by name (the bench reports arena vs LB for each). */
export const ALL_MODELS = {
  convnet: () => convNet(),
  'transformer-block': () => transformerBlock(),
  recurrent,
  unet,
  quantized,
  'generated-1000': () => generatedModel(1000),
};

/** Import options each model needs (symbolic dimensions). */
export const MODEL_OPTIONS = {
  'transformer-block': { dims: { batch: 2, seq: 128 } },
};
