// The MoE block (TransformerEngine d0067d0da6, transformer_engine/pytorch/
// permutation.py `moe_permute`, `moe_unpermute`; module/grouped_linear.py
// `GroupedLinear` for the experts): norm, all-gather of the tokens with SP, a
// router GEMM with fp32 logits and top-k, permute, grouped FC1, activation
// (high precision: GroupedLinear split-quantizes its input itself), grouped
// FC2, unpermute, then a reduce-scatter (SP) or all-reduce (TP).
import type { Activation, MoeSettings, Normalization } from '../layer-spec.js';
import { activation } from './activation.js';
import type { GraphState } from './graph-state.js';
import { groupedLinear, splitEven } from './grouped-linear.js';
import { norm } from './norm.js';
import { allGather, reduceScatter, sumOverTp } from './parallelism.js';
import { param, wgrad } from './parameters.js';
import type { Act, Bwd } from './values.js';

/** MoE block: norm, (SP all-gather), router, top-k, permute, grouped FC1, activation, grouped FC2, unpermute. */
export function moeBlock(g: GraphState, x: Act, normalization: Normalization, act: Activation, ffn: number, moe: MoeSettings): { y: Act; bwd: Bwd } {
  const gated = act === 'swiglu' || act === 'geglu';
  const ffnL = ffn / g.tp;
  const h = x.cols;
  const ln = norm(g, 'ln2', x, normalization, false);
  let tokens: Act = ln.y;
  const rowsFull = g.sp ? x.rows * g.tp : x.rows;
  if (g.sp) tokens = { name: allGather(g, 'moe.input_gathered', 'moe.input_all_gather', [ln.y.name], rowsFull, h, 'moe'), rows: rowsFull, cols: h };
  const router = param(g, 'router', [moe.experts, h]);
  const logits = g.hp('router.logits', rowsFull, moe.experts, 'router', 'activation', 'fp32');
  g.op('router.fprop', 'gemm', [tokens.name, router], [logits]);
  const probs = g.t('router.topk_probs', { shape: [rowsFull, moe.topK], dtype: 'fp32' }, 'router', 'activation');
  const indices = g.t('router.topk_indices', { shape: [rowsFull, moe.topK], dtype: 'int64' }, 'router', 'activation');
  const routingMap = g.t('router.routing_map', { shape: [rowsFull, moe.experts], dtype: 'bool' }, 'router', 'activation');
  g.op('router.topk', 'topk_softmax', [logits], [probs, indices, routingMap]);
  const routed = rowsFull * moe.topK;
  const splits = moe.tokensPerExpert ?? splitEven(routed, moe.experts, 32);
  const permuted = g.hp('moe.permuted', routed, h, 'moe', 'activation');
  const rowIdMap = g.t('moe.row_id_map', { shape: [routed], dtype: 'int32' }, 'moe', 'activation');
  g.op('moe.permute', 'moe_permute', [tokens.name, indices, routingMap], [permuted, rowIdMap]);
  const fc1 = groupedLinear(g, 'fc1', { name: permuted, rows: routed, cols: h }, splits, gated ? 2 * ffnL : ffnL, 'experts');
  const a = activation(g, 'act', fc1.y, act, false);
  // GroupedLinear takes the high-precision activation and split-quantizes it itself.
  const fc2 = groupedLinear(g, 'fc2', a.y, splits, h, 'experts');
  const unpermuted = g.hp('moe.unpermuted', rowsFull, h, 'moe', 'activation');
  g.op('moe.unpermute', 'moe_unpermute', [fc2.y.name, rowIdMap, probs], [unpermuted]);
  let y: Act = { name: unpermuted, rows: rowsFull, cols: h };
  if (g.tp > 1) y = { ...sumOverTp(g, unpermuted, rowsFull, h, 'moe', 'activation', 'moe.out', 'moe.'), cols: h };
  const bwd: Bwd = (dy) => {
    let dFull = dy;
    if (g.sp) dFull = { name: allGather(g, 'moe.grad_gathered', 'moe.grad_all_gather', [dy.name], rowsFull, h, 'moe'), rows: rowsFull, cols: h };
    const dExpertOut = g.hp('moe.grad_unpermute', routed, h, 'moe', 'gradient');
    const dProbs = g.t('router.grad_probs', { shape: [rowsFull, moe.topK], dtype: 'fp32' }, 'router', 'gradient');
    g.op('moe.unpermute_bwd', 'moe_unpermute_bwd', [dFull.name, rowIdMap, probs, fc2.y.name], [dExpertOut, dProbs]);
    const dAct = fc2.bwd({ name: dExpertOut, rows: routed, cols: h });
    const dPermuted = fc1.bwd(a.bwd(dAct));
    const dTokens = g.hp('moe.grad_permute', rowsFull, h, 'moe', 'gradient');
    g.op('moe.permute_bwd', 'moe_permute_bwd', [dPermuted.name, rowIdMap], [dTokens]);
    const dLogits = g.hp('router.grad_logits', rowsFull, moe.experts, 'router', 'gradient', 'fp32');
    g.op('router.topk_bwd', 'topk_softmax_bwd', [dProbs, probs, logits], [dLogits]);
    const dRouterW = wgrad(g, 'router', [moe.experts, h], '', false);
    const dTokens2 = g.hp('router.grad_in', rowsFull, h, 'router', 'gradient');
    g.op('router.dgrad', 'gemm', [dLogits, router, dTokens], [dTokens2]);
    g.writer.inPlace(dTokens2, dTokens);
    g.op('router.wgrad', 'gemm', [dLogits, tokens.name], [dRouterW]);
    let dLn: Act = { name: dTokens2, rows: rowsFull, cols: h };
    if (g.sp) dLn = { name: reduceScatter(g, 'moe.grad_scattered', 'moe.grad_reduce_scatter', dTokens2, x.rows, h, 'moe', 'gradient'), rows: x.rows, cols: h };
    return ln.bwd(dLn);
  };
  return { y, bwd };
}
