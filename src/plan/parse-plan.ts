import { TensorplanError, guarded } from '../errors.js';
import { checkJsonData, checkSource } from '../json-data.js';
import { describeSchemaError, schemaErrors } from '../graph/parse-graph.js';
import type { PlanDocument } from './plan-document.js';
import { PLAN_SCHEMA_V1 } from './plan-schema.js';

/**
 * Checks the structure of a plan file (format v1) and returns it typed. What
 * the plan says about memory is checked by {@link Tensorplan.validate}.
 *
 * @param source - names the document in errors (a file name, say)
 *
 * @group Files
 */
export function parsePlan(input: unknown, source = 'plan'): PlanDocument {
  return guarded('parsePlan', [input, source], () => parsePlanChecked(input, source));
}

function parsePlanChecked(input: unknown, source: string): PlanDocument {
  checkJsonData(input, checkSource(source));
  const errors = schemaErrors(PLAN_SCHEMA_V1, input);
  if (errors.length > 0) throw new TensorplanError('INVALID_ARGUMENT', `${source}: ${describeSchemaError(input, errors)}`);
  return input as PlanDocument;
}
