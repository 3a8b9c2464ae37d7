/**
 * The browser and worker entry: WASM only. It never mentions the file system
 * or the native addon, so bundlers can take it as it is.
 */
import { BACKEND_PRIORITY, BackendRegistry } from './backend/registry.js';
import { loadWasmBackendBrowser } from './backend/wasm-backend-browser.js';
import { createApi } from './api.js';
import { browserWorkerPort } from './worker/browser-port.js';

const registry = new BackendRegistry();
registry.register('wasm', BACKEND_PRIORITY.wasm, loadWasmBackendBrowser);

// init({ worker: true }) runs the session in dist/browser-worker.mjs, a module Web Worker.
const api = createApi(registry, {}, browserWorkerPort);

export const init = api.init;
export const info = api.info;

export { TensorplanError } from './errors.js';
export { Tensorplan } from './tensorplan.js';
export type { TensorplanWorker } from './worker/worker-session.js';
export { DTYPES } from './formats/dtype.js';
export { RECIPES } from './formats/tensor-format.js';
export { VERSION } from './version.js';
export { GraphBuilder } from './graph/graph-builder.js';
export { parseGraph } from './graph/parse-graph.js';
export { SCHEDULE_METHODS } from './schedule/schedule.js';
export { parsePlan } from './plan/parse-plan.js';
export { baselineCurves, planReportData } from './plan/plan-report.js';
export type { BaselineScheduler, PlanReportOptions } from './plan/plan-report.js';
export { formatMinimallocCsv, parseMinimallocCsv } from './place/minimalloc-csv.js';
export { importTorchExport } from './frontends/torch/torch-import.js';
export type { CustomOpDeclaration, TorchImportOptions, TorchImportResult, TorchStorageCategory } from './frontends/torch/torch-import.js';
export type { TorchOptimizer } from './frontends/torch/optimizer-state.js';
export { parseLayerSpec } from './frontends/layers/layer-spec.js';
export { LAYER_SPEC_SCHEMA_V1 } from './frontends/layers/layer-schema.js';
export { LayerSpecBuilder } from './frontends/layers/layer-builder.js';
export type { LayerEntryFields } from './frontends/layers/layer-builder.js';
export { applyAlternative, compareLayerSpecs } from './frontends/layers/layer-compare.js';
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
export { DeviceArena } from './execute/cuda-execute.js';
