// TE GroupedLinear (TransformerEngine d0067d0da6, transformer_engine/pytorch/
// module/grouped_linear.py `_GroupedLinear`): split_quantize of the input per
// group (one bulk allocation per usage for the recipes the core says TE's
// split_quantize bulk-allocates: MXFP8, NVFP4, block FP8; csrc/extensions/
// cast.cpp split_quantize), one grouped GEMM each way, the per-step quantized
// weights saved with both usages until its backward returns, and the weight
// gradients as one allocation unit. No assert_dim_for_fp8_exec here.
import { splitQuantizeLayout } from '../../../formats/grouped.js';
import type { Recipe } from '../../../formats/tensor-format.js';
import { recipeFacts } from '../core-facts.js';
import { type GraphState, invalid } from './graph-state.js';
import type { LayerTensorRole } from './layer-graph-types.js';
import { wgrad } from './parameters.js';
import { quantized } from './quantized-tensors.js';
import { gemmWeight } from './quantized-weights.js';
import { holdUntil } from './saved-tensors.js';
import { type Act, type Bwd, type Usage, use } from './values.js';

/** `total` rows split over `parts` as evenly as whole multiples of `multiple` allow (multiples of 1 when they do not divide). */
export function splitEven(total: number, parts: number, multiple: number): number[] {
  const out: number[] = [];
  const unit = total % (parts * multiple) === 0 ? multiple : 1;
  const units = total / unit;
  for (let i = 0; i < parts; i++) out.push(unit * (Math.floor(units / parts) + (i < units % parts ? 1 : 0)));
  return out;
}

/** The split-quantized members of `[rows, cols]` shapes, by usage; undefined when the recipe is none. */
function splitQuantize(g: GraphState, name: string, recipe: Recipe, rowsBy: number[][], role: LayerTensorRole, gradient: boolean,
  module: string): Record<Usage, string[]> | undefined {
  if (recipe === 'none') return undefined;
  const byUsage: Record<Usage, string[]> = { rowwise: [], columnwise: [] };
  if (recipeFacts(g.core, recipe).splitBulk) {
    const fmt = { dtype: g.dtype, recipe, arch: g.arch, options: { fp8Dtype: g.fp8Element(recipe, gradient) } };
    for (const usage of ['rowwise', 'columnwise'] as const) {
      let layout;
      try {
        layout = splitQuantizeLayout(g.core, rowsBy, fmt, usage);
      } catch (error) {
        invalid(`${g.prefix}${name}: ${(error as Error).message}`);
      }
      const tensors = layout.entries.map((e) => g.t(`${name}.${usage}.m${e.member}.${e.name.replace(/^_/, '')}`,
        { bytes: e.bytes, alignment: e.alignment }, module, role, false, { buffer: e.name, recipe }));
      g.writer.group(tensors);
      byUsage[usage] = tensors;
    }
    return byUsage;
  }
  rowsBy.forEach((shape, e) => {
    const q = quantized(g, `${name}.m${e}`, shape, recipe, ['rowwise', 'columnwise'], module, role, gradient);
    if (q) {
      byUsage.rowwise.push(...use(q, 'rowwise'));
      byUsage.columnwise.push(...use(q, 'columnwise'));
    }
  });
  return byUsage;
}

/** TE GroupedLinear over `splits` rows per group, `out` output features. */
export function groupedLinear(g: GraphState, module: string, x: Act, splits: number[], out: number, unit: string): { y: Act; bwd: Bwd } {
  if (!x.name) invalid(`${module}: grouped input must be high precision`);
  const inF = x.cols;
  const members = splits.map((rows) => [rows, inF]);
  const xq = splitQuantize(g, `${module}.input`, g.roles.inputs, members, 'quantizedActivation', false, module);
  let fpropIn = [x.name];
  let savedIn: string[];
  if (xq) {
    g.op(`${module}.input_split_quantize`, 'split_quantize', [x.name], [...xq.rowwise, ...xq.columnwise]);
    fpropIn = xq.rowwise;
    savedIn = xq.columnwise;
  } else {
    savedIn = [g.view(`${module}.saved_input`, x.name, module, 'activation', { shape: [x.rows, inF], dtype: g.dtype })];
  }
  g.tag(savedIn, 'savedLinearInput');
  const fpropW: string[] = [];
  const dgradW: string[] = [];
  const heldW: string[] = [];
  splits.forEach((_, e) => {
    const w = gemmWeight(g, `${module}.e${e}`, [out, inF]);
    fpropW.push(...w.fprop);
    dgradW.push(...w.dgrad);
    heldW.push(...w.held);
  });
  const y = g.hp(`${module}.out`, x.rows, out, module, 'activation');
  g.op(`${module}.fprop`, 'grouped_gemm', [...fpropIn, ...fpropW], [y]);
  const bwd: Bwd = (dy) => {
    const outMembers = splits.map((rows) => [rows, out]);
    const dq = splitQuantize(g, `${module}.grad_out`, g.roles.gradients, outMembers, 'quantizedGradient', true, module);
    let dIn = [dy.name!];
    let wIn = [dy.name!];
    if (dq) {
      g.op(`${module}.grad_split_quantize`, 'split_quantize', [dy.name], [...dq.rowwise, ...dq.columnwise]);
      dIn = dq.rowwise;
      wIn = dq.columnwise;
    }
    const dx = g.hp(`${module}.grad_in`, x.rows, inF, module, 'gradient');
    g.op(`${module}.dgrad`, 'grouped_gemm', [...dIn, ...dgradW], [dx]);
    const wgrads = splits.map((_, e) => wgrad(g, `${module}.e${e}`, [out, inF], `${unit}.${module}`));
    g.op(`${module}.wgrad`, 'grouped_gemm', [...wIn, ...savedIn], wgrads);
    // TE grouped_linear.py _GroupedLinear.forward saves *weights_fp8 (both usages,
    // weight_quantizer.set_usage(rowwise=True, columnwise=columnwise_usage)) with
    // prepare_for_saving; they are released when its backward returns, after wgrad.
    holdUntil(g, `${module}.wgrad`, heldW);
    return { name: dx, rows: x.rows, cols: inF };
  };
  return { y: { name: y, rows: x.rows, cols: out }, bwd };
}
