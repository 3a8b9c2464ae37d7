// The subset of the ONNX protobuf schema (onnx.proto, IR version 10) the importer
// reads, as protobufjs reflection JSON. Field numbers follow the public standard;
// only the fields used here are listed (unknown fields are skipped on decode).
import protobuf from 'protobufjs/light.js';

const packed = { packed: true };

/** Reflection JSON of the ONNX messages used by the importer (package `onnx`). */
export const ONNX_SCHEMA_JSON = {
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            irVersion: { type: 'int64', id: 1 },
            opsetImport: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
            producerName: { type: 'string', id: 2 },
            producerVersion: { type: 'string', id: 3 },
            domain: { type: 'string', id: 4 },
            modelVersion: { type: 'int64', id: 5 },
            docString: { type: 'string', id: 6 },
            graph: { type: 'GraphProto', id: 7 },
          },
        },
        OperatorSetIdProto: {
          fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } },
        },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            name: { type: 'string', id: 2 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            docString: { type: 'string', id: 10 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
            output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
            valueInfo: { rule: 'repeated', type: 'ValueInfoProto', id: 13 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            name: { type: 'string', id: 3 },
            opType: { type: 'string', id: 4 },
            domain: { type: 'string', id: 7 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
            docString: { type: 'string', id: 6 },
          },
        },
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            refAttrName: { type: 'string', id: 21 },
            docString: { type: 'string', id: 13 },
            type: { type: 'int32', id: 20 },
            f: { type: 'float', id: 2 },
            i: { type: 'int64', id: 3 },
            s: { type: 'bytes', id: 4 },
            t: { type: 'TensorProto', id: 5 },
            g: { type: 'GraphProto', id: 6 },
            floats: { rule: 'repeated', type: 'float', id: 7 },
            ints: { rule: 'repeated', type: 'int64', id: 8 },
            strings: { rule: 'repeated', type: 'bytes', id: 9 },
            tensors: { rule: 'repeated', type: 'TensorProto', id: 10 },
            graphs: { rule: 'repeated', type: 'GraphProto', id: 11 },
          },
        },
        ValueInfoProto: {
          fields: {
            name: { type: 'string', id: 1 },
            type: { type: 'TypeProto', id: 2 },
            docString: { type: 'string', id: 3 },
          },
        },
        // TypeProto's value (onnx 1.23.1 onnx/onnx.proto): the importer plans tensors; the other
        // kinds are decoded so that a message can name them.
        TypeProto: {
          oneofs: { value: { oneof: ['tensorType', 'sequenceType', 'mapType', 'opaqueType', 'sparseTensorType', 'optionalType'] } },
          fields: {
            tensorType: { type: 'TypeTensor', id: 1 },
            sequenceType: { type: 'TypeSequence', id: 4 },
            mapType: { type: 'TypeMap', id: 5 },
            opaqueType: { type: 'TypeOpaque', id: 7 },
            sparseTensorType: { type: 'TypeTensor', id: 8 },
            optionalType: { type: 'TypeSequence', id: 9 },
            denotation: { type: 'string', id: 6 },
          },
        },
        TypeTensor: {
          fields: { elemType: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } },
        },
        // TypeProto.Sequence and TypeProto.Optional: one field, elem_type = 1.
        TypeSequence: {
          fields: { elemType: { type: 'TypeProto', id: 1 } },
        },
        TypeMap: {
          fields: { keyType: { type: 'int32', id: 1 }, valueType: { type: 'TypeProto', id: 2 } },
        },
        TypeOpaque: {
          fields: { domain: { type: 'string', id: 1 }, name: { type: 'string', id: 2 } },
        },
        TensorShapeProto: {
          fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } },
        },
        Dimension: {
          oneofs: { value: { oneof: ['dimValue', 'dimParam'] } },
          fields: {
            dimValue: { type: 'int64', id: 1 },
            dimParam: { type: 'string', id: 2 },
            denotation: { type: 'string', id: 3 },
          },
        },
        StringStringEntryProto: {
          fields: { key: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1 },
            dataType: { type: 'int32', id: 2 },
            floatData: { rule: 'repeated', type: 'float', id: 4, options: packed },
            int32Data: { rule: 'repeated', type: 'int32', id: 5, options: packed },
            stringData: { rule: 'repeated', type: 'bytes', id: 6 },
            int64Data: { rule: 'repeated', type: 'int64', id: 7, options: packed },
            name: { type: 'string', id: 8 },
            docString: { type: 'string', id: 12 },
            rawData: { type: 'bytes', id: 9 },
            externalData: { rule: 'repeated', type: 'StringStringEntryProto', id: 13 },
            dataLocation: { type: 'int32', id: 14 },
            doubleData: { rule: 'repeated', type: 'double', id: 10, options: packed },
            uint64Data: { rule: 'repeated', type: 'uint64', id: 11, options: packed },
          },
        },
      },
    },
  },
};

let root: protobuf.Root | undefined;

/** The protobufjs root holding the ONNX messages (built once). */
export function onnxRoot(): protobuf.Root {
  root ??= protobuf.Root.fromJSON(ONNX_SCHEMA_JSON as protobuf.INamespace);
  return root;
}

/** The `onnx.ModelProto` message type. */
export function modelType(): protobuf.Type {
  return onnxRoot().lookupType('onnx.ModelProto');
}
