import { DTYPES, dtypeCode } from '../formats/dtype.js';
import { TensorplanError, shown } from '../errors.js';
import { ARCH_CODE, FORMAT_OPTION_CODE, OP_CODE, OP_NAMES, USAGE_CODE } from '../abi/c-api-tables.generated.js';
import { RECIPE_WORDS, type RecipeWord, recipeCode } from '../formats/recipe-names.js';
import { defaultArch } from '../formats/tensor-format.js';
import type { GraphDocument, OpAttributeValue } from '../graph/graph-document.js';

/**
 * The ops of op set v1 (docs/op-set.md), in the order of their ABI codes
 * (c_api.h TP_OP_LIST). A graph names one in an op's `op` field; `reshape`
 * and `noop` also mean `view`.
 *
 * @group Files
 */
export const OP_SET_V1 = OP_NAMES;

/**
 * The name of an op of op set v1.
 *
 * @group Files
 */
export type OpName = (typeof OP_SET_V1)[number];

/** The flat encoding of a graph's op semantics for `tp_execute_reference` (c_api.h "execution"). */
export interface EncodedSemantics {
  tensorDtype: Int32Array;
  shapeOffsets: Int32Array;
  shapeDims: Float64Array;
  opCodes: Int32Array;
  attributeOffsets: Int32Array;
  attributes: Float64Array;
}

const QUANTIZE_OPTION_BITS = Object.entries(FORMAT_OPTION_CODE);

/** Attribute names each op accepts, for the error on an unknown key. */
const ACCEPTED: Partial<Record<OpName, string[]>> = {
  fill: ['value'],
  matmul: ['transposeA', 'transposeB'],
  grouped_matmul: ['transposeB', 'groupRows'],
  scale: ['alpha'],
  layernorm: ['epsilon'],
  rmsnorm: ['epsilon'],
  quantize: ['recipe', 'rowwise', 'columnwise', 'arch', 'fp8Dtype', 'amaxEpsilon', 'delayedScale', ...QUANTIZE_OPTION_BITS.map(([k]) => k)],
};
ACCEPTED.dequantize = ACCEPTED.quantize;

function fail(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

/** Encodes one op's attributes in the order of docs/op-set.md. */
function encodeAttributes(op: OpName, attrs: Record<string, OpAttributeValue>, field: string): number[] {
  const accepted = ACCEPTED[op] ?? [];
  for (const key of Object.keys(attrs)) {
    if (!accepted.includes(key)) fail(`${field}.${key}: ${op} takes ${accepted.length ? accepted.join(', ') : 'no attributes'}`);
  }
  const bool = (key: string, fallback: boolean): number => {
    const v = attrs[key] ?? fallback;
    if (typeof v !== 'boolean') fail(`${field}.${key} = ${shown(v)}: expected true or false`);
    return v ? 1 : 0;
  };
  const num = (key: string, fallback?: number): number => {
    const v = attrs[key] ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${field}.${key} = ${shown(v)}: expected a finite number`);
    return v;
  };
  switch (op) {
    case 'fill': return [num('value')];
    case 'matmul': return [bool('transposeA', false), bool('transposeB', false)];
    case 'grouped_matmul': {
      const rows = attrs.groupRows;
      if (!Array.isArray(rows)) fail(`${field}.groupRows = ${shown(rows)}: expected the rows of each group, e.g. [128, 0, 64]`);
      return [bool('transposeB', false), ...rows];
    }
    case 'scale': return [num('alpha')];
    case 'layernorm':
    case 'rmsnorm': return [num('epsilon', 1e-5)];
    case 'quantize':
    case 'dequantize': {
      const recipe = recipeCode(attrs.recipe);
      if (recipe < 0) fail(`${field}.recipe = ${shown(attrs.recipe)}: expected one of ${RECIPE_WORDS.join(', ')}`);
      const arch = attrs.arch ?? defaultArch(attrs.recipe as RecipeWord);
      if (arch !== 'hopper' && arch !== 'blackwell') fail(`${field}.arch = ${shown(arch)}: expected hopper or blackwell`);
      const fp8 = attrs.fp8Dtype ?? 'fp8_e4m3';
      if (fp8 !== 'fp8_e4m3' && fp8 !== 'fp8_e5m2') fail(`${field}.fp8Dtype = ${shown(fp8)}: expected fp8_e4m3 or fp8_e5m2`);
      let bits = 0;
      for (const [key, bit] of QUANTIZE_OPTION_BITS) if (bool(key, false)) bits |= bit;
      const usage = (bool('rowwise', true) ? USAGE_CODE.rowwise : 0) | (bool('columnwise', true) ? USAGE_CODE.columnwise : 0);
      return [recipe, usage, ARCH_CODE[arch], bits,
        dtypeCode(fp8), num('amaxEpsilon', 0), num('delayedScale', 1)];
    }
    default: return [];
  }
}

/** The op-set code of a graph op's `op` string, or an error naming the op. */
export function opCode(op: string, field: string): number {
  const name = op === 'reshape' || op === 'noop' ? 'view' : op;
  const code = typeof name === 'string' && Object.hasOwn(OP_CODE, name) ? OP_CODE[name as OpName] : -1;
  if (code < 0) fail(`${field} = ${shown(op)}: not an op of op set v1 (${OP_SET_V1.join(', ')})`);
  return code;
}

/**
 * Per tensor its dtype code (-1: given in bytes) and its shape as CSR, as the core takes them
 * (tp_execute_reference, tp_graph_in_place).
 */
export function encodeTensorShapes(doc: GraphDocument): Pick<EncodedSemantics, 'tensorDtype' | 'shapeOffsets' | 'shapeDims'> {
  const tensorDtype = new Int32Array(doc.tensors.length);
  const shapeOffsets = new Int32Array(doc.tensors.length + 1);
  const dims: number[] = [];
  doc.tensors.forEach((t, i) => {
    tensorDtype[i] = t.dtype === undefined ? -1 : dtypeCode(t.dtype);
    if (t.dtype !== undefined && tensorDtype[i] < 0) fail(`tensors[${i}].dtype = ${shown(t.dtype)}: expected one of ${DTYPES.join(', ')}`);
    for (const d of t.shape ?? []) dims.push(d);
    shapeOffsets[i + 1] = dims.length;
  });
  return { tensorDtype, shapeOffsets, shapeDims: Float64Array.from(dims) };
}

/** Encodes op codes, attributes, dtypes and shapes of a checked graph. */
export function encodeSemantics(doc: GraphDocument): EncodedSemantics {
  const { tensorDtype, shapeOffsets, shapeDims } = encodeTensorShapes(doc);
  const opCodes = new Int32Array(doc.ops.length);
  const attributeOffsets = new Int32Array(doc.ops.length + 1);
  const attrs: number[] = [];
  doc.ops.forEach((op, i) => {
    opCodes[i] = opCode(op.op, `ops[${i}].op`);
    attrs.push(...encodeAttributes(OP_SET_V1[opCodes[i]], op.attributes ?? {}, `ops[${i}].attributes`));
    attributeOffsets[i + 1] = attrs.length;
  });
  return { tensorDtype, shapeOffsets, shapeDims, opCodes, attributeOffsets, attributes: Float64Array.from(attrs) };
}
