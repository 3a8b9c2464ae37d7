import type { CoreBinding } from '../abi/core-binding.js';
import { TensorplanError, shown } from '../errors.js';
import type { GraphDocument } from '../graph/graph-document.js';
import type { PlanDocument } from '../plan/plan-document.js';
import { type ExecutionResult, type TensorBytes, decodeExecution, executeArgs } from './execute.js';

/**
 * The addon's CUDA executor entry points: generated wrappers of
 * cuda/addon/cuda_execute_abi.h and c_api.h (scripts/gen-native-abi.mjs; the
 * executions are promises run on a worker thread), and the arena handles of
 * cuda/addon/addon.cpp.
 */
interface CudaExecutorAddon {
  cuda_execute(...args: unknown[]): Promise<[Uint8Array, Float64Array, Int32Array, Int32Array, Int32Array, Float64Array]>;
  reference_execute?(...args: unknown[]): Promise<[Uint8Array, Float64Array, Int32Array, Int32Array, Int32Array, Float64Array]>;
  cuda_arena_create(bytes: number): object | string;
  cuda_arena_dispose(handle: object): string;
  cuda_arena_bytes(handle: object): number;
  tp_cuda_plan_device_bytes(...args: unknown[]): [Float64Array] | number;
  tp_last_error(): string;
  cuda_device_allocations(): number;
}

/**
 * One device allocation on the GPU of a `cuda` session, reusable across
 * executions of plans that fit in it. Free it with {@link DeviceArena.dispose};
 * a finalizer frees it too if the handle is garbage collected first, but do
 * not rely on that for GPU memory.
 *
 * @group Session
 */
export class DeviceArena {
  /** Bytes of the allocation. */
  readonly bytes: number;
  #handle: object | null;
  #addon: CudaExecutorAddon;

  /** @internal Use `tp.createDeviceArena()`. */
  constructor(addon: unknown, bytes: number) {
    if (typeof (addon as Partial<CudaExecutorAddon> | null)?.cuda_arena_create !== 'function') {
      throw new TensorplanError('INVALID_ARGUMENT', `new DeviceArena(${shown(addon)}, ...): not a CUDA addon: use tp.createDeviceArena(bytes) on a cuda session`);
    }
    if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0) {
      throw new TensorplanError('INVALID_ARGUMENT', `bytes = ${shown(bytes)}: must be an integer number of bytes >= 0`);
    }
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

/**
 * Options of `tp.execute`.
 *
 * @group Session
 */
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
  /** Skip the core's plan check (only for testing the oracle): see `ExecuteReferenceOptions.skipPlanCheck`. */
  skipPlanCheck?: boolean;
}

/**
 * An execution, with the executor that ran it.
 *
 * @group Session
 */
export interface DeviceExecutionResult extends ExecutionResult {
  executor: 'cuda' | 'reference';
}

/** Runs a plan on the GPU of a cuda session; resolves when the device is done. */
export async function executeCuda(core: CoreBinding, addon: unknown, plan: PlanDocument, inputs: Readonly<Record<string, TensorBytes>>,
  options: ExecuteOptions): Promise<ExecutionResult> {
  const { args, doc } = executeArgs(core, plan, inputs, options.memory ?? 'arena', options.graph, options.skipPlanCheck === true);
  const cuda = addon as CudaExecutorAddon;
  try {
    const arrays = await cuda.cuda_execute(...args, options.arena ? options.arena.handle() : null);
    return decodeExecution(doc, arrays);
  } catch (error) {
    if (error instanceof TensorplanError) throw error;
    const status = (error as { status?: number }).status;
    if (status === undefined) throw new TensorplanError('INVALID_ARGUMENT', (error as Error).message);
    throw TensorplanError.fromStatus(status, (error as Error).message, 'tp_cuda_execute');
  }
}

/** True when the addon can run the reference executor on a worker thread. */
export function hasOffThreadReference(addon: unknown): boolean {
  return typeof (addon as CudaExecutorAddon | undefined)?.reference_execute === 'function';
}

/**
 * The reference executor of the native core on a worker thread: the same
 * results and errors as `executeReference`, without blocking the event loop.
 */
export async function executeReferenceOffThread(core: CoreBinding, addon: unknown, plan: PlanDocument,
  inputs: Readonly<Record<string, TensorBytes>>, options: ExecuteOptions): Promise<ExecutionResult> {
  const { args, doc } = executeArgs(core, plan, inputs, options.memory ?? 'arena', options.graph, options.skipPlanCheck === true);
  try {
    return decodeExecution(doc, await (addon as Required<CudaExecutorAddon>).reference_execute(...args));
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === undefined) throw error;  // a TypeError from the addon: a bug here, not bad input
    throw TensorplanError.fromStatus(status, (error as Error).message, 'tp_execute_reference');
  }
}

/** Bytes of the one device allocation a plan needs: its arena, then its persistent tensors. */
export function planDeviceBytes(core: CoreBinding, addon: unknown, plan: PlanDocument, graph?: GraphDocument): number {
  const { args } = executeArgs(core, plan, {}, 'arena', graph);
  const cuda = addon as CudaExecutorAddon;
  const result = cuda.tp_cuda_plan_device_bytes(...args);
  if (typeof result === 'number') throw new TensorplanError('INVALID_ARGUMENT', cuda.tp_last_error());
  return result[0][0];
}

/** cudaMalloc calls the CUDA executor made in this process (tests: one per plan). */
export function deviceAllocationCount(addon: unknown): number {
  return (addon as CudaExecutorAddon).cuda_device_allocations();
}
