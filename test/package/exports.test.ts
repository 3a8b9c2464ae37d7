// The public surface is a contract: these lists name every export, so that
// moving files can never add, drop or rename an export unnoticed. Change a
// list only together with a deliberate API change.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);

const NODE_EXPORTS = [
  'DTYPES', 'DeviceArena', 'GRAPH_SCHEMA_V1', 'GraphBuilder', 'INFERRED_OPS', 'LAYER_SPEC_SCHEMA_V1',
  'LayerSpecBuilder', 'MAX_DRAWN_STORAGES', 'OP_SET_V1', 'PLAN_SCHEMA_V1', 'RECIPES', 'SCHEDULE_METHODS',
  'SCHEMAS', 'TE_BEHAVIOURS', 'Tensorplan', 'TensorplanError', 'VERSION', 'VIEW_OPS', 'applyAlternative',
  'baselineCurves', 'compareLayerSpecs', 'formatMinimallocCsv', 'importOnnx', 'importTorchExport', 'info', 'init', 'loadEchartsSource',
  'parseGraph', 'parseLayerSpec', 'parseMinimallocCsv', 'parsePlan', 'planReportData', 'renderReport',
];

const BROWSER_EXPORTS = [
  'DTYPES', 'DeviceArena', 'GraphBuilder', 'LAYER_SPEC_SCHEMA_V1', 'LayerSpecBuilder', 'OP_SET_V1',
  'RECIPES', 'SCHEDULE_METHODS', 'TE_BEHAVIOURS', 'Tensorplan', 'TensorplanError', 'VERSION', 'applyAlternative',
  'baselineCurves', 'compareLayerSpecs', 'formatMinimallocCsv', 'importTorchExport', 'info', 'init', 'parseGraph', 'parseLayerSpec',
  'parseMinimallocCsv', 'parsePlan', 'planReportData',
];

const TYPE_EXPORTS = [
  'Activation', 'Arch', 'AttentionLayer', 'AttentionSettings', 'BackendChoice', 'BackendName',
  'BackendStatus', 'BaselineFigure', 'BaselineMethod', 'BaselineScheduler', 'BulkEntry', 'BulkLayout', 'BulkTensor',
  'CudaDevice', 'CustomOpDeclaration', 'DType', 'DelayedScalingUpdate', 'DeviceExecutionResult', 'DiagnosticCode', 'ExecuteOptions',
  'ExecuteReferenceOptions', 'ExecutionResult', 'FitNext', 'FitOptions', 'FitProbe', 'FitResult', 'FormatOptions', 'FusionOptions', 'FusionVerdict', 'GivenBuffer',
  'GraphAlias', 'GraphDocument', 'GraphOp', 'GraphTensor', 'GroupAlias', 'GroupedBuffer',
  'GroupedLayout', 'GroupedLinearLayer', 'InPlaceAlias', 'InitOptions', 'InnerBuffer', 'InnerTensor', 'InputValue',
  'LayerBehaviourEntry', 'LayerCommon', 'LayerComparison', 'LayerComparisonRow', 'LayerEntry', 'LayerEntryFields', 'LayerGraph',
  'LayerNormLinearLayer', 'LayerNormMlpLayer', 'LayerOpPhase', 'LayerPeakDelta', 'LayerPeakEntry', 'LayerPlanSummary', 'LayerPlanner',
  'LayerSpec', 'LayerTensorInfo', 'LayerTensorRole', 'LifecycleIssue', 'LinearLayer', 'LivenessResult',
  'MinimallocCsv', 'ModelDims', 'MoeLayer', 'MoeSettings', 'Normalization', 'OnnxImportOptions',
  'OnnxImportResult', 'OnnxSubgraph', 'OpAttributeValue', 'OpName', 'PeakContributor', 'PersistentBreakdown', 'PlaceAlgorithm',
  'PlaceBuffer', 'PlaceOptions', 'PlaceResult', 'PlanContributor', 'PlanDiagnostic', 'PlanDocument', 'PlanJoint',
  'PlanOptions', 'PlanOrderFigures', 'PlanProgress', 'PlanReportOptions', 'PlanStatistics', 'PlanStorage', 'PlanWorkspace', 'QuantizeParams',
  'QuantizedTensor', 'Recipe', 'RecipeSpec', 'RecipeWord', 'ReportAlternative', 'ReportAmount', 'ReportBudget', 'ReportContributor',
  'ReportData', 'ReportGrouping', 'ReportSeries', 'ReportStorage', 'RoleRecipe', 'ScheduleMethod', 'ScheduleOptions', 'ScheduleResult', 'SplitQuantizeEntry',
  'SplitQuantizeLayout', 'StorageLifetime', 'TeBehaviour', 'TeBehaviourId', 'TensorBytes', 'TensorFormat', 'TensorSize', 'TensorSpecBuffers',
  'TensorSpecJson', 'TensorplanErrorCode', 'TensorplanInfo', 'TensorplanWorker', 'TorchImportOptions', 'TorchImportResult',
  'TorchOptimizer', 'TorchStorageCategory', 'TraceEvent', 'TransformerLayerSpec', 'ViewAlias',
  'WasmOptions',
];

/** The names of `export type { ... }` in the bundled declaration file. */
function declaredTypeNames(): string[] {
  const declarations = readFileSync(new URL('dist/index.d.ts', root), 'utf8');
  const match = /^export type \{([^}]*)\};/m.exec(declarations);
  expect(match, 'dist/index.d.ts has an `export type { ... }` line').not.toBeNull();
  return match![1].split(',').map((name) => name.trim()).filter(Boolean).sort();
}

describe('public exports', () => {
  it('dist/index.mjs exports exactly the recorded names', async () => {
    const esm = await import(new URL('dist/index.mjs', root).href);
    expect(Object.keys(esm).sort()).toEqual(NODE_EXPORTS);
  });

  it('dist/index.cjs exports exactly the recorded names', () => {
    const cjs = createRequire(import.meta.url)(new URL('dist/index.cjs', root).pathname);
    expect(Object.keys(cjs).sort()).toEqual(NODE_EXPORTS);
  });

  it('dist/browser.mjs exports exactly the recorded names', async () => {
    const browser = await import(new URL('dist/browser.mjs', root).href);
    expect(Object.keys(browser).sort()).toEqual(BROWSER_EXPORTS);
  });

  it('dist/index.d.ts declares the recorded values and types', () => {
    const declarations = readFileSync(new URL('dist/index.d.ts', root), 'utf8');
    const values = /^export \{([^}]*)\};/m.exec(declarations);
    expect(values, 'dist/index.d.ts has an `export { ... }` line').not.toBeNull();
    expect(values![1].split(',').map((name) => name.trim()).filter(Boolean).sort()).toEqual(NODE_EXPORTS);
    expect(declaredTypeNames()).toEqual(TYPE_EXPORTS);
  });
});
