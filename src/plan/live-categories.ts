// What kind of memory each byte of a plan's arena is: one rule for
// the Chrome trace's "live bytes" counter (src/cli/chrome-trace.ts) and the
// HTML report's stacked timeline (src/plan/plan-report.ts), so both answer
// "what fills the memory" with the same words and the same sums.
import type { LayerGraph } from '../frontends/layers/layer-graph.js';
import type { PlanDocument, PlanStorage } from './plan-document.js';

/** The category of op workspaces (scratch alive during one step). @internal */
export const WORKSPACE_CATEGORY = 'op workspaces';

/** The tensor info tp.layerGraph gives a storage's owner, when the layer graph is well formed. */
function layerInfo(layers: LayerGraph, tensor: string | undefined): { role?: unknown; saved?: unknown } | undefined {
  const tensors = layers.tensors as unknown;
  if (typeof tensor !== 'string' || tensors === null || typeof tensors !== 'object' || !Object.hasOwn(tensors, tensor)) return undefined;
  const info = (tensors as Record<string, unknown>)[tensor];
  return info !== null && typeof info === 'object' ? info as { role?: unknown; saved?: unknown } : undefined;
}

/**
 * The category a storage's bytes count under. For a layer spec: saved for
 * backward, gradients, graph inputs or transients (by the role and the saved
 * flag tp.layerGraph gives the storage's first tensor); for any other graph:
 * graph inputs (no producer) or activations. @internal
 */
export function storageCategory(storage: PlanStorage, layers?: LayerGraph): string {
  if (!layers) return storage.producer === null ? 'graph inputs' : 'activations';
  const info = layerInfo(layers, storage.tensors[0]);
  if (!info) return 'transients';
  if (info.saved === true) return 'saved for backward';
  if (info.role === 'gradient' || info.role === 'quantizedGradient' || info.role === 'weightGradient') return 'gradients';
  if (info.role === 'input') return 'graph inputs';
  return 'transients';
}

/**
 * Live bytes per step split by a key of each storage (plus op workspaces under
 * {@link WORKSPACE_CATEGORY}): the series add up to `plan.statistics.liveBytes`
 * at every step. Graph outputs die at the step count and are clipped to the last step. @internal
 */
export function liveBytesBy(plan: PlanDocument, keyOf: (storage: PlanStorage) => string): Map<string, Float64Array> {
  const steps = plan.schedule.length;
  const series = new Map<string, Float64Array>();
  const get = (key: string): Float64Array => {
    let s = series.get(key);
    if (!s) series.set(key, (s = new Float64Array(steps)));
    return s;
  };
  for (const storage of plan.storages) {
    const s = get(keyOf(storage));
    for (let k = Math.max(0, storage.birth); k <= Math.min(steps - 1, storage.death); k++) s[k] += storage.bytes;
  }
  // Always present (zeros when no op has a workspace), so a trace's counter has the same series for every plan.
  const workspace = get(WORKSPACE_CATEGORY);
  for (const w of plan.workspaces) if (w.step >= 0 && w.step < steps) workspace[w.step] += w.bytes;
  return series;
}

/** Live bytes per step by {@link storageCategory}, workspaces included. @internal */
export function liveBytesByCategory(plan: PlanDocument, layers?: LayerGraph): Map<string, Float64Array> {
  return liveBytesBy(plan, (storage) => storageCategory(storage, layers));
}
