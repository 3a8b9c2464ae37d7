import { GRAPH_SCHEMA_V1 } from './graph/graph-schema.js';
import { PLAN_SCHEMA_V1 } from './plan/plan-schema.js';
import { LAYER_SPEC_SCHEMA_V1 } from './frontends/layers/layer-schema.js';

/**
 * Every JSON Schema the SDK validates with, by the file name it has in docs/schemas.
 *
 * @group Files
 */
export const SCHEMAS: Readonly<Record<string, object>> = {
  'graph-v1.schema.json': GRAPH_SCHEMA_V1,
  'plan-v1.schema.json': PLAN_SCHEMA_V1,
  'layers-v1.schema.json': LAYER_SPEC_SCHEMA_V1,
};
