import type { CoreBinding } from './backend/core-binding.js';
import { TensorplanError } from './errors.js';
import { encodeGraph } from './graph/encode-graph.js';
import type { GraphDocument } from './graph/graph-document.js';
import { encodeSemantics } from './op-set.js';
import type { PlanDocument } from './plan/plan-document.js';
import { type ExecutionResult, type TensorBytes, encodeInputs, planGraph } from './execute.js';

/** The addon's CUDA executor entry points (cuda/addon.cpp). */
interface CudaExecutorAddon {
  cuda_execute(...args: unknown[]): Promise<[Uint8Array, Float64Array, Int32Array, Int32Array, Int32Array, Float64Array]>;
  cuda_arena_create(bytes: number): object | string;
  cuda_arena_dispose(handle: object): string;
  cuda_arena_bytes(handle: object): number;
  cuda_plan_device_bytes(...args: unknown[]): number | string;
  cuda_device_allocations(): number;
}

/**
 * One device allocation on the GPU of a `cuda` session, reusable across
 * executions of plans that fit in it. Free it with {@link DeviceArena.dispose};
 * a finalizer frees it too if the handle is garbage collected first, but do
 * not rely on that for GPU memory.
 */
export class DeviceArena {
  /** Bytes of the allocation. */
  readonly bytes: number;
  #handle: object | null;
  #addon: CudaExecutorAddon;

  /** @internal Use `tp.createDeviceArena()`. */
  constructor(addon: unknown, bytes: number) {
    this.#addon = addon as CudaExecutorAddon;
    const handle = this.#addon.cuda_arena_create(bytes);
    if (typeof handle === 'string') throw new TensorplanError('UNSUPPORTED', `cannot allocate a device arena of ${bytes} bytes: ${handle}`);
    this.#handle = handle;
    this.bytes = bytes;
  }

  /** True once disposed. */
  get disposed(): boolean {
    return this.#handle === null;
  }

  /** Frees the device memory now. Throws while an execution is still running in it. */
  dispose(): void {
    if (this.#handle === null) return;
    const reason = this.#addon.cuda_arena_dispose(this.#handle);
    if (reason) throw new TensorplanError('INVALID_ARGUMENT', `cannot dispose the device arena: ${reason}`);
    this.#handle = null;
  }

  /** @internal */
  handle(): object {
    if (this.#handle === null) throw new TensorplanError('INVALID_ARGUMENT', 'the device arena was disposed');
    return this.#handle;
  }
}

/** Options of `tp.execute`. */
export interface ExecuteOptions {
  /**
   * `'cuda'`: the CUDA executor (needs a `cuda` session). `'reference'`: the
   * reference executor of the core. Default: `'cuda'` on a `cuda` session, else `'reference'`.
   */
  executor?: 'cuda' | 'reference';
  /** Run in this device arena (it must hold the plan: `tp.planDeviceBytes(plan)`); default: one allocation made for the call. */
  arena?: DeviceArena;
  /** `'separate'`: one device allocation per storage (cudaMalloc at birth, cudaFree at death), for comparison. */
  memory?: 'arena' | 'separate';
  /** The graph, when the plan refers to it by path. */
  graph?: GraphDocument;
}

/** An execution, with the executor that ran it. */
export interface DeviceExecutionResult extends ExecutionResult {
  executor: 'cuda' | 'reference';
}

/** The flat arguments of tp_execute_reference for a plan and its inputs. */
export function executeArgs(core: CoreBinding, plan: PlanDocument, inputs: Readonly<Record<string, TensorBytes>>, memory: string,
  graph?: GraphDocument) {
  const doc = planGraph(plan, graph);
  const encoded = encodeGraph(core, doc);
  const sem = encodeSemantics(encoded.doc);
  if (memory !== 'arena' && memory !== 'separate') throw new TensorplanError('INVALID_ARGUMENT', `memory = ${JSON.stringify(memory)}: expected "arena" or "separate"`);
  const order = Int32Array.from(plan.schedule ?? [], (name, i) => {
    const index = encoded.opIndex.get(name);
    if (index === undefined) throw new TensorplanError('INVALID_ARGUMENT', `plan.schedule[${i}] = ${JSON.stringify(name)}: unknown op`);
    return index;
  });
  const storages = plan.storages ?? [];
  const storageTensor = Int32Array.from(storages, (s, k) => {
    const index = encoded.tensorIndex.get(s?.tensors?.[0]);
    if (index === undefined) throw new TensorplanError('INVALID_ARGUMENT', `plan.storages[${k}].tensors[0] = ${JSON.stringify(s?.tensors?.[0])}: unknown tensor`);
    return index;
  });
  const given = encodeInputs(encoded.tensorIndex, inputs);
  const args = [
    ...encoded.args, order, order.length,
    sem.tensorDtype, sem.tensorDtype.length, sem.shapeOffsets, sem.shapeOffsets.length, sem.shapeDims, sem.shapeDims.length,
    sem.opCodes, sem.opCodes.length, sem.attributeOffsets, sem.attributeOffsets.length, sem.attributes, sem.attributes.length,
    storageTensor, Float64Array.from(storages, (s) => s.offset), storages.length, plan.arenaBytes, memory === 'arena' ? 0 : 1,
    given.tensors, given.offsets, given.tensors.length, given.data, given.data.length,
  ];
  return { args, doc: encoded.doc };
}

/** Decodes the result arrays of tp_execute_reference / cuda_execute. */
export function decodeExecution(doc: GraphDocument, arrays: ArrayLike<number>[]): ExecutionResult {
  const [data, offsets, steps, tensors, kinds, stats] = arrays;
  const outputs: Record<string, Uint8Array> = {};
  (doc.outputs ?? []).forEach((name, k) => {
    outputs[name] = Uint8Array.from((data as Uint8Array).subarray(offsets[k], offsets[k + 1]));
  });
  return {
    outputs,
    trace: Array.from(steps as Int32Array, (step, k) => ({ step, tensor: doc.tensors[tensors[k]].name, event: kinds[k] === 0 ? 'alloc' as const : 'free' as const })),
    allocations: stats[0],
    peakBytes: stats[1],
  };
}

/** Runs a plan on the GPU of a cuda session; resolves when the device is done. */
export async function executeCuda(core: CoreBinding, addon: unknown, plan: PlanDocument, inputs: Readonly<Record<string, TensorBytes>>,
  options: ExecuteOptions): Promise<ExecutionResult> {
  const { args, doc } = executeArgs(core, plan, inputs, options.memory ?? 'arena', options.graph);
  const cuda = addon as CudaExecutorAddon;
  try {
    const arrays = await cuda.cuda_execute(...args, options.arena ? options.arena.handle() : null);
    return decodeExecution(doc, arrays);
  } catch (error) {
    if (error instanceof TensorplanError) throw error;
    const status = (error as { status?: number }).status;
    throw new TensorplanError(status === 3 ? 'UNSUPPORTED' : 'INVALID_ARGUMENT', (error as Error).message);
  }
}

/** Bytes of the one device allocation a plan needs: its arena, then its persistent tensors. */
export function planDeviceBytes(core: CoreBinding, addon: unknown, plan: PlanDocument, graph?: GraphDocument): number {
  const { args } = executeArgs(core, plan, {}, 'arena', graph);
  const bytes = (addon as CudaExecutorAddon).cuda_plan_device_bytes(...args);
  if (typeof bytes === 'string') throw new TensorplanError('INVALID_ARGUMENT', bytes);
  return bytes;
}

/** cudaMalloc calls the CUDA executor made in this process (tests: one per plan). */
export function deviceAllocationCount(addon: unknown): number {
  return (addon as CudaExecutorAddon).cuda_device_allocations();
}
