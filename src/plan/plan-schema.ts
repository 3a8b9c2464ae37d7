import { GRAPH_SCHEMA_V1 } from '../graph/graph-schema.js';

const nullableName = { type: ['string', 'null'] } as const;
const count = { type: 'integer', minimum: 0, maximum: 9007199254740992 } as const;
const step = { type: 'integer', minimum: -1 } as const;
const orderFigures = {
  type: 'object', required: ['peakBytes', 'arenaBytes'], additionalProperties: false, properties: { peakBytes: count, arenaBytes: count },
} as const;
const byName = { type: 'object', additionalProperties: { type: 'number' } } as const;

/**
 * JSON Schema (draft 2020-12) of plan files, version 1. A later version will
 * read v1 files: `format` and `version` say which one a file is.
 *
 * @group Files
 */
export const PLAN_SCHEMA_V1 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://tensorplan.dev/schemas/plan-v1.schema.json',
  title: 'tensorplan plan, version 1',
  description: 'A graph, an op order, an offset for every storage in one arena, and the statistics that explain them.',
  type: 'object',
  required: ['format', 'version', 'tool', 'graph', 'schedule', 'arenaBytes', 'storages', 'workspaces', 'statistics'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    format: { const: 'tensorplan.plan' },
    version: { const: 1 },
    tool: {
      type: 'object',
      required: ['name', 'version', 'backend'],
      additionalProperties: false,
      properties: { name: { type: 'string' }, version: { type: 'string' }, backend: { type: 'string' } },
    },
    graph: {
      oneOf: [
        { $ref: GRAPH_SCHEMA_V1.$id },
        { type: 'object', required: ['path'], additionalProperties: false, properties: { path: { type: 'string', minLength: 1 } } },
      ],
    },
    schedule: { type: 'array', items: { type: 'string' } },
    arenaBytes: count,
    storages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['tensors', 'offset', 'bytes', 'birth', 'death', 'producer', 'lastUse'],
        additionalProperties: false,
        properties: {
          tensors: { type: 'array', minItems: 1, items: { type: 'string' } },
          offset: { type: 'integer' },
          bytes: count,
          birth: step,
          death: step,
          producer: nullableName,
          lastUse: nullableName,
        },
      },
    },
    workspaces: {
      type: 'array',
      items: {
        type: 'object',
        required: ['op', 'step', 'offset', 'bytes'],
        additionalProperties: false,
        properties: { op: { type: 'string' }, step: step, offset: { type: 'integer' }, bytes: count },
      },
    },
    statistics: {
      type: 'object',
      required: ['peakBytes', 'peakStep', 'peakOp', 'lowerBoundBytes', 'arenaBytes', 'arenaOverLowerBound', 'persistentBytes',
        'liveBytes', 'peakContributors', 'schedule', 'placement', 'timeMs'],
      additionalProperties: false,
      properties: {
        peakBytes: count,
        peakStep: step,
        peakOp: nullableName,
        lowerBoundBytes: count,
        arenaBytes: count,
        arenaOverLowerBound: { type: 'number', minimum: 0 },
        persistentBytes: count,
        externalIOBytes: count,
        liveBytes: { type: 'array', items: count },
        peakContributors: {
          type: 'array',
          items: {
            type: 'object',
            required: ['storage', 'bytes', 'producer', 'lastUse'],
            additionalProperties: false,
            properties: { storage: { type: 'string' }, bytes: count, producer: nullableName, lastUse: nullableName },
          },
        },
        schedule: {
          type: 'object', required: ['method', 'provedOptimal', 'baselines'], additionalProperties: false,
          properties: { method: { type: 'string' }, provedOptimal: { type: 'boolean' }, baselines: byName },
        },
        placement: {
          type: 'object', required: ['method', 'provedOptimal', 'baselines'], additionalProperties: false,
          properties: { method: { type: 'string' }, provedOptimal: { type: 'boolean' }, baselines: byName },
        },
        joint: {
          type: 'object', required: ['candidates', 'order', 'peakOrder', 'chosen'], additionalProperties: false,
          properties: { candidates: { type: 'integer', minimum: 1 }, order: { type: 'string' }, peakOrder: orderFigures, chosen: orderFigures },
        },
        timeMs: {
          type: 'object', required: ['schedule', 'place', 'validate', 'total'], additionalProperties: false,
          properties: { schedule: { type: 'number' }, place: { type: 'number' }, validate: { type: 'number' }, total: { type: 'number' } },
        },
        budget: {
          type: 'object', required: ['budgetBytes', 'fits', 'overByBytes'], additionalProperties: false,
          properties: { budgetBytes: count, fits: { type: 'boolean' }, overByBytes: count },
        },
      },
    },
  },
} as const;
