import { RECIPE_WORDS } from '../../formats/recipe-names.js';
const count = { type: 'integer', minimum: 1, maximum: 1073741824 };
// The recipe names every API takes (formats/recipe-names.ts), so specs and the CLI cannot drift apart.
const roleRecipe = { enum: [...RECIPE_WORDS] };
const common = {
  name: { type: 'string', minLength: 1, pattern: '^[A-Za-z0-9_-]+$' },
  repeat: { type: 'integer', minimum: 1, maximum: 4096 },
  recompute: { type: 'boolean' },
};
const normalization = { enum: ['layernorm', 'rmsnorm'] };
const activation = { enum: ['gelu', 'relu', 'swiglu', 'geglu'] };
const attention = {
  fused: { type: 'boolean' },
  workspaceBytes: { type: 'integer', minimum: 0, maximum: 9007199254740992 },
};
const moe = {
  experts: count,
  topK: count,
  tokensPerExpert: { type: 'array', items: { type: 'integer', minimum: 0 } },
};

function layer(kind: string, properties: Record<string, unknown>, required: string[] = []) {
  return {
    type: 'object',
    required: ['kind', ...required],
    additionalProperties: false,
    properties: { kind: { const: kind }, ...common, ...properties },
  };
}

/**
 * JSON Schema (draft 2020-12) of layer specs, version 1.
 * `docs/schemas/layers-v1.schema.json` is written from this object (`npm run schemas`).
 *
 * @group Files
 */
export const LAYER_SPEC_SCHEMA_V1 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://tensorplan.dev/schemas/layers-v1.schema.json',
  title: 'tensorplan layer spec, version 1',
  description: 'A TransformerEngine-style model (dimensions, layer stack, recipe, parallelism) that tensorplan turns into one forward+backward training graph.',
  type: 'object',
  required: ['format', 'version', 'model', 'layers'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    format: { const: 'tensorplan.layers' },
    version: { const: 1 },
    name: { type: 'string' },
    description: { type: 'string' },
    model: {
      type: 'object',
      required: ['hidden', 'ffn', 'heads', 'sequence', 'microBatch'],
      additionalProperties: false,
      properties: {
        hidden: count, ffn: count, heads: count, kvHeads: count, headDim: count, sequence: count, microBatch: count,
        dtype: { enum: ['bf16', 'fp16', 'fp32'] },
      },
    },
    recipe: {
      oneOf: [
        { enum: [...roleRecipe.enum, 'fp8_block'] },
        {
          type: 'object', additionalProperties: false,
          properties: { inputs: roleRecipe, weights: roleRecipe, gradients: roleRecipe },
        },
      ],
    },
    arch: { enum: ['hopper', 'blackwell'] },
    parallel: {
      type: 'object', additionalProperties: false,
      properties: { tp: { type: 'integer', minimum: 1, maximum: 1024 }, sequenceParallel: { type: 'boolean' } },
    },
    weightGradients: { enum: ['separate', 'bulk', 'packed'] },
    quantizedWeights: { enum: ['perStep', 'cached', 'primary'] },
    cudnnNorms: { type: 'boolean' },
    weightGradientDtype: { enum: ['bf16', 'fp16', 'fp32'] },
    optimizer: {
      type: 'object', additionalProperties: false,
      properties: { masterWeights: { type: 'boolean' }, statesPerParameter: { type: 'integer', minimum: 0, maximum: 16 } },
    },
    layers: {
      type: 'array', minItems: 1,
      items: {
        type: 'object',
        required: ['kind'],
        discriminator: { propertyName: 'kind' },
        oneOf: [
          layer('linear', { outFeatures: count, parallel: { enum: ['column', 'row', 'none'] }, bias: { type: 'boolean' } }, ['outFeatures']),
          layer('layernormLinear', { outFeatures: count, parallel: { enum: ['column', 'none'] }, normalization, bias: { type: 'boolean' } }, ['outFeatures']),
          layer('layernormMLP', { activation, normalization, ffn: count }),
          layer('attention', { ...attention, normalization }),
          layer('transformer', {
            normalization, activation,
            attention: { type: 'object', additionalProperties: false, properties: attention },
            moe: { type: 'object', additionalProperties: false, required: ['experts', 'topK'], properties: moe },
          }),
          layer('moe', { ...moe, activation, normalization, ffn: count }, ['experts', 'topK']),
          layer('groupedLinear', { groups: count, outFeatures: count, tokensPerGroup: { type: 'array', items: { type: 'integer', minimum: 0 } } }, ['groups', 'outFeatures']),
        ],
      },
    },
  },
} as const;
