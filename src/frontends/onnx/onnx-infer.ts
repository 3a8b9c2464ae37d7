// Shape (and, for small shape-like constants, value) inference for the common
// ONNX operator set. Each rule maps input values to output values; a rule that
// cannot decide throws InferenceGap with the reason.
import { DT } from './onnx-model.js';
import type { OnnxNode } from './onnx-model.js';
import { FoldGap } from './fold/elements.js';
import { ValueUnknown, evaluateNode } from './fold/evaluate.js';
import { sliceRanges, splitSizes } from './fold/movement.js';
import type { Known } from './fold/evaluate.js';
import {
  InferenceGap, attr, attrFloats, attrInt, attrInts, attrStr, broadcastShapes, constInput, conv, convLike, gap, input, matmulShape,
  normAxis, numel, pool,
} from './infer-helpers.js';
import type { InferContext, Rule, Value } from './infer-helpers.js';
import { CONTRIB_RULES, ORT_ONNX_DOMAIN_RULES } from './contrib-infer.js';
import { ONNX_DOMAIN_RULES, operatorFamilyRules } from './infer/rule-table.js';
import { resizeShape, scaledSize } from './resize-shape.js';

export { InferenceGap, broadcastShapes } from './infer-helpers.js';
export type { InferContext, Value } from './infer-helpers.js';

/** The rules of infer/ (one file per operator family), SequenceMap's inferring its body with inferNode. */
const OPERATOR_FAMILY_RULES = operatorFamilyRules(inferNode);

/** Element-wise ops with one input and an output of the same shape and type. */
export const UNARY_OPS = [
  'Relu', 'Sigmoid', 'Tanh', 'Exp', 'Log', 'Neg', 'Abs', 'Sqrt', 'Reciprocal', 'Erf', 'Gelu', 'LeakyRelu', 'Elu', 'Selu',
  'HardSigmoid', 'HardSwish', 'Softplus', 'Softsign', 'Clip', 'Sin', 'Cos', 'Tan', 'Asin', 'Acos', 'Atan', 'Sinh', 'Cosh',
  'Floor', 'Ceil', 'Round', 'Sign', 'Not', 'Mish', 'ThresholdedRelu', 'Celu', 'Shrink', 'Swish', 'FastGelu', 'QuickGelu',
  'BitwiseNot', 'Trilu', 'CumSum',
];
/** Element-wise ops with broadcasting inputs and an output of the first input's type. */
export const BINARY_OPS = ['Add', 'Sub', 'Mul', 'Div', 'Pow', 'Max', 'Min', 'Sum', 'Mean', 'Mod', 'PRelu', 'BitShift', 'BitwiseAnd', 'BitwiseOr', 'BitwiseXor'];
/** Element-wise comparisons and logic: broadcasting, bool output. */
export const COMPARE_OPS = ['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual', 'And', 'Or', 'Xor'];
/** Ops that keep shape and type of input 0 (normalizations, softmax). */
export const SAME_SHAPE_OPS = [
  'Softmax', 'LogSoftmax', 'Hardmax', 'InstanceNormalization', 'GroupNormalization', 'LRN', 'LpNormalization',
  'MeanVarianceNormalization', 'ScatterND', 'ScatterElements', 'Scatter', 'ReverseSequence',
];


function reduce(c: InferContext, axesFromInput: boolean, elemType?: number): Value[] {
  const x = input(c, 0);
  const rank = x.shape.length;
  const axes = axesFromInput ? constInput(c, 1, 'axes') : attrInts(c, 'axes');
  const keep = attrInt(c, 'keepdims', 1) === 1;
  const noop = attrInt(c, 'noop_with_empty_axes', 0) === 1;
  if ((!axes || axes.length === 0) && noop) return [{ ...x, data: undefined }];
  const set = new Set((axes && axes.length ? axes : x.shape.map((_, k) => k)).map((a) => normAxis(a, rank, c)));
  const shape: number[] = [];
  x.shape.forEach((d, k) => { if (!set.has(k)) shape.push(d); else if (keep) shape.push(1); });
  const out: Value = { shape, elemType: elemType ?? x.elemType };
  return [out];
}

function rnn(c: InferContext, gates: number, withCell: boolean): Value[] {
  const x = input(c, 0), w = input(c, 1);
  const hidden = attr(c, 'hidden_size')?.i ?? w.shape[1] / gates;
  const dirs = attrStr(c, 'direction', 'forward') === 'bidirectional' ? 2 : 1;
  const layout = attrInt(c, 'layout', 0);
  const [seq, batch] = layout === 0 ? [x.shape[0], x.shape[1]] : [x.shape[1], x.shape[0]];
  const y = layout === 0 ? [seq, dirs, batch, hidden] : [batch, seq, dirs, hidden];
  const h = layout === 0 ? [dirs, batch, hidden] : [batch, dirs, hidden];
  const out: Value[] = [{ shape: y, elemType: x.elemType }, { shape: h, elemType: x.elemType }];
  if (withCell) out.push({ shape: h, elemType: x.elemType });
  return out;
}

/** f's result, its FoldGap (the evaluator's helpers) as an InferenceGap. */
function folded<T>(f: () => T): T {
  try {
    return f();
  } catch (error) {
    if (error instanceof FoldGap) gap(error.message);
    throw error;
  }
}

function sliceShape(x: Value, starts: number[], ends: number[], axes: number[] | undefined, steps: number[] | undefined): Value {
  return { shape: folded(() => sliceRanges(x.shape, starts, ends, axes, steps)).count, elemType: x.elemType };
}

const RULES: Record<string, Rule> = {
  Conv: (c) => conv(c, 0, 1),
  ConvInteger: (c) => conv(c, 0, 1, DT.INT32),
  QLinearConv: (c) => conv(c, 0, 3, input(c, 7).elemType),
  ConvTranspose: (c) => {
    const x = input(c, 0), w = input(c, 1);
    const kernel = attrInts(c, 'kernel_shape') ?? w.shape.slice(2);
    return [{ shape: convLike(c, x, kernel, w.shape[1] * attrInt(c, 'group', 1), true), elemType: x.elemType }];
  },
  MaxPool: pool, AveragePool: pool, LpPool: pool,
  GlobalAveragePool: (c) => { const x = input(c, 0); return [{ shape: [...x.shape.slice(0, 2), ...x.shape.slice(2).map(() => 1)], elemType: x.elemType }]; },
  MatMul: (c) => [{ shape: matmulShape(input(c, 0).shape, input(c, 1).shape), elemType: input(c, 0).elemType }],
  MatMulInteger: (c) => [{ shape: matmulShape(input(c, 0).shape, input(c, 1).shape), elemType: DT.INT32 }],
  QLinearMatMul: (c) => [{ shape: matmulShape(input(c, 0).shape, input(c, 3).shape), elemType: input(c, 7).elemType }],
  Gemm: (c) => {
    const a = input(c, 0), b = input(c, 1);
    if (a.shape.length !== 2 || b.shape.length !== 2) gap('Gemm needs 2-D A and B');
    const m = attrInt(c, 'transA', 0) ? a.shape[1] : a.shape[0];
    const n = attrInt(c, 'transB', 0) ? b.shape[0] : b.shape[1];
    return [{ shape: [m, n], elemType: a.elemType }];
  },
  Where: (c) => {
    const [cond, x, y] = [input(c, 0), input(c, 1), input(c, 2)];
    const shape = broadcastShapes([cond.shape, x.shape, y.shape]);
    return [{ shape, elemType: x.elemType }];
  },
  Reshape: (c) => {
    const x = input(c, 0);
    const target = c.opset >= 5 ? constInput(c, 1, 'shape') ?? gap('the shape input is missing') : attrInts(c, 'shape') ?? gap('shape is missing');
    const allowZero = attrInt(c, 'allowzero', 0) === 1;
    const shape = target.map((d, k) => (d === 0 && !allowZero ? x.shape[k] : d));
    const minus = shape.indexOf(-1);
    if (minus >= 0) {
      const rest = numel(shape.filter((_, k) => k !== minus));
      if (rest === 0 || numel(x.shape) % rest !== 0) gap(`cannot reshape [${x.shape.join(',')}] to [${target.join(',')}]`);
      shape[minus] = numel(x.shape) / rest;
    }
    if (numel(shape) !== numel(x.shape)) gap(`cannot reshape [${x.shape.join(',')}] (${numel(x.shape)} elements) to [${target.join(',')}]`);
    return [{ shape, elemType: x.elemType }];
  },
  Flatten: (c) => {
    const x = input(c, 0);
    const axis = attrInt(c, 'axis', 1);
    const a = axis < 0 ? axis + x.shape.length : axis;
    return [{ shape: [numel(x.shape.slice(0, a)), numel(x.shape.slice(a))], elemType: x.elemType }];
  },
  Squeeze: (c) => {
    const x = input(c, 0);
    const axes = c.opset >= 13 ? constInput(c, 1, 'axes') : attrInts(c, 'axes');
    const rank = x.shape.length;
    const set = new Set(axes ? axes.map((a) => normAxis(a, rank, c)) : x.shape.flatMap((d, k) => (d === 1 ? [k] : [])));
    for (const a of set) if (x.shape[a] !== 1) gap(`cannot squeeze axis ${a} of size ${x.shape[a]}`);
    return [{ shape: x.shape.filter((_, k) => !set.has(k)), elemType: x.elemType }];
  },
  Unsqueeze: (c) => {
    const x = input(c, 0);
    const axes = (c.opset >= 13 ? constInput(c, 1, 'axes') : attrInts(c, 'axes')) ?? gap('axes are missing');
    const rank = x.shape.length + axes.length;
    const set = new Set(axes.map((a) => normAxis(a, rank, c)));
    const shape: number[] = [];
    let k = 0;
    for (let r = 0; r < rank; ++r) shape.push(set.has(r) ? 1 : x.shape[k++]);
    return [{ shape, elemType: x.elemType }];
  },
  Transpose: (c) => {
    const x = input(c, 0);
    const perm = attrInts(c, 'perm') ?? x.shape.map((_, k) => x.shape.length - 1 - k);
    return [{ shape: perm.map((p) => x.shape[p]), elemType: x.elemType }];
  },
  Concat: (c) => {
    const xs = c.inputs.filter((v): v is Value => !!v && !(v.shape.length === 1 && v.shape[0] === 0 && c.inputs.length > 1));
    if (xs.length === 0) return [{ ...input(c, 0) }];
    const rank = xs[0].shape.length;
    const axis = normAxis(attrInt(c, 'axis', 0), rank, c);
    const shape = [...xs[0].shape];
    shape[axis] = xs.reduce((s, v) => s + v.shape[axis], 0);
    return [{ shape, elemType: xs[0].elemType }];
  },
  Split: (c) => {
    const x = input(c, 0);
    const axis = normAxis(attrInt(c, 'axis', 0), x.shape.length, c);
    const given = c.opset >= 13 || (c.opset < 2 && c.inputs[1]) ? constInput(c, 1, 'split') : attrInts(c, 'split');
    const sizes = folded(() => splitSizes(x.shape[axis], c.node.outputs.length, c.opset, given?.length ? given : undefined, attr(c, 'num_outputs')?.i));
    return sizes.map((p) => { const shape = [...x.shape]; shape[axis] = p; return { shape, elemType: x.elemType }; });
  },
  Slice: (c) => {
    const x = input(c, 0);
    if (c.opset < 10) {
      return [sliceShape(x, attrInts(c, 'starts') ?? gap('starts are missing'), attrInts(c, 'ends') ?? gap('ends are missing'), attrInts(c, 'axes'), undefined)];
    }
    return [sliceShape(x, constInput(c, 1, 'starts', true) ?? gap('starts are missing'), constInput(c, 2, 'ends', true) ?? gap('ends are missing'), constInput(c, 3, 'axes'), constInput(c, 4, 'steps'))];
  },
  Resize: resizeShape,
  Upsample: (c) => {
    const x = input(c, 0);
    const scales = constInput(c, 1, 'scales') ?? attrFloats(c, 'scales') ?? gap('scales are missing');
    if (scales.length !== x.shape.length) gap(`scales has ${scales.length} values for rank ${x.shape.length}`);
    return [{ shape: x.shape.map((d, k) => scaledSize(d, scales[k], k)), elemType: x.elemType }];
  },
  LayerNormalization: (c) => {
    const x = input(c, 0);
    const axis = normAxis(attrInt(c, 'axis', -1), x.shape.length, c);
    const stat = { shape: x.shape.map((d, k) => (k < axis ? d : 1)), elemType: attrInt(c, 'stash_type', DT.FLOAT) };
    return [{ shape: x.shape, elemType: x.elemType }, stat, stat];
  },
  BatchNormalization: (c) => {
    const x = input(c, 0);
    const ch = { shape: [x.shape[1]], elemType: input(c, 3).elemType };
    return [{ shape: x.shape, elemType: x.elemType }, ch, ch, ch, ch];
  },
  Dropout: (c) => { const x = input(c, 0); return [{ shape: x.shape, elemType: x.elemType }, { shape: x.shape, elemType: DT.BOOL }]; },
  Cast: (c) => {
    const x = input(c, 0);
    const to = attr(c, 'to')?.i ?? gap('the "to" attribute is missing');
    return [{ shape: x.shape, elemType: to }];
  },
  CastLike: (c) => { const x = input(c, 0); return [{ shape: x.shape, elemType: input(c, 1).elemType }]; },
  Shape: (c) => {
    const x = input(c, 0);
    const rank = x.shape.length;
    const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + rank : v, 0), rank);
    const dims = x.shape.slice(clamp(attrInt(c, 'start', 0)), clamp(attrInt(c, 'end', rank)));
    return [{ shape: [dims.length], elemType: DT.INT64, data: dims.map(BigInt) }];
  },
  Size: (c) => [{ shape: [], elemType: DT.INT64, data: [BigInt(numel(input(c, 0).shape))] }],
  Gather: (c) => {
    const x = input(c, 0), idx = input(c, 1);
    const axis = normAxis(attrInt(c, 'axis', 0), x.shape.length, c);
    return [{ shape: [...x.shape.slice(0, axis), ...idx.shape, ...x.shape.slice(axis + 1)], elemType: x.elemType }];
  },
  GatherElements: (c) => [{ shape: input(c, 1).shape, elemType: input(c, 0).elemType }],
  GatherND: (c) => {
    const x = input(c, 0), idx = input(c, 1);
    const b = attrInt(c, 'batch_dims', 0);
    const last = idx.shape[idx.shape.length - 1];
    return [{ shape: [...idx.shape.slice(0, -1), ...x.shape.slice(b + last)], elemType: x.elemType }];
  },
  Expand: (c) => {
    const x = input(c, 0);
    const target = constInput(c, 1, 'shape') ?? gap('the shape input is missing');
    return [{ shape: broadcastShapes([x.shape, target]), elemType: x.elemType }];
  },
  Tile: (c) => {
    const x = input(c, 0);
    const reps = constInput(c, 1, 'repeats') ?? gap('repeats are missing');
    return [{ shape: x.shape.map((d, k) => d * reps[k]), elemType: x.elemType }];
  },
  ConstantOfShape: (c) => {
    const shape = constInput(c, 0, 'shape') ?? gap('the shape input is missing');
    return [{ shape: [...shape], elemType: attr(c, 'value')?.t?.dataType ?? DT.FLOAT }];
  },
  Range: (c) => {
    // Range's length needs its values; the evaluator computes it exactly (int64 in bigint).
    const known = [0, 1, 2].map((k) => c.inputs[k]);
    if (!known.every((v) => v?.data)) gap('its start, limit and delta are not all known at import time');
    const [s, l, d] = known.map((v) => Number(v!.data![0]));
    if (d === 0) gap('Range with delta 0');
    return [{ shape: [Math.max(0, Math.ceil((l - s) / d))], elemType: input(c, 0).elemType }];
  },
  Pad: (c) => {
    const x = input(c, 0);
    const rank = x.shape.length;
    const pads = (c.opset >= 11 ? constInput(c, 1, 'pads') : attrInts(c, 'pads')) ?? gap('pads are missing');
    const axes = c.opset >= 18 ? constInput(c, 3, 'axes') : undefined;
    const ax = (axes ?? x.shape.map((_, k) => k)).map((a) => normAxis(a, rank, c));
    const shape = [...x.shape];
    ax.forEach((a, k) => { shape[a] += pads[k] + pads[k + ax.length]; });
    return [{ shape, elemType: x.elemType }];
  },
  ReduceSum: (c) => reduce(c, c.opset >= 13),
  ArgMax: (c) => argReduce(c), ArgMin: (c) => argReduce(c),
  TopK: (c) => {
    const x = input(c, 0);
    const k = c.opset >= 10 ? (constInput(c, 1, 'K') ?? gap('K is missing'))[0] : attrInt(c, 'k', 0);
    const axis = normAxis(attrInt(c, 'axis', -1), x.shape.length, c);
    const shape = [...x.shape]; shape[axis] = k;
    return [{ shape, elemType: x.elemType }, { shape, elemType: DT.INT64 }];
  },
  QuantizeLinear: (c) => {
    const x = input(c, 0);
    const zp = c.inputs[2];
    const elemType = zp?.elemType ?? attr(c, 'output_dtype')?.i ?? DT.UINT8;
    return [{ shape: x.shape, elemType: elemType || DT.UINT8 }];
  },
  DequantizeLinear: (c) => [{ shape: input(c, 0).shape, elemType: attr(c, 'output_dtype')?.i || input(c, 1).elemType }],
  DynamicQuantizeLinear: (c) => [{ shape: input(c, 0).shape, elemType: DT.UINT8 }, { shape: [], elemType: DT.FLOAT }, { shape: [], elemType: DT.UINT8 }],
  LSTM: (c) => rnn(c, 4, true),
  GRU: (c) => rnn(c, 3, false),
  RNN: (c) => rnn(c, 1, false),
  DepthToSpace: (c) => {
    const x = input(c, 0), b = attrInt(c, 'blocksize', 1);
    return [{ shape: [x.shape[0], x.shape[1] / (b * b), x.shape[2] * b, x.shape[3] * b], elemType: x.elemType }];
  },
  SpaceToDepth: (c) => {
    const x = input(c, 0), b = attrInt(c, 'blocksize', 1);
    return [{ shape: [x.shape[0], x.shape[1] * b * b, x.shape[2] / b, x.shape[3] / b], elemType: x.elemType }];
  },
  IsNaN: (c) => [{ shape: input(c, 0).shape, elemType: DT.BOOL }],
  IsInf: (c) => [{ shape: input(c, 0).shape, elemType: DT.BOOL }],
  Einsum: (c) => einsum(c),
  OneHot: (c) => {
    const idx = input(c, 0);
    const depth = constInput(c, 1, 'depth')?.[0] ?? gap('the depth input is missing');
    const rank = idx.shape.length + 1;
    const axis = normAxis(attrInt(c, 'axis', -1), rank);
    const shape = [...idx.shape.slice(0, axis), depth, ...idx.shape.slice(axis)];
    return [{ shape, elemType: input(c, 2).elemType }];
  },
};

/** Einsum: letters bind dimensions; `...` broadcasts; without `->` the output is the letters used once, sorted. */
function einsum(c: InferContext): Value[] {
  const eq = (attr(c, 'equation')?.s ?? gap('the equation attribute is missing')).replace(/\s+/g, '');
  const [lhs, rhs] = eq.split('->');
  const terms = lhs.split(',');
  if (terms.length !== c.inputs.length) gap(`the equation "${eq}" names ${terms.length} operands, the node has ${c.inputs.length}`);
  const dims = new Map<string, number>();
  const count = new Map<string, number>();
  const ellipses: number[][] = [];
  terms.forEach((term, k) => {
    const shape = input(c, k).shape;
    const letters = term.replace('...', '');
    const ellRank = term.includes('...') ? shape.length - letters.length : 0;
    if (ellRank < 0 || (!term.includes('...') && letters.length !== shape.length)) gap(`operand ${k} "${term}" does not match its rank ${shape.length}`);
    const start = term.indexOf('...');
    let axis = 0;
    for (let i = 0; i < term.length; ++i) {
      if (i === start) { ellipses.push(shape.slice(axis, axis + ellRank)); axis += ellRank; i += 2; continue; }
      const l = term[i], d = shape[axis++];
      const known = dims.get(l);
      if (known !== undefined && known !== d && known !== 1 && d !== 1) gap(`"${l}" is ${known} in one operand and ${d} in another`);
      dims.set(l, known === undefined || known === 1 ? d : known);
      count.set(l, (count.get(l) ?? 0) + 1);
    }
  });
  const ell = broadcastShapes(ellipses);
  const out = rhs ?? `${ellipses.length ? '...' : ''}${[...count].filter(([, n]) => n === 1).map(([l]) => l).sort().join('')}`;
  const shape: number[] = [];
  for (let i = 0; i < out.length; ++i) {
    if (out.startsWith('...', i)) { shape.push(...ell); i += 2; continue; }
    shape.push(dims.get(out[i]) ?? gap(`output letter "${out[i]}" appears in no operand`));
  }
  return [{ shape, elemType: input(c, 0).elemType }];
}

function argReduce(c: InferContext): Value[] {
  const x = input(c, 0);
  const axis = normAxis(attrInt(c, 'axis', 0), x.shape.length, c);
  const keep = attrInt(c, 'keepdims', 1) === 1;
  return [{ shape: keep ? x.shape.map((d, k) => (k === axis ? 1 : d)) : x.shape.filter((_, k) => k !== axis), elemType: DT.INT64 }];
}

for (const op of ['GlobalMaxPool', 'GlobalLpPool']) RULES[op] = RULES.GlobalAveragePool;
for (const op of ['ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp', 'ReduceSumSquare']) {
  RULES[op] = (c) => reduce(c, c.opset >= 18);
}
for (const op of UNARY_OPS) {
  RULES[op] = (c) => {
    const x = input(c, 0);
    return [{ shape: x.shape, elemType: x.elemType }];
  };
}
RULES.Identity = (c) => { const x = input(c, 0); return [{ ...x }]; };
for (const op of BINARY_OPS) {
  RULES[op] = (c) => {
    const xs = c.inputs.filter((v): v is Value => !!v);
    const shape = op === 'PRelu' ? xs[0].shape : broadcastShapes(xs.map((v) => v.shape));
    return [{ shape, elemType: xs[0].elemType }];
  };
}
for (const op of COMPARE_OPS) {
  RULES[op] = (c) => {
    const a = input(c, 0), b = input(c, 1);
    const shape = broadcastShapes([a.shape, b.shape]);
    return [{ shape, elemType: DT.BOOL }];
  };
}
for (const op of SAME_SHAPE_OPS) RULES[op] = (c) => [{ shape: input(c, 0).shape, elemType: input(c, 0).elemType }];

/**
 * Operator types (default domain) whose output shapes the importer infers.
 *
 * @group Files
 */
export const INFERRED_OPS: readonly string[] = [...new Set([...Object.keys(RULES), ...Object.keys(OPERATOR_FAMILY_RULES), ...Object.keys(ORT_ONNX_DOMAIN_RULES)])].sort();

/**
 * The shape rule of an operator: the default domain's (ONNX's, then those ONNX Runtime registers in
 * the default domain), ONNX's other domains' (ai.onnx.preview, ai.onnx.preview.training:
 * infer/rule-table.ts), or com.microsoft's (ORT's contrib schemas, then the default domain's for
 * ops both define the same way: Gelu, FastGelu ...).
 */
function ruleFor(domain: string, opType: string): Rule | undefined {
  const own = (table: Record<string, Rule>) => (Object.prototype.hasOwnProperty.call(table, opType) ? table[opType] : undefined);
  if (domain === '' || domain === 'ai.onnx') return own(RULES) ?? own(OPERATOR_FAMILY_RULES) ?? own(ORT_ONNX_DOMAIN_RULES);
  if (ONNX_DOMAIN_RULES.has(domain)) return own(ONNX_DOMAIN_RULES.get(domain)!);
  if (domain === 'com.microsoft') return own(CONTRIB_RULES) ?? own(RULES);
  return undefined;
}

/** Why no rule applies; for another domain, where shapes would come from instead. */
function noRule(node: OnnxNode): string {
  if (node.domain === '' || node.domain === 'ai.onnx') return 'no shape rule for this operator';
  return `no shape rule for operator ${node.opType} of domain "${node.domain}" (ONNX Runtime's contrib schemas document none the importer has; `
    + 'give the output shapes in the file\'s value_info, e.g. from onnxruntime\'s symbolic_shape_infer.py, binding their symbolic dimensions with --input)';
}

/**
 * Infers a node's outputs, or throws InferenceGap (no rule, or a rule that cannot decide). When
 * every input's elements are known, the evaluator (fold/) computes the outputs' elements too.
 */
export function inferNode(c: InferContext): Value[] {
  const rule = ruleFor(c.node.domain, c.node.opType);
  const live = c.inputs.filter((v): v is Value => !!v);
  const known = live.length > 0 && live.every((v) => v.data);
  let out: Value[] | undefined;
  let ruleGap: InferenceGap | undefined;
  try {
    if (!rule) throw new InferenceGap(noRule(c.node));
    out = rule(c);
  } catch (error) {
    if (!(error instanceof InferenceGap) || !known) throw error;
    ruleGap = error;
  }
  if (known) {
    let evaluated: Known[] | undefined;
    try {
      evaluated = evaluateNode(c as { node: OnnxNode; inputs: (Known | undefined)[]; opset: number }, out?.map((v) => v.shape));
    } catch (error) {
      if (error instanceof FoldGap) gap(error.message);
      if (!(error instanceof ValueUnknown)) throw error;
      // The shapes stand (the rule's); the elements are not claimed, and the value says why.
      if (!out) throw ruleGap!;
      for (const v of out) { v.unknown = error.message; if (error.varies) v.varies = true; }
    }
    if (evaluated) {
      evaluated.forEach((v, k) => {
        const ruled = out?.[k];
        // The shape rule and the evaluator are two definitions of one op: a difference is a bug.
        if (ruled && ruled.shape.join(',') !== v.shape.join(',')) {
          throw new Error(`internal: ${c.node.opType} node "${c.node.name}": shape rule gives [${ruled.shape.join(',')}], evaluation [${v.shape.join(',')}]`);
        }
      });
      out = out ? out.map((v, k) => evaluated![k] ?? v) : evaluated;
    }
  }
  if (!out) throw ruleGap!;
  for (const v of out) {
    if (v.shape.some((d) => !Number.isInteger(d) || d < 0)) gap(`inferred an invalid shape [${v.shape.join(',')}]`);
    if (v.data === undefined) delete v.data;
  }
  return out;
}
