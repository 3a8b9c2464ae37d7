import { TRACE_EVENT_NAME, decodeExecuteReference, encodeExecuteReferenceArgs } from '../abi/c-api.generated.js';
import type { CoreArg, CoreArray, CoreBinding } from '../abi/core-binding.js';
import { TensorplanError, isDetached, shown } from '../errors.js';
import { encodeGraph } from '../graph/encode-graph.js';
import type { GraphDocument } from '../graph/graph-document.js';
import { encodeSemantics } from './op-set.js';
import type { PlanDocument } from '../plan/plan-document.js';
import type { TraceEvent } from '../schedule/trace.js';

/**
 * Bytes of a tensor: a Uint8Array, or any typed array / DataView (its bytes are used as they are).
 *
 * @group Session
 */
export type TensorBytes = Uint8Array | ArrayBufferView;

/**
 * How the reference executor lays out memory.
 *
 * @group Session
 */
export interface ExecuteReferenceOptions {
  /**
   * `'arena'` (default): one buffer of `plan.arenaBytes`, every storage at its
   * planned offset. `'separate'`: one allocation per storage, made at its birth
   * and released at its death, ignoring the offsets (the planner's oracle).
   */
  memory?: 'arena' | 'separate';
  /**
   * Before running, the core checks the placement as `tp.validate` does
   * (storages placed once, aligned, inside the arena, never overlapping
   * while alive) and refuses an invalid plan with `INVALID_ARGUMENT` listing
   * the first diagnostics. `true` skips that check and runs the plan as
   * stated: only for testing that the oracle (`memory: 'separate'`) catches
   * a broken placement. Bounds and sizes are checked all the same.
   */
  skipPlanCheck?: boolean;
}

/**
 * What an execution produced.
 *
 * @group Session
 */
export interface ExecutionResult {
  /** The bytes of every graph output, by tensor name. */
  outputs: Record<string, Uint8Array>;
  /** Allocations and frees per step, as `tp.verifyTrace` takes them. */
  trace: TraceEvent[];
  /** Buffers the executor allocated: 1 for the arena plus one per persistent storage, or one per storage. */
  allocations: number;
  /** Bytes of the arena, or the peak of the separate allocations. */
  peakBytes: number;
}

function fail(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

/** The plan's embedded graph, or `graph` when the plan refers to its file. */
export function planGraph(plan: PlanDocument, graph?: GraphDocument): GraphDocument {
  if (plan === null || typeof plan !== 'object') fail('plan must be a plan document');
  if (graph) return graph;
  if (plan.graph !== null && typeof plan.graph === 'object' && 'format' in plan.graph) return plan.graph;
  return fail(`the plan refers to its graph by path (${shown((plan.graph as { path?: string })?.path)}): pass the graph`);
}

/** Concatenates the given inputs (graph inputs and persistent tensors) for the ABI. */
export function encodeInputs(tensorIndex: Map<string, number>, inputs: Readonly<Record<string, TensorBytes>>) {
  if (inputs === null || typeof inputs !== 'object') fail('inputs must be an object of tensor name -> bytes');
  const names = Object.keys(inputs);
  const tensors = new Int32Array(names.length);
  const offsets = new Float64Array(names.length + 1);
  const pieces: Uint8Array[] = [];
  let total = 0;
  names.forEach((name, k) => {
    const index = tensorIndex.get(name);
    if (index === undefined) fail(`inputs.${name}: the graph has no tensor ${shown(name)}`);
    const value = inputs[name];
    if (!ArrayBuffer.isView(value)) fail(`inputs.${name}: expected a Uint8Array or another typed array`);
    if (isDetached(value)) fail(`inputs.${name} = ${shown(value)}: its buffer is detached (transferred away)`);
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    tensors[k] = index;
    pieces.push(bytes);
    total += bytes.length;
    offsets[k + 1] = total;
  });
  const data = new Uint8Array(total);
  pieces.forEach((p, k) => data.set(p, offsets[k]));
  return { tensors, offsets, data };
}

/** The flat arguments of tp_execute_reference (and the addon's async executors) for a plan and its inputs. */
export function executeArgs(core: CoreBinding, plan: PlanDocument, inputs: Readonly<Record<string, TensorBytes>>, memory: string,
  graph?: GraphDocument, skipPlanCheck = false): { args: CoreArg[]; doc: GraphDocument } {
  const doc = planGraph(plan, graph);
  const encoded = encodeGraph(core, doc);
  const sem = encodeSemantics(encoded.doc);
  if (memory !== 'arena' && memory !== 'separate') fail(`options.memory = ${shown(memory)}: expected "arena" or "separate"`);
  if (!Array.isArray(plan.schedule)) fail('plan.schedule must be an array of op names');
  const order = Int32Array.from(plan.schedule, (name, i) => {
    const index = encoded.opIndex.get(name);
    if (index === undefined) fail(`plan.schedule[${i}] = ${shown(name)}: unknown op`);
    return index;
  });
  const storages = Array.isArray(plan.storages) ? plan.storages : fail('plan.storages must be an array');
  const storageTensor = Int32Array.from(storages, (s, k) => {
    const index = encoded.tensorIndex.get(s?.tensors?.[0]);
    if (index === undefined) fail(`plan.storages[${k}].tensors[0] = ${shown(s?.tensors?.[0])}: unknown tensor`);
    return index;
  });
  const given = encodeInputs(encoded.tensorIndex, inputs);
  // The core checks the values (integers, in the arena); here only that they are numbers, named where not.
  const storageOffset = Float64Array.from(storages, (s, k) => (typeof s.offset === 'number' ? s.offset
    : fail(`plan.storages[${k}].offset = ${shown(s.offset)}: must be an integer number of bytes`)));
  if (typeof plan.arenaBytes !== 'number') fail(`plan.arenaBytes = ${shown(plan.arenaBytes)}: must be an integer number of bytes`);
  // Named as c_api.h names them; the generated encoder puts them in parameter order for the
  // synchronous call and for the addon's async executors alike.
  const args = encodeExecuteReferenceArgs({
    ...encoded.graph,
    order, orderCount: order.length,
    tensorDtype: sem.tensorDtype, tensorDtypeCount: sem.tensorDtype.length,
    shapeOffsets: sem.shapeOffsets, shapeOffsetsCount: sem.shapeOffsets.length,
    shapeDims: sem.shapeDims, shapeDimsCount: sem.shapeDims.length,
    opCodes: sem.opCodes, opCodesCount: sem.opCodes.length,
    attributeOffsets: sem.attributeOffsets, attributeOffsetsCount: sem.attributeOffsets.length,
    attributes: sem.attributes, attributesCount: sem.attributes.length,
    storageTensor, storageOffset, storageCount: storages.length,
    // c_api.h: bit 0 the memory mode, bit 1 skips the plan check.
    arenaBytes: plan.arenaBytes, mode: (memory === 'arena' ? 0 : 1) + (skipPlanCheck ? 2 : 0),
    inputTensors: given.tensors, inputOffsets: given.offsets, inputCount: given.tensors.length,
    inputData: given.data, inputDataLength: given.data.length,
  });
  return { args, doc: encoded.doc };
}

/** Decodes the result arrays of tp_execute_reference (and of the addon's async executors). */
export function decodeExecution(doc: GraphDocument, arrays: ArrayLike<number>[]): ExecutionResult {
  const {
    outputs: data, outputOffsets: offsets, traceSteps: steps, traceTensors: tensors, traceKinds: kinds, stats,
  } = decodeExecuteReference(arrays as CoreArray[]);
  const outputs: Record<string, Uint8Array> = {};
  (doc.outputs ?? []).forEach((name, k) => {
    outputs[name] = Uint8Array.from(data.subarray(offsets[k], offsets[k + 1]));
  });
  return {
    outputs,
    trace: Array.from(steps, (step, k) => ({ step, tensor: doc.tensors[tensors[k]].name, event: TRACE_EVENT_NAME[kinds[k]] ?? 'free' })),
    allocations: stats[0],
    peakBytes: stats[1],
  };
}

/** Runs a plan with the reference executor of the core, synchronously. */
export function executeReference(core: CoreBinding, plan: PlanDocument, inputs: Readonly<Record<string, TensorBytes>>,
  options: ExecuteReferenceOptions = {}, graph?: GraphDocument): ExecutionResult {
  const { args, doc } = executeArgs(core, plan, inputs, options.memory ?? 'arena', graph, options.skipPlanCheck === true);
  return decodeExecution(doc, core.call('tp_execute_reference', args));
}
