// The MLP activation (GELU, ReLU, SwiGLU, GeGLU) as TE's LayerNormMLP runs it
// (TransformerEngine d0067d0da6, transformer_engine/pytorch/module/
// layernorm_mlp.py `_LayerNormMLP._forward`, `_LayerNormMLP.backward`;
// csrc/extensions/activation.cpp `activation_helper`): FC1's output is saved
// (a view) for the backward; FC2's quantized input and FC1's quantized output
// gradient are written by the kernel or through a high-precision temporary
// (te-transients.ts activationHasTemporary, dactHasTemporary), and fc1_out is
// cleared only once the activation gradient is quantized.
import type { Activation } from '../layer-spec.js';
import { activationHasTemporary, dactHasTemporary } from '../te-transients.js';
import { type GraphState, invalid } from './graph-state.js';
import { quantized } from './quantized-tensors.js';
import { holdUntil } from './saved-tensors.js';
import { type Act, type Bwd, type Usage, all } from './values.js';

/** MLP activation; with quantized inputs the kernel writes FC2's quantized input (fused act+cast). */
export function activation(g: GraphState, module: string, x: Act, kind: Activation, fusedCast: boolean,
  usages: Usage[] = ['rowwise', 'columnwise']): { y: Act; bwd: Bwd } {
  if (!x.name) invalid(`${module}: activation input must be high precision`);
  const gated = kind === 'swiglu' || kind === 'geglu';
  const outCols = gated ? x.cols / 2 : x.cols;
  const saved = g.view(`${module}.saved_input`, x.name, module, 'activation', { shape: [x.rows, x.cols], dtype: g.dtype });
  g.tag([saved], 'savedActivationInput');
  const q = fusedCast ? quantized(g, `${module}.out`, [x.rows, outCols], g.roles.inputs, usages, module, 'quantizedActivation') : undefined;
  let y: Act;
  if (q && activationHasTemporary(g.roles.inputs)) {
    // High-precision activation, then a separate quantize (activationQuantizeTemporary).
    const tmp = g.hp(`${module}.out_hp`, x.rows, outCols, module, 'activation');
    g.tag([tmp], 'activationQuantizeTemporary');
    g.op(`${module}.fwd`, kind, [x.name], [tmp]);
    g.op(`${module}.out_quantize`, 'quantize', [tmp], all(q));
    y = { q, rows: x.rows, cols: outCols };
  } else if (q) {
    g.op(`${module}.fwd`, kind, [x.name], all(q));
    y = { q, rows: x.rows, cols: outCols };
  } else {
    const out = g.hp(`${module}.out`, x.rows, outCols, module, 'activation');
    g.op(`${module}.fwd`, kind, [x.name], [out]);
    y = { name: out, rows: x.rows, cols: outCols };
  }
  const backwardOp = kind === 'gelu' || kind === 'relu' ? `${kind}_backward` : `d${kind}`;
  const bwd: Bwd = (dy) => {
    const dq = fusedCast
      ? quantized(g, `${module}.grad_in`, [x.rows, x.cols], g.roles.gradients, ['rowwise', 'columnwise'], module, 'quantizedGradient', true)
      : undefined;
    if (dq && dactHasTemporary(g.roles.gradients, kind)) {
      // dact [M, in] in high precision, then quantized for FC1's dgrad/wgrad
      // (dactTemporary): it lives across this op pair only.
      const dact = g.hp(`${module}.dact`, x.rows, x.cols, module, 'gradient');
      g.tag([dact], 'dactTemporary');
      g.op(`${module}.bwd`, backwardOp, [dy.name, saved], [dact]);
      g.op(`${module}.grad_quantize`, 'quantize', [dact], all(dq));
      // fc1_out stays until after the quantize: TE clears it only then
      // (layernorm_mlp.py `_LayerNormMLP.backward`, clear_tensor_data(fc1_out, ...)).
      holdUntil(g, `${module}.grad_quantize`, [saved], 'fc1OutUntilDactQuantized');
      return { q: dq, rows: x.rows, cols: x.cols };
    }
    if (dq) {
      g.op(`${module}.bwd`, backwardOp, [dy.name, saved], all(dq));
      return { q: dq, rows: x.rows, cols: x.cols };
    }
    const dx = g.hp(`${module}.grad_in`, x.rows, x.cols, module, 'gradient');
    g.op(`${module}.bwd`, backwardOp, [dy.name, saved], [dx]);
    // The backward of a non-gated activation runs in place, over dy.
    if (!gated && dy.name) g.writer.inPlace(dx, dy.name);
    return { name: dx, rows: x.rows, cols: x.cols };
  };
  return { y, bwd };
}
