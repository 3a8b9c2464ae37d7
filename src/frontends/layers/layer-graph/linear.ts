// TE Linear, and the Linear inside LayerNormLinear and LayerNormMLP
// (TransformerEngine d0067d0da6, transformer_engine/pytorch/module/linear.py
// `_linear_forward_impl`, `_linear_backward`; FORMATS.md §6): the input and
// weight casts, the fprop, dgrad and wgrad GEMMs, the all-gathers and
// reductions of TP and SP, and which usages of the quantized input are saved
// for wgrad and how long (module/linear.py ≈L616 update_usage(rowwise_usage=False);
// layernorm_linear.py `_LayerNormLinear.forward`; layernorm_mlp.py `_LayerNormMLP`).
//
// The shapes TE accepts: with any quantized recipe, Linear, LayerNormLinear and
// LayerNormMLP refuse a GEMM input or weight whose leading dims multiply to a
// number not divisible by 8, or whose last dim is not divisible by 16
// (utils.py `assert_dim_for_fp8_exec`, called from linear.py
// `_linear_forward_impl`, layernorm_linear.py `_LayerNormLinear.forward`,
// layernorm_mlp.py `_LayerNormMLP._forward`). GroupedLinear does not check.
import { param, wgrad } from './parameters.js';
import { type GraphState, invalid } from './graph-state.js';
import { allGather, gatherQuantized, rowwiseOnlyGather, sumOverTp } from './parallelism.js';
import { columnwiseOf, quantized } from './quantized-tensors.js';
import { gemmWeight } from './quantized-weights.js';
import { holdUntil } from './saved-tensors.js';
import { type Act, type Bwd, type Parallel, type QuantizedTensor, all, use } from './values.js';

/** Refuses `tensor` of `shape` as TE's assert_dim_for_fp8_exec does, when any role is quantized. */
function assertDimForFp8Exec(g: GraphState, tensor: string, shape: number[]): void {
  if (g.roles.inputs === 'none' && g.roles.weights === 'none' && g.roles.gradients === 'none') return;
  const leading = shape.slice(0, -1).reduce((p, d) => p * d, 1);
  const last = shape[shape.length - 1];
  if (leading % 8 === 0 && last % 16 === 0) return;
  invalid(`${tensor} [${shape.join(', ')}]: TE refuses it for a quantized recipe: the product of all dims but the last `
    + `(${leading}) must be divisible by 8 and the last dim (${last}) by 16 `
    + '(TransformerEngine d0067d0da6, transformer_engine/pytorch/utils.py assert_dim_for_fp8_exec)');
}

/** What one Linear is built from. */
export interface LinearArgs {
  module: string;
  x: Act;
  /** Local output features. */
  out: number;
  parallel: Parallel;
  bias?: boolean;
  /** Weight-gradient allocation unit (bulk/packed grouping). */
  unit: string;
  /**
   * The saved quantized input keeps every usage it was made with, until wgrad
   * (TE LayerNormMLP has no update_usage(rowwise_usage=False)); the columnwise
   * usage is built in backward when the input has none (FP8 per-tensor act_out).
   */
  keepInput?: boolean;
  /**
   * The Linear is its own autograd node (TE Linear): what it holds dies after
   * its wgrad. Otherwise (inside LayerNormLinear, LayerNormMLP) the caller
   * holds `held` until the op that ends its node.
   */
  ownNode?: boolean;
  /**
   * The Linear of a TE LayerNormLinear (module/layernorm_linear.py
   * `_LayerNormLinear.forward`): with SP its saved `ln_out` drops the rowwise
   * usage only for MXFP8 and block FP8 (`update_usage(rowwise_usage=False)`),
   * so NVFP4 keeps both; backward frees it after wgrad (`clear_tensor_data(ln_out)`).
   */
  layerNormLinear?: boolean;
  /**
   * TE checks this GEMM's input with assert_dim_for_fp8_exec (default true).
   * LayerNormMLP checks its input, fc1_weight and fc2_weight, not FC2's input.
   */
  checkInput?: boolean;
}

/** TE Linear: its output, its backward, and what the caller holds until its autograd node ends. */
export function linear(g: GraphState, a: LinearArgs): { y: Act; bwd: Bwd; held: string[] } {
  const { module, x, out } = a;
  const inF = x.cols;
  const m = `${module}`;
  const bias = a.bias ? param(g, `${module}.bias`, [out]) : undefined;
  if (a.checkInput ?? true) assertDimForFp8Exec(g, `${g.prefix}${m}.input`, [x.rows, inF]);
  assertDimForFp8Exec(g, `${g.layer}.${module}.weight`, [out, inF]);
  const gatherInput = g.sp && a.parallel === 'column';
  const rowsFull = gatherInput ? x.rows * g.tp : x.rows;
  const rowwiseGather = rowwiseOnlyGather(g, a.parallel);

  // Input: quantized row+col (rowwise for fprop, columnwise saved for wgrad).
  let fpropIn: string[];
  let savedIn: string[];
  // Buffers of the saved input that wgrad does not read but the module keeps (keepInput).
  let keptIn: string[] = [];
  let savedQ: QuantizedTensor | undefined;
  let xq = x.q;
  if (!xq && g.roles.inputs !== 'none') {
    xq = quantized(g, `${m}.input`, [x.rows, inF], g.roles.inputs, rowwiseGather ? ['rowwise'] : ['rowwise', 'columnwise'], module, 'quantizedActivation');
    if (xq) g.op(`${m}.input_cast`, 'quantize', [x.name], all(xq));
  }
  if (xq) {
    savedQ = xq;
    savedIn = use(xq, rowwiseGather ? 'rowwise' : 'columnwise');
    const keepAll = a.keepInput || (a.layerNormLinear && gatherInput && g.roles.inputs === 'nvfp4');
    if (keepAll) keptIn = all(xq).filter((t) => !savedIn.includes(t));
    if (gatherInput) {
      fpropIn = use(gatherQuantized(g, `${m}.input_gathered`, `${m}.input_all_gather`, xq, 'rowwise', rowsFull, inF, module), 'rowwise');
    } else {
      fpropIn = use(xq, 'rowwise');
    }
  } else {
    if (!x.name) invalid(`${m}: input has no high-precision tensor`);
    // The saved input is the input object itself: a view, never a copy.
    const saved = g.view(`${m}.saved_input`, x.name, module, 'activation', { shape: [x.rows, inF], dtype: g.dtype });
    savedIn = [saved];
    fpropIn = gatherInput ? [allGather(g, `${m}.input_gathered`, `${m}.input_all_gather`, [x.name], rowsFull, inF, module)] : [x.name];
  }

  // Weight: rowwise for fprop, columnwise for dgrad.
  const { fprop: fpropW, dgrad: dgradW, held: heldW } = gemmWeight(g, module, [out, inF]);
  // What the caller holds until its autograd node ends; with SP the backward
  // below adds the rank-local saved input where TE keeps it in ctx that long.
  const held = [...heldW];
  // The rank-local quantized input TE saves (inputmat / ln_out), every usage it keeps.
  const savedLocal = savedQ ? [...savedIn, ...keptIn] : [];
  // LayerNormMLP keeps its GEMM inputs whole (lnOutBothUsages, actOutBothUsages); others keep what wgrad reads.
  if (a.keepInput && savedQ) g.tag(all(savedQ), module === 'fc1' ? 'lnOutBothUsages' : 'actOutBothUsages');
  else g.tag(savedLocal.length > 0 ? savedLocal : savedIn, 'savedLinearInput');

  let y = g.hp(`${m}.out`, rowsFull, out, module, 'activation');
  // High precision without bias is op set v1's matmul (y = x · Wᵀ); the rest stays a TE GEMM.
  const hpWeight = fpropW.length === 1 && fpropW[0] === `${g.layer}.${module}.weight`;
  if (!bias && !xq && hpWeight) g.op(`${m}.fprop`, 'matmul', [...fpropIn, ...fpropW], [y], 0, { transposeB: true });
  else g.op(`${m}.fprop`, 'gemm', [...fpropIn, ...fpropW, bias], [y]);
  let yRows = rowsFull;
  if (a.parallel === 'row' && g.tp > 1) ({ name: y, rows: yRows } = sumOverTp(g, y, rowsFull, out, module, 'activation', `${m}.out`, `${m}.`));

  const bwd: Bwd = (dy) => {
    let dyFull: Act = dy;
    if (a.parallel === 'row' && g.sp) {
      if (!dy.name) invalid(`${m}: gradient has no high-precision tensor to gather`);
      const full = allGather(g, `${m}.grad_out_gathered`, `${m}.grad_all_gather`, [dy.name], dy.rows * g.tp, out, module);
      dyFull = { name: full, rows: dy.rows * g.tp, cols: out };
    }
    let dq = dyFull.q;
    if (!dq && g.roles.gradients !== 'none') {
      dq = quantized(g, `${m}.grad_out`, [dyFull.rows, out], g.roles.gradients, ['rowwise', 'columnwise'], module, 'quantizedGradient', true);
      if (dq) g.op(`${m}.grad_cast`, 'quantize', [dyFull.name], all(dq));
    }
    const dgradIn = dq ? use(dq, 'rowwise') : [dyFull.name!];
    const wgradIn = dq ? use(dq, 'columnwise') : [dyFull.name!];
    let dx = g.hp(`${m}.grad_in`, rowsFull, inF, module, 'gradient');
    if (!dq && hpWeight) g.op(`${m}.dgrad`, 'matmul', [...dgradIn, ...dgradW], [dx]);
    else g.op(`${m}.dgrad`, 'gemm', [...dgradIn, ...dgradW], [dx]);
    // A saved input without columnwise usage gets it now (TE layernorm_mlp.py
    // _LayerNormMLP.backward: act_out.update_usage(columnwise_usage=True)): a new
    // transpose on Hopper, nothing new where one buffer serves both usages.
    if (savedQ && savedIn.length === 0) {
      if (gatherInput) invalid(`${m}: a gathered input needs its columnwise usage from forward`);
      savedIn = columnwiseOf(g, `${m}.input`, `${m}.input_columnwise`, savedQ, x.rows, inF, module);
      const made = all(savedQ);
      g.tag(savedIn.filter((t) => !made.includes(t)), 'actOutColumnwiseInBackward');
      keptIn = keptIn.filter((t) => !savedIn.includes(t));
    }
    // wgrad needs the full input: with SP it is gathered again in backward.
    let wIn = savedIn;
    if (gatherInput) {
      if (savedQ && rowwiseGather) {
        const total = gatherQuantized(g, `${m}.input_regathered`, `${m}.input_regather`, savedQ, 'rowwise', rowsFull, inF, module);
        wIn = columnwiseOf(g, `${m}.input_regathered`, `${m}.input_regathered_columnwise`, total, rowsFull, inF, module);
        const gathered = all(total);
        g.tag(wIn.filter((t) => !gathered.includes(t)), 'spAllGather');
      } else if (savedQ) {
        wIn = use(gatherQuantized(g, `${m}.input_regathered`, `${m}.input_regather`, savedQ, 'columnwise', rowsFull, inF, module), 'columnwise');
      } else {
        wIn = [allGather(g, `${m}.input_regathered`, `${m}.input_regather`, savedIn, rowsFull, inF, module)];
      }
    }
    const wg = wgrad(g, module, [out, inF], a.unit);
    const outs = [wg];
    if (bias) outs.push(wgrad(g, `${module}.bias`, [out], a.unit, false));
    if (!bias && !dq && !savedQ) g.op(`${m}.wgrad`, 'matmul', [...wgradIn, ...wIn], outs, 0, { transposeA: true });
    else g.op(`${m}.wgrad`, 'gemm', [...wgradIn, ...wIn], outs);
    // The kept input is freed after wgrad (TE clear_tensor_data(ln_out_total) / (act_out)).
    if (!gatherInput) holdUntil(g, `${m}.wgrad`, keptIn);
    // With SP the rank-local saved input outlives the re-gather: LayerNormMLP
    // keeps ln_out in ctx until its node ends; Linear's node ends with wgrad and
    // LayerNormLinear frees ln_out after wgrad (clear_tensor_data(ln_out)).
    else if (a.keepInput) held.push(...savedLocal);
    else holdUntil(g, `${m}.wgrad`, savedLocal);
    // TE Linear's node ends with its wgrad (module/linear.py _linear_backward).
    if (a.ownNode ?? true) holdUntil(g, `${m}.wgrad`, held);
    let dxRows = rowsFull;
    if (a.parallel === 'column' && g.tp > 1) {
      ({ name: dx, rows: dxRows } = sumOverTp(g, dx, rowsFull, inF, module, 'gradient', `${m}.grad_in`, `${m}.grad_`));
    }
    return { name: dx, rows: dxRows, cols: inF };
  };
  return { y: { name: y, rows: yRows, cols: out }, bwd, held };
}
