import { DTYPES } from '../formats/dtype.js';

/**
 * JSON Schema (draft 2020-12) of graph files, version 1. `docs/schemas/graph-v1.schema.json`
 * is written from this object (`npm run schemas`), and a test keeps the two equal.
 *
 * @group Files
 */
export const GRAPH_SCHEMA_V1 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://tensorplan.dev/schemas/graph-v1.schema.json',
  title: 'tensorplan graph, version 1',
  description: 'The tensors and ops of one step of a deep-learning workload, with the aliasing between tensors.',
  type: 'object',
  required: ['format', 'version', 'tensors', 'ops'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    format: { const: 'tensorplan.graph' },
    version: { const: 1 },
    name: { type: 'string' },
    description: { type: 'string' },
    defaultAlignment: { $ref: '#/$defs/alignment' },
    tensors: { type: 'array', items: { $ref: '#/$defs/tensor' } },
    ops: { type: 'array', items: { $ref: '#/$defs/op' } },
    aliases: { type: 'array', items: { $ref: '#/$defs/alias' } },
    inputs: { $ref: '#/$defs/names' },
    outputs: { $ref: '#/$defs/names' },
    persistent: { $ref: '#/$defs/names' },
    externalIO: { $ref: '#/$defs/names' },
  },
  $defs: {
    name: { type: 'string', minLength: 1 },
    names: { type: 'array', items: { $ref: '#/$defs/name' } },
    byteCount: { type: 'integer', minimum: 0, maximum: 9007199254740992 },
    alignment: { type: 'integer', minimum: 1, maximum: 1073741824, description: 'A power of two.' },
    dtype: {
      enum: [...DTYPES],
    },
    tensor: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: {
        name: { $ref: '#/$defs/name' },
        bytes: { $ref: '#/$defs/byteCount' },
        shape: { type: 'array', items: { $ref: '#/$defs/byteCount' } },
        dtype: { $ref: '#/$defs/dtype' },
        alignment: { $ref: '#/$defs/alignment' },
        description: { type: 'string' },
      },
      oneOf: [
        { required: ['bytes'], not: { anyOf: [{ required: ['shape'] }, { required: ['dtype'] }] } },
        { required: ['shape', 'dtype'], not: { required: ['bytes'] } },
      ],
    },
    op: {
      type: 'object',
      required: ['name', 'op', 'inputs', 'outputs'],
      additionalProperties: false,
      properties: {
        name: { $ref: '#/$defs/name' },
        op: { type: 'string' },
        inputs: { $ref: '#/$defs/names' },
        outputs: { $ref: '#/$defs/names' },
        workspaceBytes: { $ref: '#/$defs/byteCount' },
        after: { $ref: '#/$defs/names' },
        attributes: {
          type: 'object',
          description: 'What the executors need to run the op (op set v1, docs/op-set.md), e.g. {"transposeB": true}. The planner ignores it.',
          additionalProperties: {
            anyOf: [{ type: 'number' }, { type: 'boolean' }, { type: 'string' }, { type: 'array', items: { type: 'number' } }],
          },
        },
        description: { type: 'string' },
      },
    },
    alias: {
      type: 'object',
      required: ['kind'],
      discriminator: { propertyName: 'kind' },
      oneOf: [
        {
          type: 'object',
          required: ['kind', 'tensor', 'base'],
          additionalProperties: false,
          properties: { kind: { const: 'view' }, tensor: { $ref: '#/$defs/name' }, base: { $ref: '#/$defs/name' }, offset: { $ref: '#/$defs/byteCount' } },
        },
        {
          type: 'object',
          required: ['kind', 'output', 'input'],
          additionalProperties: false,
          properties: { kind: { const: 'inPlace' }, output: { $ref: '#/$defs/name' }, input: { $ref: '#/$defs/name' } },
        },
        {
          type: 'object',
          required: ['kind', 'members'],
          additionalProperties: false,
          properties: { kind: { const: 'group' }, members: { type: 'array', minItems: 1, items: { $ref: '#/$defs/name' } } },
        },
      ],
    },
  },
} as const;
