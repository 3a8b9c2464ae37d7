import { DIAGNOSTIC_NAME, callPlanValidate } from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { TensorplanError, shown } from '../errors.js';
import { type EncodedGraph, encodeGraph } from '../graph/encode-graph.js';
import type { GraphDocument } from '../graph/graph-document.js';
import type { PlanDocument } from './plan-document.js';

/**
 * What a diagnostic is about (PLANNING.md §6).
 *
 * @group Errors
 */
export type DiagnosticCode =
  | 'GRAPH_INVALID' | 'SCHEDULE_INVALID' | 'STORAGE_UNKNOWN' | 'STORAGE_DUPLICATE' | 'STORAGE_MISSING'
  | 'STORAGE_NOT_IN_ARENA' | 'SIZE_MISMATCH' | 'FREED_WHILE_IN_USE' | 'BORN_TOO_LATE' | 'LIFETIME_MISMATCH'
  | 'MISALIGNED' | 'OUTSIDE_ARENA' | 'OVERLAP' | 'WORKSPACE_MISSING' | 'STATS_MISMATCH';

/** Codes in the core's numbering (c_api.h TP_DIAGNOSTIC_LIST). */
const CODES: { readonly [code: number]: DiagnosticCode | undefined } = DIAGNOSTIC_NAME;

/**
 * One violation found in a plan.
 *
 * @group Errors
 */
export interface PlanDiagnostic {
  code: DiagnosticCode;
  message: string;
  /** Owner tensors of the plan storages involved (by the plan's first tensor name). */
  storages: string[];
  /** Ops involved. */
  ops: string[];
  /** Step involved, or null. */
  step: number | null;
}

const DECODER = new TextDecoder();

/**
 * Checks the types of what validation reads from a plan: a plan
 * from another tool need not carry everything the plan schema asks for, but
 * what is read must be there, and a wrong one is named with its path.
 */
function checkPlanFields(plan: PlanDocument): void {
  const bad = (path: string, value: unknown, rule: string): never => {
    throw new TensorplanError('INVALID_ARGUMENT', `plan.${path} = ${shown(value)}: must be ${rule}`);
  };
  const list = (path: string, value: unknown): unknown[] => (Array.isArray(value) ? value : bad(path, value, 'an array'));
  const record = (path: string, value: unknown): Record<string, unknown> =>
    (value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : bad(path, value, 'an object'));
  const number = (path: string, value: unknown) => typeof value === 'number' || bad(path, value, 'a number');
  const integer = (path: string, value: unknown) => Number.isSafeInteger(value) || bad(path, value, 'an integer');
  Array.from(list('schedule', plan.schedule)).forEach((name, i) => typeof name === 'string' || bad(`schedule[${i}]`, name, 'an op name'));
  Array.from(list('storages', plan.storages)).forEach((item, k) => {
    const s = record(`storages[${k}]`, item);
    // A name the graph does not have becomes the core's diagnostic; only the list must be there.
    list(`storages[${k}].tensors`, s.tensors);
    for (const key of ['offset', 'bytes'] as const) number(`storages[${k}].${key}`, s[key]);
    for (const key of ['birth', 'death'] as const) integer(`storages[${k}].${key}`, s[key]);
  });
  Array.from(list('workspaces', plan.workspaces)).forEach((item, k) => {
    const w = record(`workspaces[${k}]`, item);
    if (typeof w.op !== 'string') bad(`workspaces[${k}].op`, w.op, 'an op name');
    number(`workspaces[${k}].offset`, w.offset);
  });
  number('arenaBytes', plan.arenaBytes);
  const statistics = record('statistics', plan.statistics);
  for (const key of ['peakBytes', 'lowerBoundBytes'] as const) number(`statistics.${key}`, statistics[key]);
}

/** Checks `plan` against `graph` in the core; `[]` means the plan is valid. */
export function validatePlanAgainst(core: CoreBinding, plan: PlanDocument, graph: GraphDocument, encoded?: EncodedGraph): PlanDiagnostic[] {
  checkPlanFields(plan);
  let enc: EncodedGraph;
  try {
    enc = encoded ?? encodeGraph(core, graph);
  } catch (error) {
    if (error instanceof TensorplanError && error.code === 'INVALID_ARGUMENT') {
      return [{ code: 'GRAPH_INVALID', message: error.message, storages: [], ops: [], step: null }];
    }
    throw error;
  }
  // Names the graph does not have cannot be encoded: they are reported here,
  // in the same form as the core's diagnostics.
  const unknownOps = plan.schedule.map((name, i) => [name, i] as const).filter(([name]) => !enc.opIndex.has(name));
  if (unknownOps.length > 0) {
    return unknownOps.map(([name, i]) => ({
      code: 'SCHEDULE_INVALID' as const, message: `schedule[${i}] = ${shown(name)}: the graph has no such op`,
      storages: [], ops: [], step: i,
    }));
  }
  const order = Int32Array.from(plan.schedule, (name) => enc.opIndex.get(name)!);
  const storages = plan.storages;
  const tensorOf = Int32Array.from(storages, (s) => enc.tensorIndex.get(s.tensors[0]) ?? -1);
  const workspaceOffsets = new Float64Array(enc.doc.ops.length).fill(-1);
  for (const w of plan.workspaces) {
    const op = enc.opIndex.get(w.op);
    if (op !== undefined) workspaceOffsets[op] = w.offset;
  }
  const stated = Float64Array.from([plan.arenaBytes, plan.statistics.peakBytes, plan.statistics.lowerBoundBytes]);
  const { code: codes, storage, otherStorage: other, op: ops, step: steps, messages, messageOffsets: offsets } = callPlanValidate(core, {
    ...enc.graph, order, orderCount: order.length, storageTensor: tensorOf,
    storageOffset: Float64Array.from(storages, (s) => s.offset), storageBytes: Float64Array.from(storages, (s) => s.bytes),
    storageBirth: Int32Array.from(storages, (s) => s.birth), storageDeath: Int32Array.from(storages, (s) => s.death),
    storageCount: storages.length, workspaceOffset: workspaceOffsets, workspaceCount: workspaceOffsets.length, stated,
    statedCount: stated.length,
  });
  const storageName = (k: number) => storages[k]?.tensors[0] ?? `storage ${k}`;
  return Array.from(codes, (code, i) => ({
    code: CODES[code] ?? 'GRAPH_INVALID',
    message: DECODER.decode(messages.subarray(offsets[i], offsets[i + 1])),
    storages: [storage[i], other[i]].filter((k) => k >= 0).map(storageName),
    ops: ops[i] >= 0 ? [enc.doc.ops[ops[i]].name] : [],
    step: steps[i] >= 0 ? steps[i] : null,
  }));
}
