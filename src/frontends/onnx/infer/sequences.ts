// Shape rules for sequences and optionals, as far as a memory plan needs them, onnx 1.23.1
// onnx/defs/sequence/defs.cc (SequenceEmpty / SequenceConstruct / SequenceInsert / SequenceErase /
// SequenceAt / SequenceLength / SplitToSequence / ConcatFromSequence-11,
// SequenceMap-17) and onnx/defs/optional/defs.cc (Optional-15, OptionalHasElement /
// OptionalGetElement-18).
//
// A sequence is planned as one buffer holding all its tensors: its value is a 1-D tensor of the
// elements' type with as many elements as its tensors together (so its bytes are theirs), and
// `sequence` keeps each tensor's shape for SequenceAt, ConcatFromSequence and the others. An
// optional is its element (a tensor or a sequence), or an empty tensor when it holds none.
import { DT } from '../onnx-model.js';
import type { OnnxNode } from '../onnx-model.js';
import { attr, attrInt, constInput, gap, input, normAxis, numel } from '../infer-helpers.js';
import type { InferContext, Rule, Value } from '../infer-helpers.js';
import { splitSizes } from '../fold/movement.js';
import { FoldGap } from '../fold/elements.js';

/** A sequence of tensors: `sequence` holds the tensors' shapes and type. */
export interface SequenceValue extends Value {
  sequence: Value[];
}
/** An optional with no element (Optional without input). */
interface EmptyOptional extends Value {
  emptyOptional: true;
}

function sequenceOf(tensors: Value[], elemType: number): SequenceValue {
  const parts = tensors.map((t) => ({ shape: [...t.shape], elemType: t.elemType }));
  return { shape: [parts.reduce((s, t) => s + numel(t.shape), 0)], elemType: parts[0]?.elemType ?? elemType, sequence: parts };
}

function sequenceInput(c: InferContext, k: number): Value[] {
  const v = input(c, k) as Partial<SequenceValue>;
  if (!v.sequence) gap(`input ${k} is not a sequence the importer built (SequenceEmpty, SequenceConstruct, SplitToSequence ...)`);
  return v.sequence!;
}

/** A position input (default `fallback`) as an index into `length` elements (negative counts from the back). */
function position(c: InferContext, k: number, length: number, fallback: number, insert: boolean): number {
  const given = c.inputs[k] ? constInput(c, k, 'position')?.[0] : undefined;
  if (c.inputs[k] && given === undefined) gap('the position is not known at import time');
  const p = given ?? fallback;
  const at = p < 0 ? p + length : p;
  if (at < 0 || at > length || (!insert && at === length)) gap(`position ${p} is out of range for a sequence of ${length}`);
  return at;
}

/** All of `tensors` have one shape (a position that is not known then does not matter). */
const uniform = (tensors: Value[]) => tensors.every((t) => t.shape.join(',') === tensors[0].shape.join(','));

const sequenceEmpty: Rule = (c) => [sequenceOf([], attrInt(c, 'dtype', DT.FLOAT))];

const sequenceConstruct: Rule = (c) => {
  const xs = c.inputs.map((_, k) => input(c, k));
  if (xs.some((x) => x.elemType !== xs[0].elemType)) gap('the tensors of a sequence have one element type');
  return [sequenceOf(xs, xs[0]?.elemType ?? DT.FLOAT)];
};

const sequenceInsert: Rule = (c) => {
  const seq = sequenceInput(c, 0), t = input(c, 1);
  const parts = [...seq];
  if (c.inputs[2] && !c.inputs[2].data && uniform([...seq, t])) parts.push(t);
  else parts.splice(position(c, 2, seq.length, seq.length, true), 0, t);
  return [sequenceOf(parts, t.elemType)];
};

const sequenceErase: Rule = (c) => {
  const seq = sequenceInput(c, 0);
  const parts = [...seq];
  if (seq.length === 0) gap('erasing from an empty sequence');
  if (c.inputs[1] && !c.inputs[1].data && uniform(seq)) parts.pop();
  else parts.splice(position(c, 1, seq.length, -1, false), 1);
  return [sequenceOf(parts, (input(c, 0)).elemType)];
};

const sequenceAt: Rule = (c) => {
  const seq = sequenceInput(c, 0);
  if (seq.length && c.inputs[1] && !c.inputs[1].data && uniform(seq)) return [{ ...seq[0] }];
  return [{ ...seq[position(c, 1, seq.length, 0, false)] }];
};

const sequenceLength: Rule = (c) => [{ shape: [], elemType: DT.INT64, data: [BigInt(sequenceInput(c, 0).length)] }];

/**
 * SplitToSequence: `split` omitted gives one tensor per index of `axis` (squeezed when keepdims is
 * 0, the default 1 keeps it); a scalar split gives pieces of that size (the last one shorter); a
 * 1-D split gives pieces of those sizes.
 */
const splitToSequence: Rule = (c) => {
  const x = input(c, 0);
  const axis = normAxis(attrInt(c, 'axis', 0), x.shape.length);
  const d = x.shape[axis];
  const piece = (n: number) => x.shape.map((s, k) => (k === axis ? n : s));
  if (!c.inputs[1]) {
    const keep = attrInt(c, 'keepdims', 1) === 1;
    const shape = keep ? piece(1) : x.shape.filter((_, k) => k !== axis);
    return [sequenceOf(new Array(d).fill(0).map(() => ({ shape, elemType: x.elemType })), x.elemType)];
  }
  const split = constInput(c, 1, 'split') ?? gap('split is missing');
  let sizes: number[];
  if (c.inputs[1].shape.length === 0) {
    const n = split[0];
    if (n <= 0) gap(`split ${n} is not positive`);
    sizes = new Array(Math.ceil(d / n)).fill(n).map((s, k) => Math.min(s, d - k * n));
  } else {
    try {
      sizes = splitSizes(d, split.length, 13, split);
    } catch (error) {
      if (error instanceof FoldGap) gap(error.message);
      throw error;
    }
  }
  return [sequenceOf(sizes.map((n) => ({ shape: piece(n), elemType: x.elemType })), x.elemType)];
};

/** ConcatFromSequence: the tensors concatenated on `axis`, or stacked on a new axis (new_axis=1). */
const concatFromSequence: Rule = (c) => {
  const seq = sequenceInput(c, 0);
  if (seq.length === 0) gap('concatenating an empty sequence');
  const stack = attrInt(c, 'new_axis', 0) === 1;
  const first = seq[0];
  const rank = first.shape.length + (stack ? 1 : 0);
  const axis = normAxis(attr(c, 'axis')?.i ?? gap('the axis attribute is missing'), rank);
  if (stack) {
    if (!uniform(seq)) gap('stacked tensors differ in shape');
    return [{ shape: [...first.shape.slice(0, axis), seq.length, ...first.shape.slice(axis)], elemType: first.elemType }];
  }
  const shape = [...first.shape];
  shape[axis] = seq.reduce((s, t) => s + t.shape[axis], 0);
  return [{ shape, elemType: first.elemType }];
};

/** A Constant node's value (the importer's own Constant handling, for SequenceMap's body). */
function constantOf(node: OnnxNode): Value {
  const a = [...node.attributes.values()][0] ?? gap(`the body's Constant "${node.outputs[0]}" has no value`);
  if (a.name === 'value' && a.t) return { shape: [...a.t.dims], elemType: a.t.dataType, ...(a.t.values ? { data: a.t.values } : {}) };
  if (a.name === 'value_float') return { shape: [], elemType: DT.FLOAT, data: [a.f ?? 0] };
  if (a.name === 'value_floats') return { shape: [a.floats.length], elemType: DT.FLOAT, data: a.floats };
  if (a.name === 'value_int') return { shape: [], elemType: DT.INT64, data: [a.exactI ?? 0n] };
  if (a.name === 'value_ints') return { shape: [a.exactInts.length], elemType: DT.INT64, data: a.exactInts };
  return gap(`the body's Constant "${node.outputs[0]}" has attribute "${a.name}", which is not supported`);
}

/**
 * SequenceMap: the body runs once per element of input 0; each additional input is the element at
 * the same position (a sequence) or itself (a tensor). Output k is the sequence of the body's
 * output k over the elements. The body's shapes are inferred node by node with `inferNode`
 * (onnx-infer.ts's, given by the rule table: importing it here would make an import cycle).
 */
export const sequenceMap = (inferNode: Rule): Rule => (c) => {
  const seq = sequenceInput(c, 0);
  const body = attr(c, 'body')?.g ?? gap('the body attribute is missing');
  const extra = c.inputs.slice(1).map((v, k) => (v as Partial<SequenceValue> | undefined)?.sequence ?? input(c, k + 1));
  const outs: Value[][] = body.outputs.map(() => []);
  seq.forEach((element, i) => {
    const values = new Map<string, Value>();
    for (const t of body.initializers) values.set(t.name, { shape: [...t.dims], elemType: t.dataType, ...(t.values ? { data: t.values } : {}) });
    body.inputs.forEach((info, k) => {
      const given = k === 0 ? element : extra[k - 1];
      const v = Array.isArray(given) ? given[i] ?? gap(`additional input ${k} is a sequence shorter than input 0`) : given;
      if (!v) gap(`the body has input "${info.name}", which the node does not give`);
      values.set(info.name, v);
    });
    for (const node of body.nodes) {
      if (node.opType === 'Constant') { values.set(node.outputs[0], constantOf(node)); continue; }
      const ins = node.inputs.map((n) => (n === '' ? undefined : values.get(n) ?? gap(`the body reads "${n}", which the body does not define (values from outside it are not read)`)));
      const r = inferNode({ node, inputs: ins, opset: c.opset });
      node.outputs.forEach((o, k) => { if (o) values.set(o, r[k]); });
    }
    body.outputs.forEach((o, k) => outs[k].push(values.get(o.name) ?? gap(`the body's output "${o.name}" is produced by no node`)));
  });
  return outs.map((parts, k) => sequenceOf(parts, body.outputs[k].elemType ?? DT.FLOAT));
};

/** Optional: the element itself, or (no input) an empty tensor. */
const optional: Rule = (c) => {
  const x = c.inputs[0];
  if (x) return [{ ...x, data: undefined }];
  const empty: EmptyOptional = { shape: [0], elemType: DT.FLOAT, emptyOptional: true };
  return [empty];
};

/** OptionalHasElement: a bool scalar, known: false for an omitted input or an empty optional. */
const optionalHasElement: Rule = (c) => {
  const x = c.inputs[0] as Partial<EmptyOptional> | undefined;
  return [{ shape: [], elemType: DT.BOOL, data: [x && !x.emptyOptional ? 1n : 0n] }];
};

/** OptionalGetElement: the element (a tensor input is its own element). */
const optionalGetElement: Rule = (c) => {
  const x = input(c, 0) as Partial<EmptyOptional> & Value;
  if (x.emptyOptional) gap('the optional holds no element');
  return [{ ...x }];
};

export const SEQUENCE_RULES: Record<string, Rule> = {
  SequenceEmpty: sequenceEmpty,
  SequenceConstruct: sequenceConstruct,
  SequenceInsert: sequenceInsert,
  SequenceErase: sequenceErase,
  SequenceAt: sequenceAt,
  SequenceLength: sequenceLength,
  SplitToSequence: splitToSequence,
  ConcatFromSequence: concatFromSequence,
  Optional: optional,
  OptionalHasElement: optionalHasElement,
  OptionalGetElement: optionalGetElement,
};
