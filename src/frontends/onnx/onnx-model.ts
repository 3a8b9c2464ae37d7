// Decodes an .onnx file (ModelProto) into plain objects the importer works on.
import type { DType } from '../../formats/dtype.js';
import { modelType } from './onnx-schema.js';
import { isIntegerType } from './fold/elements.js';
import type { Elements } from './fold/elements.js';

/**
 * A tensor's element type as ONNX numbers it (TensorProto.DataType, onnx 1.23.1 onnx/onnx.proto),
 * with what the planner sizes it by: a core dtype, a fixed byte size, or `bits` for types packed
 * several to a byte (ONNX docs/docsgen/source/technical/int4.md and int2.md: N elements take
 * ceil(N * bits / 8) bytes). An entry with none of these (STRING, FLOAT6) cannot be planned.
 */
export const ONNX_DTYPES: Record<number, { name: string; dtype?: DType; bytes?: number; bits?: number }> = {
  0: { name: 'UNDEFINED' },
  1: { name: 'FLOAT', dtype: 'fp32' },
  2: { name: 'UINT8', dtype: 'uint8' },
  3: { name: 'INT8', dtype: 'int8' },
  4: { name: 'UINT16', bytes: 2 },
  5: { name: 'INT16', dtype: 'int16' },
  6: { name: 'INT32', dtype: 'int32' },
  7: { name: 'INT64', dtype: 'int64' },
  8: { name: 'STRING' },
  9: { name: 'BOOL', dtype: 'bool' },
  10: { name: 'FLOAT16', dtype: 'fp16' },
  11: { name: 'DOUBLE', dtype: 'fp64' },
  12: { name: 'UINT32', bytes: 4 },
  13: { name: 'UINT64', bytes: 8 },
  14: { name: 'COMPLEX64', bytes: 8 },
  15: { name: 'COMPLEX128', bytes: 16 },
  16: { name: 'BFLOAT16', dtype: 'bf16' },
  17: { name: 'FLOAT8E4M3FN', dtype: 'fp8_e4m3' },
  18: { name: 'FLOAT8E4M3FNUZ', dtype: 'fp8_e4m3' },
  19: { name: 'FLOAT8E5M2', dtype: 'fp8_e5m2' },
  20: { name: 'FLOAT8E5M2FNUZ', dtype: 'fp8_e5m2' },
  21: { name: 'UINT4', bits: 4 },
  22: { name: 'INT4', bits: 4 },
  23: { name: 'FLOAT4E2M1', dtype: 'fp4_e2m1' },
  24: { name: 'FLOAT8E8M0', bytes: 1 },
  25: { name: 'UINT2', bits: 2 },
  26: { name: 'INT2', bits: 2 },
  27: { name: 'FLOAT6E2M3' },
  28: { name: 'FLOAT6E3M2' },
};

/** An element type by its ONNX name ("INT2"), or "element type N" for a number ONNX does not define. */
export function elemTypeName(t: number): string {
  return ONNX_DTYPES[t]?.name ?? `element type ${t} (not a TensorProto.DataType of onnx 1.23.1)`;
}

/** ONNX data type numbers used by name in the importer. */
export const DT = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, BOOL: 9, FLOAT16: 10, DOUBLE: 11 } as const;

/** One dimension of a declared shape: a number, a symbol (dim_param), or unknown. */
export type OnnxDim = number | string | undefined;

/** A declared value (graph input/output, value_info). */
export interface OnnxValueInfo {
  name: string;
  elemType?: number;
  /** Undefined when the file gives no shape. */
  dims?: OnnxDim[];
  /**
   * Set when the value is not a tensor: its type as ONNX writes it ("seq(tensor(float))",
   * "optional(tensor(int64))", "map(int64,tensor(float))", "sparse_tensor(float)").
   */
  nonTensor?: string;
}

/** A constant tensor (initializer, Constant value, attribute tensor). */
export interface OnnxTensor {
  name: string;
  dims: number[];
  dataType: number;
  /**
   * Element values (bigint for integer and bool types, exact for int64), decoded for numeric
   * tensors of up to MAX_DECODED elements, or MAX_DECODED_INT for int32/int64 (index tables).
   * Never for data stored outside the file (data_location EXTERNAL), which is not opened.
   */
  values?: Elements;
  /** True when the data is stored outside the file (data_location EXTERNAL). */
  external?: boolean;
}

/** One attribute; only the field its type uses is meaningful. */
export interface OnnxAttribute {
  name: string;
  type: number;
  f?: number;
  i?: number;
  s?: string;
  t?: OnnxTensor;
  g?: OnnxGraph;
  floats: number[];
  ints: number[];
  /** `ints` exactly (int64 values beyond 2^53 included), for Constant's value_ints. */
  exactInts: bigint[];
  /** `i` exactly, for Constant's value_int. */
  exactI?: bigint;
}

/** A node (op) of a graph. */
export interface OnnxNode {
  name: string;
  opType: string;
  domain: string;
  inputs: string[];
  outputs: string[];
  attributes: Map<string, OnnxAttribute>;
}

/** A graph (the main graph or an If branch). */
export interface OnnxGraph {
  name: string;
  nodes: OnnxNode[];
  initializers: OnnxTensor[];
  inputs: OnnxValueInfo[];
  outputs: OnnxValueInfo[];
  valueInfo: OnnxValueInfo[];
}

/** A decoded model. */
export interface OnnxModel {
  irVersion: number;
  /** Opset version per domain ('' is the default ONNX domain). */
  opsets: Map<string, number>;
  producer: string;
  graph: OnnxGraph;
}

/**
 * Initializer values are decoded up to this many elements: weights are not needed to plan, and
 * shape-like constants are small.
 */
export const MAX_DECODED = 4096;
/** int32 and int64 initializers (index tables for Gather, masks) are decoded up to this many. */
export const MAX_DECODED_INT = 2 ** 16;

// protobufjs gives int64 as Long objects when the long package is present.
type LongLike = number | { toNumber(): number; toString(): string };
const num = (v: LongLike | null | undefined): number => (v == null ? 0 : typeof v === 'number' ? v : v.toNumber());
/** An int64 field exactly (Long.toNumber would round values beyond 2^53). */
const big = (v: LongLike | null | undefined): bigint => (v == null ? 0n : typeof v === 'number' ? BigInt(v) : BigInt(v.toString()));

/* eslint-disable @typescript-eslint/no-explicit-any */
function decodeRaw(raw: Uint8Array, dataType: number, count: number): Elements | undefined {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const out: Elements = [];
  const read: Record<number, [number, (o: number) => number | bigint]> = {
    1: [4, (o) => view.getFloat32(o, true)],
    2: [1, (o) => view.getUint8(o)],
    3: [1, (o) => view.getInt8(o)],
    5: [2, (o) => view.getInt16(o, true)],
    6: [4, (o) => view.getInt32(o, true)],
    4: [2, (o) => view.getUint16(o, true)],
    7: [8, (o) => view.getBigInt64(o, true)],
    9: [1, (o) => view.getUint8(o)],
    11: [8, (o) => view.getFloat64(o, true)],
    12: [4, (o) => view.getUint32(o, true)],
    13: [8, (o) => view.getBigUint64(o, true)],
  };
  const r = read[dataType];
  if (!r || raw.byteLength < r[0] * count) return undefined;
  const integer = isIntegerType(dataType);
  for (let k = 0; k < count; ++k) {
    const v = r[1](k * r[0]);
    out.push(integer && typeof v === 'number' ? BigInt(v) : v);
  }
  return out;
}

function decodeTensor(t: any): OnnxTensor {
  const dims = (t.dims ?? []).map(num);
  const dataType = t.dataType ?? 0;
  const count = dims.reduce((a: number, b: number) => a * b, 1);
  const external = t.dataLocation === 1;
  const limit = dataType === 6 || dataType === 7 ? MAX_DECODED_INT : MAX_DECODED;
  const integer = isIntegerType(dataType);
  let values: Elements | undefined;
  // FLOAT16 and BFLOAT16 elements are not decoded (bit patterns in int32_data or raw bytes).
  if (count <= limit && !external && dataType !== 10 && dataType !== 16) {
    if (t.rawData && t.rawData.length > 0) values = decodeRaw(t.rawData, dataType, count);
    else if (t.int64Data?.length) values = t.int64Data.map(big);
    else if (t.floatData?.length) values = [...t.floatData];
    else if (t.int32Data?.length) values = integer ? t.int32Data.map((v: number) => BigInt(v)) : undefined;
    else if (t.doubleData?.length) values = [...t.doubleData];
    else if (t.uint64Data?.length) values = t.uint64Data.map((v: LongLike) => BigInt.asUintN(64, big(v)));
    else if (count === 0) values = [];
    if (values && values.length !== count) values = undefined;
  }
  return { name: t.name ?? '', dims, dataType, ...(values ? { values } : {}), ...(external ? { external } : {}) };
}

/** A TypeProto written as ONNX's type strings are (onnx/defs/data_type_utils.cc, ToString): "seq(tensor(float))". */
function typeText(t: any): string {
  const elem = (e: number) => (ONNX_DTYPES[e]?.name ?? String(e)).toLowerCase();
  if (!t) return '?';
  if (t.tensorType) return `tensor(${elem(t.tensorType.elemType ?? 0)})`;
  if (t.sequenceType) return `seq(${typeText(t.sequenceType.elemType)})`;
  if (t.optionalType) return `optional(${typeText(t.optionalType.elemType)})`;
  if (t.mapType) return `map(${elem(t.mapType.keyType ?? 0)},${typeText(t.mapType.valueType)})`;
  if (t.sparseTensorType) return `sparse_tensor(${elem(t.sparseTensorType.elemType ?? 0)})`;
  if (t.opaqueType) return `opaque(${[t.opaqueType.domain, t.opaqueType.name].filter(Boolean).join(',')})`;
  return '?';
}

function decodeValueInfo(v: any): OnnxValueInfo {
  const tensor = v.type?.tensorType;
  const info: OnnxValueInfo = { name: v.name ?? '' };
  if (v.type && !tensor && (v.type.sequenceType || v.type.optionalType || v.type.mapType || v.type.sparseTensorType || v.type.opaqueType)) {
    info.nonTensor = typeText(v.type);
  }
  if (tensor?.elemType) info.elemType = tensor.elemType;
  if (tensor?.shape) {
    info.dims = (tensor.shape.dim ?? []).map((d: any) =>
      Object.prototype.hasOwnProperty.call(d, 'dimValue') ? num(d.dimValue) : d.dimParam ? d.dimParam : undefined);
  }
  return info;
}

function decodeAttribute(a: any): OnnxAttribute {
  const attr: OnnxAttribute = {
    name: a.name ?? '',
    type: a.type ?? 0,
    floats: [...(a.floats ?? [])],
    ints: (a.ints ?? []).map(num),
    exactInts: (a.ints ?? []).map(big),
  };
  if (a.f != null) attr.f = a.f;
  if (a.i != null) { attr.i = num(a.i); attr.exactI = big(a.i); }
  if (a.s != null && a.s.length) attr.s = new TextDecoder().decode(a.s);
  if (a.t) attr.t = decodeTensor(a.t);
  if (a.g) attr.g = decodeGraph(a.g);
  return attr;
}

function decodeGraph(g: any): OnnxGraph {
  return {
    name: g.name ?? '',
    nodes: (g.node ?? []).map((n: any) => ({
      name: n.name ?? '',
      opType: n.opType ?? '',
      domain: n.domain ?? '',
      inputs: [...(n.input ?? [])],
      outputs: [...(n.output ?? [])],
      attributes: new Map((n.attribute ?? []).map((a: any) => [a.name, decodeAttribute(a)])),
    })),
    initializers: (g.initializer ?? []).map(decodeTensor),
    inputs: (g.input ?? []).map(decodeValueInfo),
    outputs: (g.output ?? []).map(decodeValueInfo),
    valueInfo: (g.valueInfo ?? []).map(decodeValueInfo),
  };
}

/** Decodes the bytes of an .onnx file; throws a plain Error on malformed protobuf. */
export function decodeOnnxModel(bytes: Uint8Array): OnnxModel {
  const m: any = modelType().decode(bytes);
  if (!m.graph) throw new Error('not an ONNX model: the file has no graph (ModelProto.graph)');
  const opsets = new Map<string, number>();
  for (const o of m.opsetImport ?? []) opsets.set(o.domain ?? '', num(o.version));
  if (opsets.size === 0) opsets.set('', 1);
  return { irVersion: num(m.irVersion), opsets, producer: m.producerName ?? '', graph: decodeGraph(m.graph) };
}
