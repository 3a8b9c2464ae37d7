// Builds ONNX models in test code: a small builder over the public onnx.proto
// messages (written out here independently of the importer's schema), encoded
// with protobufjs.
import protobuf from 'protobufjs';

const PROTO = `
syntax = "proto2";
package onnx;
message ModelProto { optional int64 ir_version = 1; repeated OperatorSetIdProto opset_import = 8;
  optional string producer_name = 2; optional GraphProto graph = 7; }
message OperatorSetIdProto { optional string domain = 1; optional int64 version = 2; }
message GraphProto { repeated NodeProto node = 1; optional string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12; repeated ValueInfoProto value_info = 13; }
message NodeProto { repeated string input = 1; repeated string output = 2; optional string name = 3;
  optional string op_type = 4; optional string domain = 7; repeated AttributeProto attribute = 5; }
message AttributeProto { optional string name = 1; optional int32 type = 20; optional float f = 2; optional int64 i = 3;
  optional bytes s = 4; optional TensorProto t = 5; optional GraphProto g = 6; repeated float floats = 7; repeated int64 ints = 8; }
message ValueInfoProto { optional string name = 1; optional TypeProto type = 2; }
message TypeProto { message Tensor { optional int32 elem_type = 1; optional TensorShapeProto shape = 2; }
  message Sequence { optional TypeProto elem_type = 1; } message Optional { optional TypeProto elem_type = 1; }
  oneof value { Tensor tensor_type = 1; Sequence sequence_type = 4; Optional optional_type = 9; } }
message TensorShapeProto { message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1; }
message TensorProto { repeated int64 dims = 1; optional int32 data_type = 2; repeated float float_data = 4 [packed = true];
  repeated int32 int32_data = 5 [packed = true]; repeated int64 int64_data = 7 [packed = true]; optional string name = 8;
  optional bytes raw_data = 9; repeated StringStringEntryProto external_data = 13; optional int32 data_location = 14; }
message StringStringEntryProto { optional string key = 1; optional string value = 2; }
`;
const Model = protobuf.parse(PROTO, { keepCase: true }).root.lookupType('onnx.ModelProto');

/** ONNX element types by name. */
export const T = { FLOAT: 1, UINT8: 2, INT8: 3, UINT16: 4, INT16: 5, INT32: 6, INT64: 7, STRING: 8, BOOL: 9, FLOAT16: 10, DOUBLE: 11, BFLOAT16: 16, FLOAT8E4M3FN: 17, FLOAT8E5M2: 19, COMPLEX64: 14, INT4: 22, INT2: 26, FLOAT6E2M3: 27 };


function tensor(t) {
  const type = t.type ?? (t.ints ? T.INT64 : T.FLOAT);
  const out = { name: t.name ?? '', dims: t.dims, data_type: type };
  if (t.external) {
    // Data stored outside the file (data_location EXTERNAL = 1), as onnx.save_model(..., save_as_external_data=True) writes it.
    out.data_location = 1;
    out.external_data = Object.entries(t.external).map(([key, value]) => ({ key, value: String(value) }));
  } else if (t.raw) out.raw_data = t.raw;
  else if (t.ints && type === T.INT64) out.int64_data = t.ints;
  else if (t.ints) out.int32_data = t.ints;
  else if (t.floats) out.float_data = t.floats;
  return out;
}

/** A value's type: a tensor, or with `kind: 'sequence' | 'optional'` a sequence or optional of that tensor. */
function valueInfo(v) {
  const tensorType = { elem_type: v.type ?? T.FLOAT };
  if (v.shape) tensorType.shape = { dim: v.shape.map((d) => (typeof d === 'number' ? { dim_value: d } : typeof d === 'string' ? { dim_param: d } : {})) };
  if (v.kind === 'sequence') return { name: v.name, type: { sequence_type: { elem_type: { tensor_type: tensorType } } } };
  if (v.kind === 'optional') return { name: v.name, type: { optional_type: { elem_type: { tensor_type: tensorType } } } };
  return { name: v.name, type: { tensor_type: tensorType } };
}

function attribute(name, v) {
  if (typeof v === 'number') return { name, type: 2, i: v };
  if (typeof v === 'string') return { name, type: 3, s: new TextEncoder().encode(v) };
  if (Array.isArray(v)) return { name, type: 7, ints: v };
  if ('floats' in v) return { name, type: 6, floats: v.floats };
  if ('f' in v) return { name, type: 1, f: v.f };
  if ('tensor' in v) return { name, type: 4, t: tensor(v.tensor) };
  return { name, type: 5, g: graph(v.graph) };
}

function graph(g) {
  return {
    name: g.name ?? 'g',
    node: g.nodes.map((n, k) => ({
      name: n.name ?? `${n.op.toLowerCase()}_${k}`, op_type: n.op, input: n.inputs, output: n.outputs,
      ...(n.domain ? { domain: n.domain } : {}),
      attribute: Object.entries(n.attrs ?? {}).map(([name, v]) => attribute(name, v)),
    })),
    initializer: (g.initializers ?? []).map(tensor),
    input: (g.inputs ?? []).map(valueInfo),
    output: g.outputs.map(valueInfo),
    value_info: (g.valueInfo ?? []).map(valueInfo),
  };
}

/** Encodes a model with one graph; opset of the default domain 17 unless given. */
export function onnxModel(g, opset = 17, extraOpsets = {}) {
  const message = Model.fromObject({
    ir_version: 8,
    producer_name: 'tensorplan-tests',
    opset_import: [{ domain: '', version: opset }, ...Object.entries(extraOpsets).map(([domain, version]) => ({ domain, version }))],
    graph: graph(g),
  });
  return Model.encode(message).finish();
}

/** A float weight of the given dims (values not needed for planning). */
export const weight = (name, dims, type = T.FLOAT) => ({ name, dims, type, raw: new Uint8Array(0) });
/** An int64 constant stored as raw little-endian bytes: exact for any bigint (INT64_MAX included). */
export function int64Raw(name, values, dims = [values.length]) {
  const raw = new Uint8Array(8 * values.length);
  const view = new DataView(raw.buffer);
  values.forEach((v, k) => view.setBigInt64(8 * k, BigInt(v), true));
  return { name, dims, type: T.INT64, raw };
}

/** An int64 constant. */
export const ints = (name, values, dims = [values.length]) => ({ name, dims, ints: values });

/** A single-node model: inputs given by shape, one output with no declared shape. */
export function oneNode(op, inputs, opts = {}) {
  const inits = opts.initializers ?? [];
  const names = [...Object.keys(inputs), ...(opts.extraInputs ?? [])];
  return onnxModel({
    nodes: [{ op, inputs: names, outputs: opts.outputs ?? ['y'], attrs: opts.attrs }],
    inputs: Object.entries(inputs).map(([name, shape]) => ({ name, shape, type: opts.types?.[name] ?? T.FLOAT })),
    initializers: inits,
    outputs: (opts.outputs ?? ['y']).filter((o) => o !== '').map((name) => ({ name })),
  }, opts.opset ?? 17);
}
