import type { CoreBinding } from './abi/core-binding.js';
import type { BackendName, LoadedBackend } from './backend/registry.js';
import { type BulkLayout, type BulkTensor, bulkLayout } from './formats/bulk-layout.js';
import type { GraphDocument } from './graph/graph-document.js';
import { type PlanOptions, makePlan } from './plan/make-plan.js';
import { type PlaceBuffer, type PlaceOptions, type PlaceResult, place } from './place/place.js';
import type { PlanDocument } from './plan/plan-document.js';
import { type PlanDiagnostic, validatePlanAgainst } from './plan/validate-plan.js';
import { TensorplanError, guarded, optionsObject, shown } from './errors.js';
import { type LayerGraph, layerGraph } from './frontends/layers/layer-graph.js';
import type { LayerSpec } from './frontends/layers/layer-spec.js';
import { type LayerPlanSummary, layerPlanSummary } from './frontends/layers/layer-summary.js';
import { type FitOptions, type FitResult, fitLayerSpec } from './frontends/layers/layer-fit.js';
import type { OnnxImportOptions, OnnxImportResult, importOnnxWith } from './frontends/onnx/onnx-import.js';
import { importTorchExport } from './frontends/torch/torch-import.js';
import type { TorchImportOptions, TorchImportResult } from './frontends/torch/torch-import.js';
import { type ExecuteReferenceOptions, type ExecutionResult, type TensorBytes, executeReference } from './execute/execute.js';
import {
  DeviceArena, type DeviceExecutionResult, type ExecuteOptions, deviceAllocationCount, executeCuda, planDeviceBytes, executeReferenceOffThread, hasOffThreadReference,
} from './execute/cuda-execute.js';
import { type FusionOptions, type FusionVerdict, checkFusion } from './schedule/fusion.js';
import { type LivenessResult, liveness } from './schedule/liveness.js';
import { type ScheduleOptions, type ScheduleResult, schedule } from './schedule/schedule.js';
import { type LifecycleIssue, type TraceEvent, verifyTrace } from './schedule/trace.js';
import { type GroupedLayout, type SplitQuantizeLayout, groupedLayout, splitQuantizeLayout } from './formats/grouped.js';
import {
  type DelayedScalingUpdate, type InnerTensor, type QuantizedTensor, type QuantizeParams,
  delayedScalingUpdate, dequantize, flatten, quantize, unflatten,
} from './formats/quantize.js';
import { swizzleScales } from './formats/swizzle.js';
import type { TensorFormat } from './formats/tensor-format.js';
import {
  type GivenBuffer, type TensorSpecBuffers, type TensorSpecJson,
  checkBuffers, tensorSpecBuffers, tensorSpecFromJson, tensorSpecToJson, updateUsage,
} from './formats/tensor-spec.js';

/**
 * Front ends an entry point lends its sessions. The ONNX importer (protobufjs) ships in the Node
 * entry only, so the session class never imports it: the Node entry passes it in, and the browser
 * bundle stays free of it. Not part of the public API.
 */
export interface SessionFrontEnds {
  importOnnx?: typeof importOnnxWith;
}

/** Sessions whose dispose() ran (a WeakSet: the prototype wrapper below checks it for every method). */
const DISPOSED = new WeakSet<object>();

/**
 * A tensorplan session bound to one backend. Get one from `init()`; every
 * method runs synchronously in the chosen core and returns the same bytes on
 * every backend.
 *
 * @group Session
 */
export class Tensorplan {
  /** The backend this session runs on. */
  readonly backend: BackendName;
  /** Where the core was loaded from. */
  readonly source: string;
  private readonly core: CoreBinding;
  private readonly addon: unknown;

  private readonly frontEnds: SessionFrontEnds;
  private readonly arenas = new Set<DeviceArena>();

  /** @internal Use `init()`. */
  constructor(loaded: LoadedBackend, frontEnds: SessionFrontEnds = {}) {
    const core = (loaded as { core?: { call?: unknown } } | null)?.core;
    if (typeof core?.call !== 'function' || frontEnds === null || typeof frontEnds !== 'object') {
      throw new TensorplanError('INVALID_ARGUMENT', `new Tensorplan(${shown(loaded)}): not a loaded backend: get a session with init()`);
    }
    this.frontEnds = frontEnds;
    this.backend = loaded.name;
    this.source = loaded.source;
    this.core = loaded.core;
    this.addon = loaded.addon;
  }

  /** Version of the loaded core. */
  get coreVersion(): string {
    return this.core.coreVersion;
  }

  /**
   * Lays tensors out in one allocation exactly as TransformerEngine's
   * `bulk_allocate` does.
   *
   * @example
   * ```ts
   * import { init } from 'tensorplan';
   *
   * const tp = await init();
   * const layout = tp.bulkLayout([{ shape: [3], dtype: 'uint8' }, { shape: [2], dtype: 'fp32' }]);
   * // layout.entries[1].offset === 4
   * // layout.usedBytes === 12
   * // layout.allocationBytes === 16
   * ```
   */
  bulkLayout(tensors: readonly BulkTensor[]): BulkLayout {
    return bulkLayout(this.core, tensors);
  }

  /**
   * Chooses the op order with the smallest peak (PLANNING.md §3). The
   * default method, `'ours'`, is never worse than any baseline and proves the
   * optimum on small graphs; every baseline's peak comes back alongside.
   *
   * @example
   * ```ts
   * import { GraphBuilder, init } from 'tensorplan';
   *
   * // Two chains, written interleaved: running them one after the other keeps less alive.
   * const g = new GraphBuilder('two-chains');
   * for (const c of ['a', 'b']) g.input(c, { bytes: 1024 });
   * g.op('a1', 'relu', ['a'], [g.tensor('ta', { bytes: 4096 })]);
   * g.op('b1', 'relu', ['b'], [g.tensor('tb', { bytes: 4096 })]);
   * g.op('a2', 'relu', ['ta'], [g.output(g.tensor('ya', { bytes: 64 }))]);
   * g.op('b2', 'relu', ['tb'], [g.output(g.tensor('yb', { bytes: 64 }))]);
   *
   * const tp = await init();
   * const s = tp.schedule(g.build(), { timeLimitSeconds: 0.5 });
   * // s.order.join(' ') === 'a1 a2 b1 b2'
   * // s.peakBytes === 6144
   * // s.baselines.given.peakBytes === 9216
   * ```
   */
  schedule(graph: GraphDocument, options?: ScheduleOptions): ScheduleResult {
    return schedule(this.core, graph, optionsObject(options, 'options'));
  }

  /** Live bytes per step, the peak, and the storages that make it, under `order` (default: the graph's op order). */
  liveness(graph: GraphDocument, order?: readonly string[]): LivenessResult {
    return liveness(this.core, graph, order);
  }

  /** Accepts or rejects running `ops` as one fused op (peak may not rise; reads limited by `maxReadBytes`). */
  checkFusion(graph: GraphDocument, ops: readonly string[], options?: FusionOptions): FusionVerdict {
    return checkFusion(this.core, graph, ops, optionsObject(options, 'options'));
  }

  /** Compares an executor's allocation/free trace with the plan under `order`; `[]` means it matched. */
  verifyTrace(graph: GraphDocument, order: readonly string[] | undefined, trace: readonly TraceEvent[]): LifecycleIssue[] {
    return verifyTrace(this.core, graph, order, trace);
  }

  /**
   * The inner buffers of a (quantized) tensor format, named and ordered as
   * TransformerEngine flattens them (FORMATS.md §2, §6).
   *
   * @example
   * ```ts
   * import { init } from 'tensorplan';
   *
   * const tp = await init();
   * const { buffers } = tp.tensorSpecBuffers({ shape: [1024, 4096], dtype: 'bf16', recipe: 'mxfp8' });
   * // buffers.map((b) => b.name).join() === '_rowwise_data,_rowwise_scale_inv,_columnwise_data,_columnwise_scale_inv'
   * // buffers[0].bytes === 1024 * 4096
   * // buffers[1].bytes === 1024 * (4096 / 32)
   * ```
   */
  tensorSpecBuffers(format: TensorFormat): TensorSpecBuffers {
    return tensorSpecBuffers(this.core, format);
  }

  /** Applies a usage update with TE's rules ('proto' or 'storage'); returns the new format. */
  updateUsage(format: TensorFormat, usage: { rowwise?: boolean; columnwise?: boolean }, mode: 'proto' | 'storage' = 'proto'): TensorFormat {
    return updateUsage(this.core, format, optionsObject(usage, 'usage'), mode);
  }

  /** Checks buffers handed to an unflatten against a format; throws naming the first mismatch. */
  checkBuffers(format: TensorFormat, buffers: readonly GivenBuffer[]): void {
    checkBuffers(this.core, format, buffers);
  }

  /** TE split_quantize's bulk layout (FORMATS.md §1) of members for one usage. */
  splitQuantizeLayout(members: readonly (readonly number[])[], format: Omit<TensorFormat, 'shape' | 'rowwise' | 'columnwise'>,
    usage: 'rowwise' | 'columnwise'): SplitQuantizeLayout {
    return splitQuantizeLayout(this.core, members, format, usage);
  }

  /** Grouped tensor layout (FORMATS.md §3) with per-member and C++ total-shape scale sizings. */
  groupedLayout(members: readonly (readonly number[])[], format: Omit<TensorFormat, 'shape'>): GroupedLayout {
    return groupedLayout(this.core, members, format);
  }

  /** Reference quantization of raw fp32/bf16/fp16 bytes (FORMATS.md §4). */
  quantize(format: TensorFormat, input: Uint8Array, params?: QuantizeParams): QuantizedTensor {
    return quantize(this.core, format, input, optionsObject(params, 'params'));
  }

  /** Reference dequantization of buffers in flatten order to raw bytes of the logical dtype. */
  dequantize(format: TensorFormat, buffers: readonly Uint8Array[]): Uint8Array {
    return dequantize(this.core, format, buffers);
  }

  /** GEMM swizzle of a scale matrix (FORMATS.md §4.7) or its inverse. */
  swizzleScales(source: Uint8Array, rows: number, cols: number,
    options?: { transpose?: boolean; validRows?: number; validCols?: number; inverse?: boolean }): Uint8Array {
    return swizzleScales(this.core, source, rows, cols, optionsObject(options, 'options'));
  }

  /** Delayed scaling update (FORMATS.md §4.4): rolls the amax history and recomputes scales. */
  delayedScalingUpdate(amaxHistory: readonly number[], historyLen: number, scale: readonly number[],
    options?: { algo?: 'max' | 'most_recent'; fp8Max?: number; margin?: number }): DelayedScalingUpdate {
    return delayedScalingUpdate(this.core, amaxHistory, historyLen, scale, optionsObject(options, 'options'));
  }

  /** The JSON form of a format, with TE's metadata dict (FORMATS.md §6). */
  tensorSpecToJson(format: TensorFormat, extra?: { requiresGrad?: boolean; internal?: boolean }): TensorSpecJson {
    return tensorSpecToJson(this.core, format, optionsObject(extra, 'extra'));
  }

  /** Reads a format back from its JSON form, checking every field. */
  tensorSpecFromJson(json: unknown): TensorFormat {
    return tensorSpecFromJson(this.core, json);
  }

  /** Flattens a quantized tensor into named inner tensors (TE `__tensor_flatten__`). */
  flatten(format: TensorFormat, quantized: QuantizedTensor): Record<string, InnerTensor> {
    return flatten(this.core, format, quantized);
  }

  /** Checks named inner tensors against a format and returns them in flatten order (TE `__tensor_unflatten__`). */
  unflatten(format: TensorFormat, inner: Readonly<Record<string, InnerTensor>>): Uint8Array[] {
    return unflatten(this.core, format, inner);
  }

  /**
   * Plans a graph: the op order with the smallest peak, an offset for every
   * storage in one arena, validated, with the statistics that explain it
   * (PLANNING.md §5). The result is a plan file (format v1) as an object.
   *
   * @example
   * ```ts
   * import { GraphBuilder, init } from 'tensorplan';
   *
   * const g = new GraphBuilder('mlp');
   * const x = g.input('x', { shape: [8, 1024], dtype: 'bf16' });
   * const w = g.persistent('w', { shape: [1024, 1024], dtype: 'bf16' });
   * g.op('mm', 'matmul', [x, w], [g.tensor('h', { shape: [8, 1024], dtype: 'bf16' })]);
   * g.op('act', 'relu', ['h'], [g.output(g.tensor('y', { shape: [8, 1024], dtype: 'bf16' }))]);
   *
   * const tp = await init();
   * const plan = tp.plan(g.build(), { baselines: true, budgetBytes: 80 * 2 ** 30 });
   * // plan.arenaBytes === 32768
   * // plan.statistics.peakContributors.map((c) => c.storage).join() === 'x,h'
   * // plan.statistics.persistentBytes === 1024 * 1024 * 2
   * // plan.statistics.budget.fits === true
   * ```
   */
  plan(graph: GraphDocument, options?: PlanOptions): PlanDocument {
    return makePlan(this.core, this.backend, graph, optionsObject(options, 'options'));
  }

  /**
   * Checks any plan (ours, hand-edited, another tool's) against its graph and
   * returns every violation as a typed diagnostic; `[]` means it is valid.
   * Pass `graph` when the plan refers to its graph by path.
   *
   * @example
   * ```ts
   * import { GraphBuilder, init } from 'tensorplan';
   *
   * const g = new GraphBuilder();
   * g.op('mm', 'matmul', [g.input('x', { bytes: 4096 })], [g.tensor('h', { bytes: 4096 })]);
   * g.op('act', 'relu', ['h'], [g.output(g.tensor('y', { bytes: 4096 }))]);
   * const tp = await init();
   * const plan = tp.plan(g.build());
   * // tp.validate(plan).length === 0
   *
   * // Hand-edited: every storage at offset 0, so x and h overlap while both are alive.
   * const edited = { ...plan, storages: plan.storages.map((s) => ({ ...s, offset: 0 })) };
   * const [first] = tp.validate(edited);
   * // first.code === 'OVERLAP'
   * // first.storages.join() === 'x,h'
   * ```
   */
  validate(plan: PlanDocument, graph?: GraphDocument): PlanDiagnostic[] {
    if (plan === null || typeof plan !== 'object') throw new TensorplanError('INVALID_ARGUMENT', `plan = ${shown(plan)}: must be a plan document`);
    for (const field of ['schedule', 'storages'] as const) {
      if (!Array.isArray(plan[field])) throw new TensorplanError('INVALID_ARGUMENT', `plan.${field} = ${shown(plan[field])}: must be an array`);
    }
    if (plan.graph === null || typeof plan.graph !== 'object') {
      throw new TensorplanError('INVALID_ARGUMENT', `plan.graph = ${shown(plan.graph)}: must be the graph document or { path }`);
    }
    const embedded = 'format' in plan.graph ? plan.graph : undefined;
    const target = graph ?? embedded;
    if (!target) {
      throw new TensorplanError('INVALID_ARGUMENT', `the plan refers to its graph by path (${shown((plan.graph as { path: string }).path)}): pass the graph to validate()`);
    }
    return validatePlanAgainst(this.core, plan, target);
  }

  /**
   * Offsets for buffers with lifetimes [lower, upper) in one arena
   * (PLANNING.md §4): tensorplan's exact anytime solver by default, or a
   * baseline. Every placement returned has passed an independent validator.
   */
  place(buffers: readonly PlaceBuffer[], options?: PlaceOptions): PlaceResult {
    return place(this.core, buffers, optionsObject(options, 'options'));
  }

  /**
   * Turns a layer spec (TE-style Linear, LayerNormLinear, LayerNormMLP,
   * attention, TransformerLayer, MoE; recipes; TP/SP) into one joint
   * forward+backward training graph with every saved tensor, alias and
   * quantized buffer. Plan it with `tp.plan(lg.graph)`.
   *
   * @example
   * ```ts
   * import { LayerSpecBuilder, init } from 'tensorplan';
   *
   * const spec = new LayerSpecBuilder({ hidden: 1024, ffn: 4096, heads: 16, sequence: 2048, microBatch: 1 })
   *   .recipe('mxfp8').transformer({ repeat: 2, activation: 'swiglu', normalization: 'rmsnorm' })
   *   .build();
   * const tp = await init();
   * const lg = tp.layerGraph(spec);
   * const summary = tp.layerPlanSummary(lg, tp.plan(lg.graph));
   * // summary.peakBytes === 302284800
   * // summary.arenaBytes === summary.peakBytes
   * ```
   */
  layerGraph(spec: LayerSpec | unknown): LayerGraph {
    return layerGraph(this.core, spec);
  }

  /** Peak, arena and persistent bytes of a planned layer graph, with what is live at the peak by layer and role. */
  layerPlanSummary(layers: LayerGraph, plan: PlanDocument): LayerPlanSummary {
    return layerPlanSummary(this.core, layers, plan);
  }

  /**
   * The largest integer value of one layer-spec field (`model.microBatch`, `model.sequence`,
   * `parallel.tp`, `layers.0.repeat`, ...) for which the plan fits a device budget: arena +
   * persistent + `reserveBytes` (what the plan does not model, listed in `unmodelled`) within
   * `budgetBytes`. Exponential probes then bisection; values the spec refuses are skipped; the
   * value above the answer is planned to check that it does not fit, and `next` says what is
   * alive at its peak. `value` is null when even `min` does not fit.
   *
   * @example
   * ```ts
   * import { LayerSpecBuilder, init } from 'tensorplan';
   *
   * const spec = new LayerSpecBuilder({ hidden: 1024, ffn: 4096, heads: 16, sequence: 2048, microBatch: 1 })
   *   .recipe('bf16').transformer({ repeat: 2, activation: 'swiglu', normalization: 'rmsnorm' })
   *   .build();
   * const tp = await init();
   * const fit = tp.fit(spec, { vary: 'model.microBatch', budgetBytes: 2 * 2 ** 30 });
   * console.log(fit.value, fit.next?.value);   // 8 9: the largest micro-batch that fits, and the one above it
   * // fit.value === 8
   * // fit.next.value === 9
   * // fit.totalBytes <= fit.budgetBytes === true
   * // fit.next.totalBytes > fit.budgetBytes === true
   * ```
   */
  fit(spec: LayerSpec, options: FitOptions): FitResult {
    return fitLayerSpec(this, spec, options);
  }

  /**
   * Reads an ONNX model (the bytes of a .onnx file) into a graph document, as
   * the free `importOnnx` does; with `inPlace: true` this session's core
   * decides which element-wise ops write into an input that dies there.
   * Node entry only (the browser bundle has no ONNX importer).
   *
   * @example
   * ```ts
   * import { readFileSync } from 'node:fs';
   * import { init } from 'tensorplan';
   *
   * const tp = await init();
   * // model.onnx: Conv -> Reshape -> If (Relu | Sigmoid) -> Gemm, input x [N, 3, 8, 8]
   * const { graph, inPlace } = tp.importOnnx(readFileSync('model.onnx'), { dims: { N: 8 }, inPlace: true });
   * const plan = tp.plan(graph);
   * // graph.ops.map((op) => op.op).join() === 'Conv,Reshape,Relu,Gemm'
   * // inPlace === 1
   * // plan.arenaBytes === 8192
   * ```
   */
  importOnnx(bytes: Uint8Array, options?: OnnxImportOptions): OnnxImportResult {
    if (!this.frontEnds.importOnnx) {
      throw new TensorplanError('UNSUPPORTED', 'importOnnx: the ONNX importer ships in the Node entry only (the browser bundle leaves it out)');
    }
    return this.frontEnds.importOnnx(this.core, bytes, optionsObject(options, 'options'));
  }

  /**
   * Reads a PyTorch program exported with `torch.export` (the bytes of a .pt2 archive) into a
   * graph document, as the free `importTorchExport` does (it needs no core; this method is there
   * so a session imports every front end the same way). Node and browser entries alike:
   * `tp.plan(tp.importTorchExport(readFileSync('model.pt2'), { alignment: 1 }).graph)`.
   */
  importTorchExport(bytes: Uint8Array, options?: TorchImportOptions): TorchImportResult {
    return importTorchExport(bytes, options);
  }

  /**
   * Runs a plan with the reference kernels of op set v1 (docs/op-set.md) in
   * one arena of `plan.arenaBytes`, every storage at its planned offset, and
   * returns the graph outputs and the lifecycle trace (check it with
   * `verifyTrace`). `{ memory: 'separate' }` gives every storage its own
   * allocation instead: the planner's oracle. Pass `graph` when the plan
   * refers to its graph by path.
   */
  executeReference(plan: PlanDocument, inputs: Readonly<Record<string, TensorBytes>>, options?: ExecuteReferenceOptions,
    graph?: GraphDocument): ExecutionResult {
    return executeReference(this.core, plan, inputs, optionsObject(options, 'options'), graph);
  }

  /**
   * Executes a plan and resolves with the graph outputs and the lifecycle
   * trace. On a `cuda` session the CUDA executor runs it on the GPU in one
   * device allocation (or `options.arena`), on a worker thread: the event
   * loop never blocks. Elsewhere (or with `executor: 'reference'`) the
   * reference executor runs it: on a worker thread too on native and cuda
   * sessions, on the calling thread with WASM (run the session in a Worker
   * to keep a page responsive). Naming `executor: 'cuda'` on another backend
   * rejects with the reason.
   */
  async execute(plan: PlanDocument, inputs: Readonly<Record<string, TensorBytes>>, given?: ExecuteOptions): Promise<DeviceExecutionResult> {
    const options: ExecuteOptions = optionsObject(given, 'options');
    const executor = options.executor ?? (this.backend === 'cuda' ? 'cuda' : 'reference');
    if (executor === 'reference') {
      const result = hasOffThreadReference(this.addon)
        ? await executeReferenceOffThread(this.core, this.addon, plan, inputs, options)
        : executeReference(this.core, plan, inputs, { memory: options.memory, skipPlanCheck: options.skipPlanCheck }, options.graph);
      return { ...result, executor };
    }
    if (executor !== 'cuda') throw new TensorplanError('INVALID_ARGUMENT', `executor = ${shown(executor)}: expected "cuda" or "reference"`);
    return { ...(await executeCuda(this.core, this.cudaAddon(), plan, inputs, options)), executor };
  }

  /** Allocates one device arena of `bytes` on the GPU (cuda sessions); free it with `dispose()` (the arena's or the session's). */
  createDeviceArena(bytes: number): DeviceArena {
    const arena = new DeviceArena(this.cudaAddon(), bytes);
    this.arenas.add(arena);
    return arena;
  }

  /** True once {@link Tensorplan.dispose} was called. */
  get disposed(): boolean {
    return DISPOSED.has(this);
  }

  /**
   * Ends the session: frees the device arenas it created that are still held,
   * and makes every later call reject with INVALID_ARGUMENT. The backend itself
   * is shared by the process and stays loaded; the next `init()` returns a new
   * session on it. (A worker session's `dispose()` ends its worker and core.)
   * Calling it again does nothing.
   */
  dispose(): void {
    if (DISPOSED.has(this)) return;
    DISPOSED.add(this);
    for (const arena of this.arenas) if (!arena.disposed) arena.dispose();
    this.arenas.clear();
  }

  /** Bytes of the single device allocation the CUDA executor makes for a plan: its arena, then its persistent tensors. */
  planDeviceBytes(plan: PlanDocument, graph?: GraphDocument): number {
    return planDeviceBytes(this.core, this.cudaAddon(), plan, graph);
  }

  /** cudaMalloc calls the CUDA executor made in this process (cuda sessions). */
  deviceAllocationCount(): number {
    return deviceAllocationCount(this.cudaAddon());
  }

  private cudaAddon(): unknown {
    if (this.backend !== 'cuda' || !this.addon) {
      throw new TensorplanError('UNSUPPORTED', `the CUDA executor needs a cuda session; this one runs on ${this.backend}`);
    }
    return this.addon;
  }
}

// Input nested deeper than the stack gets a TensorplanError naming
// the argument (errors.ts guarded), whatever path inside a method reaches it.
// A disposed session refuses every call but dispose().
for (const name of Object.getOwnPropertyNames(Tensorplan.prototype)) {
  const descriptor = Object.getOwnPropertyDescriptor(Tensorplan.prototype, name);
  if (name === 'constructor' || !descriptor || typeof descriptor.value !== 'function') continue;
  const method = descriptor.value as (...args: unknown[]) => unknown;
  Object.defineProperty(Tensorplan.prototype, name, {
    ...descriptor,
    value: function guardedMethod(this: Tensorplan, ...args: unknown[]): unknown {
      if (name !== 'dispose' && DISPOSED.has(this)) {
        const error = new TensorplanError('INVALID_ARGUMENT', `tp.${name}: the session was disposed (dispose() was called); get a new one with init()`);
        if (name === 'execute') return Promise.reject(error);
        throw error;
      }
      return guarded(`tp.${name}`, args, () => method.apply(this, args));
    },
  });
}
