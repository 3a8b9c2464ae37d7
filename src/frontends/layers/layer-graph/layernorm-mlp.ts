// TE LayerNormMLP (TransformerEngine d0067d0da6, transformer_engine/pytorch/
// module/layernorm_mlp.py), one autograd node:
// - ln_out is quantized rowwise and columnwise (_LayerNormMLP._forward:
//   fc1_input_quantizer.set_usage(rowwise=True, columnwise=backwards_needs_fc1_input))
//   and no update_usage(rowwise_usage=False) follows: both usages are saved and
//   freed after FC1 wgrad (_LayerNormMLP.backward: clear_tensor_data(ln_out_total)).
// - act_out keeps every usage it was made with until FC2 wgrad
//   (_LayerNormMLP.backward: clear_tensor_data(act_out)); its columnwise usage is
//   made in forward for MXFP8, NVFP4 and block FP8 only (LayerNormMLP._get_quantizers:
//   fc2_input_quantizer.set_usage(columnwise=isinstance(..., (MXFP8Quantizer,
//   Float8BlockQuantizer, NVFP4Quantizer, ...)))); FP8 per-tensor saves it rowwise
//   and builds the columnwise usage in backward (act_out.update_usage(columnwise_usage=True)).
// - The per-step FC1 and FC2 weight copies (fc1_wt_save, fc2_wt_save, both usages)
//   stay in ctx until the node ends, after the norm backward.
import type { Activation, Normalization } from '../layer-spec.js';
import { activation } from './activation.js';
import type { GraphState } from './graph-state.js';
import { linear } from './linear.js';
import { norm, normUsages } from './norm.js';
import { isPerTensorFp8 } from './role-recipes.js';
import { holdUntil } from './saved-tensors.js';
import type { Act, Bwd } from './values.js';

/** TE LayerNormMLP: ln2, FC1, activation, FC2 (FFN width `ffn`, split over TP). */
export function layerNormMlp(g: GraphState, x: Act, normalization: Normalization, act: Activation, ffn: number): { y: Act; bwd: Bwd } {
  const gated = act === 'swiglu' || act === 'geglu';
  const ffnL = ffn / g.tp;
  const ln = norm(g, 'ln2', x, normalization, true, normUsages(g, 'column'));
  const fc1 = linear(g, { module: 'fc1', x: ln.y, out: gated ? 2 * ffnL : ffnL, parallel: 'column', unit: 'dense', keepInput: true, ownNode: false });
  const a = activation(g, 'act', fc1.y, act, true, isPerTensorFp8(g.roles.inputs) ? ['rowwise'] : ['rowwise', 'columnwise']);
  const fc2 = linear(g, { module: 'fc2', x: a.y, out: x.cols, parallel: 'row', unit: 'dense', keepInput: true, ownNode: false, checkInput: false });
  return {
    y: fc2.y,
    bwd: (dy) => {
      const dx = ln.bwd(fc1.bwd(a.bwd(fc2.bwd(dy))));
      holdUntil(g, 'ln2.bwd', [...fc1.held, ...fc2.held]);
      return dx;
    },
  };
}
