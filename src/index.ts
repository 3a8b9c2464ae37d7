/**
 * tensorplan: plan, validate and execute packed tensor memory for
 * deep-learning workloads. This is the Node entry: it can use the native
 * addon (CPU core, and CUDA where a GPU is present) and falls back to WASM.
 * Importing it loads nothing; backends load on the first `init()`.
 *
 * New here? Start with {@link "Getting started"}: install, `init()`, planning a
 * graph, a layer spec and an ONNX model, and the worker session.
 *
 * @groupDescription Session
 * `init()`, the session it returns (in process or in a worker), backends, and executing plans.
 *
 * @groupDescription Planning
 * Options and results of planning, scheduling, placement, and layer-spec summaries and comparisons.
 *
 * @groupDescription Formats
 * TransformerEngine tensor formats: recipes, dtypes, buffer layouts, quantization.
 *
 * @groupDescription Files
 * The documents tensorplan reads and writes (graph files, layer specs, plans, ONNX models,
 * MiniMalloc CSV, HTML reports), with their builders, parsers and JSON Schemas.
 *
 * @groupDescription Errors
 * `TensorplanError`, thrown by every function, and the diagnostics `validate()` returns.
 *
 * @document ../docs/api-guide/getting-started.md
 * @document ../docs/install.md
 * @document ../docs/cli.md
 * @document ../docs/graph-format.md
 * @document ../docs/plans.md
 * @document ../docs/scheduling.md
 * @document ../docs/placement.md
 * @document ../docs/placement-measurements.md
 * @document ../docs/formats.md
 * @document ../docs/layer-specs.md
 * @document ../docs/onnx.md
 * @document ../docs/pytorch.md
 * @document ../docs/op-set.md
 * @document ../docs/execute-cli.md
 * @document ../docs/worker.md
 * @document ../docs/benchmarks.md
 * @document ../README.md
 * @document ../docs/architecture.md
 * @document ../docs/DEVELOPING.md
 * @packageDocumentation
 */
import { loadCudaBackend, loadNativeBackend } from './backend/native-backend.js';
import { BACKEND_PRIORITY, BackendRegistry } from './backend/registry.js';
import { loadWasmBackendNode } from './backend/wasm-backend-node.js';
import { createApi } from './api.js';
import { importOnnxWith } from './frontends/onnx/onnx-import.js';
import { nodeWorkerPort } from './worker/node-port.js';

const registry = new BackendRegistry();
registry.register('cuda', BACKEND_PRIORITY.cuda, loadCudaBackend);
registry.register('native', BACKEND_PRIORITY.native, loadNativeBackend);
registry.register('wasm', BACKEND_PRIORITY.wasm, loadWasmBackendNode);

// Sessions of the Node entry import ONNX (tp.importOnnx); the browser entry has no importer.
// init({ worker: true }) runs the session in dist/worker.mjs on a worker thread.
const api = createApi(registry, { importOnnx: importOnnxWith }, nodeWorkerPort);

/**
 * Loads a backend and returns a {@link Tensorplan} session on it. With
 * `backend: 'auto'` (the default) the first of cuda, native and wasm that
 * loads is used; a named backend that cannot load rejects with its reason.
 * `worker: true` runs the session in a worker and returns a
 * {@link TensorplanWorker}, whose methods return promises.
 *
 * @example
 * ```ts
 * import { init } from 'tensorplan';
 *
 * const tp = await init();                        // in process: methods answer at once
 * tp.tensorSpecBuffers({ shape: [128, 256], dtype: 'bf16', recipe: 'mxfp8' }).buffers.length;
 *
 * const off = await init({ worker: true });       // off the main thread: the same methods, as promises
 * const buffers = (await off.tensorSpecBuffers({ shape: [128, 256], dtype: 'bf16', recipe: 'mxfp8' })).buffers;
 * await off.dispose();                            // ends the worker
 * // buffers.length === 4
 * ```
 *
 * @function
 * @group Session
 */
export const init = api.init;
/**
 * Reports the backend `init()` would use, every backend's availability and
 * reason, versions and CUDA devices (what `npx tensorplan info` prints).
 *
 * @function
 * @group Session
 */
export const info = api.info;

export { TensorplanError } from './errors.js';
export type { TensorplanErrorCode } from './errors.js';
export { Tensorplan } from './tensorplan.js';
export type { InitOptions, TensorplanInfo } from './api.js';
export type { TensorplanWorker } from './worker/worker-session.js';
export type { BackendChoice, BackendName, BackendStatus } from './backend/registry.js';
export type { CudaDevice } from './backend/native-core.js';
export type { WasmOptions } from './backend/wasm-source.js';
export type { BulkEntry, BulkLayout, BulkTensor } from './formats/bulk-layout.js';
export { RECIPES } from './formats/tensor-format.js';
export type { Arch, FormatOptions, Recipe, RecipeWord, TensorFormat } from './formats/tensor-format.js';
export type { GivenBuffer, InnerBuffer, TensorSpecBuffers, TensorSpecJson } from './formats/tensor-spec.js';
export type { DelayedScalingUpdate, InnerTensor, QuantizedTensor, QuantizeParams } from './formats/quantize.js';
export type { GroupedBuffer, GroupedLayout, SplitQuantizeEntry, SplitQuantizeLayout } from './formats/grouped.js';
export { DTYPES } from './formats/dtype.js';
export type { DType } from './formats/dtype.js';
export { VERSION } from './version.js';
export { renderReport, MAX_DRAWN_STORAGES } from './report/render-report.js';
export { loadEchartsSource } from './report/echarts-source.js';
export type {
  ReportAlternative, ReportAmount, ReportBudget, ReportContributor, ReportData, ReportGrouping, ReportSeries, ReportStorage,
} from './report/report-data.js';
export { GraphBuilder } from './graph/graph-builder.js';
export type { TensorSize } from './graph/graph-builder.js';
export { parseGraph } from './graph/parse-graph.js';
export { GRAPH_SCHEMA_V1 } from './graph/graph-schema.js';
export { SCHEMAS } from './schemas.js';
export type { GraphAlias, GraphDocument, GraphOp, GraphTensor, GroupAlias, InPlaceAlias, ViewAlias } from './graph/graph-document.js';
export { SCHEDULE_METHODS } from './schedule/schedule.js';
export type { BaselineFigure, BaselineMethod, ScheduleMethod, ScheduleOptions, ScheduleResult } from './schedule/schedule.js';
export type { LivenessResult, PeakContributor, StorageLifetime } from './schedule/liveness.js';
export type { FusionOptions, FusionVerdict } from './schedule/fusion.js';
export type { LifecycleIssue, TraceEvent } from './schedule/trace.js';
export { parsePlan } from './plan/parse-plan.js';
export { baselineCurves, planReportData } from './plan/plan-report.js';
export type { BaselineScheduler, PlanReportOptions } from './plan/plan-report.js';
export { PLAN_SCHEMA_V1 } from './plan/plan-schema.js';
export type { PlanOptions, PlanProgress } from './plan/make-plan.js';
export type { PlanContributor, PlanDocument, PlanJoint, PlanOrderFigures, PlanStatistics, PlanStorage, PlanWorkspace } from './plan/plan-document.js';
export type { DiagnosticCode, PlanDiagnostic } from './plan/validate-plan.js';
export { formatMinimallocCsv, parseMinimallocCsv } from './place/minimalloc-csv.js';
export type { MinimallocCsv } from './place/minimalloc-csv.js';
export type { PlaceAlgorithm, PlaceBuffer, PlaceOptions, PlaceResult } from './place/place.js';
export { importOnnx, VIEW_OPS } from './frontends/onnx/onnx-import.js';
export type { OnnxImportOptions, OnnxImportResult } from './frontends/onnx/onnx-import.js';
export type { OnnxSubgraph } from './frontends/onnx/control-flow.js';
export type { InputValue } from './frontends/onnx/input-values.js';
export { INFERRED_OPS } from './frontends/onnx/onnx-infer.js';
export { importTorchExport } from './frontends/torch/torch-import.js';
export type { CustomOpDeclaration, TorchImportOptions, TorchImportResult, TorchStorageCategory } from './frontends/torch/torch-import.js';
export type { TorchOptimizer } from './frontends/torch/optimizer-state.js';
export { parseLayerSpec } from './frontends/layers/layer-spec.js';
export { LAYER_SPEC_SCHEMA_V1 } from './frontends/layers/layer-schema.js';
export { LayerSpecBuilder } from './frontends/layers/layer-builder.js';
export type { LayerEntryFields } from './frontends/layers/layer-builder.js';
export { applyAlternative, compareLayerSpecs } from './frontends/layers/layer-compare.js';
export type { FitNext, FitOptions, FitProbe, FitResult } from './frontends/layers/layer-fit.js';
export type {
  Activation, AttentionLayer, AttentionSettings, GroupedLinearLayer, LayerCommon, LayerEntry, LayerNormLinearLayer, LayerNormMlpLayer,
  LayerSpec, LinearLayer, ModelDims, MoeLayer, MoeSettings, Normalization, RecipeSpec, RoleRecipe, TransformerLayerSpec,
} from './frontends/layers/layer-spec.js';
export type { LayerGraph, LayerOpPhase, LayerTensorInfo, LayerTensorRole } from './frontends/layers/layer-graph.js';
export type { LayerBehaviourEntry, LayerPlanSummary, LayerPeakEntry, PersistentBreakdown } from './frontends/layers/layer-summary.js';
export { TE_BEHAVIOURS } from './frontends/layers/te-behaviours.js';
export type { TeBehaviour, TeBehaviourId } from './frontends/layers/te-behaviours.js';
export type { LayerComparison, LayerComparisonRow, LayerPeakDelta, LayerPlanner } from './frontends/layers/layer-compare.js';
export { OP_SET_V1 } from './execute/op-set.js';
export type { OpName } from './execute/op-set.js';
export type { OpAttributeValue } from './graph/graph-document.js';
export type { ExecuteReferenceOptions, ExecutionResult, TensorBytes } from './execute/execute.js';
export { DeviceArena } from './execute/cuda-execute.js';
export type { DeviceExecutionResult, ExecuteOptions } from './execute/cuda-execute.js';
