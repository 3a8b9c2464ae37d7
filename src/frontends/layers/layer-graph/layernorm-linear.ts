// TE LayerNormLinear (TransformerEngine d0067d0da6, transformer_engine/
// pytorch/module/layernorm_linear.py): a norm whose output feeds a Linear, one
// autograd node. The Linear's held tensors (its per-step quantized weight)
// live until the norm backward ends (`_LayerNormLinear.backward`: wt_save is
// restored from ctx and released when the node returns, after
// tex.layernorm_bwd / rmsnorm_bwd).
import type { Normalization } from '../layer-spec.js';
import type { GraphState } from './graph-state.js';
import { linear } from './linear.js';
import { norm, normUsages } from './norm.js';
import { holdUntil } from './saved-tensors.js';
import type { Act, Bwd, Parallel } from './values.js';

export interface LayerNormLinearArgs {
  /** The norm's module name (`ln`, `ln1`). */
  normModule: string;
  /** The Linear's module name (`linear`, `qkv`). */
  module: string;
  x: Act;
  normalization: Normalization;
  /** Local output features. */
  out: number;
  parallel: Parallel;
  bias?: boolean;
}

/** TE LayerNormLinear: norm, then Linear; the backward ends with the norm backward. */
export function layerNormLinear(g: GraphState, a: LayerNormLinearArgs): { y: Act; bwd: Bwd } {
  const ln = norm(g, a.normModule, a.x, a.normalization, true, normUsages(g, a.parallel));
  const lin = linear(g, {
    module: a.module, x: ln.y, out: a.out, parallel: a.parallel, bias: a.bias, unit: 'dense', ownNode: false, layerNormLinear: true,
  });
  return {
    y: lin.y,
    bwd: (dy) => {
      const dx = ln.bwd(lin.bwd(dy));
      holdUntil(g, `${a.normModule}.bwd`, lin.held);
      return dx;
    },
  };
}
