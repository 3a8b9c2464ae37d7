/**
 * The browser and worker entry: WASM only. It never mentions the file system
 * or the native addon, so bundlers can take it as it is.
 */
import { BACKEND_PRIORITY, BackendRegistry } from './backend/registry.js';
import { loadWasmBackendBrowser } from './backend/wasm-backend-browser.js';
import { createApi } from './api.js';

const registry = new BackendRegistry();
registry.register('wasm', BACKEND_PRIORITY.wasm, loadWasmBackendBrowser);

const api = createApi(registry);

export const init = api.init;
export const info = api.info;

export { TensorplanError } from './errors.js';
export { Tensorplan } from './tensorplan.js';
export { DTYPES } from './dtype.js';
export { RECIPES } from './formats.js';
export { VERSION } from './version.js';
export { GraphBuilder } from './graph/graph-builder.js';
export { parseGraph } from './graph/parse-graph.js';
export { SCHEDULE_METHODS } from './schedule.js';
export { parsePlan } from './plan/parse-plan.js';
export { planReportData } from './plan/plan-report.js';
export { formatMinimallocCsv, parseMinimallocCsv } from './minimalloc-csv.js';
export { OP_SET_V1 } from './op-set.js';
export { DeviceArena } from './cuda-execute.js';
