import { GRAPH_SCHEMA_V1 } from './graph/graph-schema.js';

/** Every JSON Schema the SDK validates with, by the file name it has in docs/schemas. */
export const SCHEMAS: Readonly<Record<string, object>> = {
  'graph-v1.schema.json': GRAPH_SCHEMA_V1,
};
