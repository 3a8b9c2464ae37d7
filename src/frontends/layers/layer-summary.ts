import type { CoreBinding } from '../../abi/core-binding.js';
import { TensorplanError, shown } from '../../errors.js';
import { parseGraph } from '../../graph/parse-graph.js';
import { parsePlan } from '../../plan/parse-plan.js';
import { bulkLayout } from '../../formats/bulk-layout.js';
import type { PlanDocument } from '../../plan/plan-document.js';
import type { LayerGraph, LayerTensorRole } from './layer-graph.js';

/** Bytes live at the peak for one layer and role. */
export interface LayerPeakEntry {
  /** `L<i>`, or `model` (graph input, loss gradient), or `workspace`. */
  layer: string;
  /** The role, prefixed with `saved ` when the tensor is kept for backward. */
  role: string;
  bytes: number;
  storages: number;
}

/** Persistent bytes by kind (each tensor rounded up to the graph's 256 B alignment, as the plan counts it). */
export interface PersistentBreakdown {
  weights: number;
  /**
   * Quantized weight workspaces cached across micro-batches (`quantizedWeights:
   * 'cached'`, TE `_fp8_workspaces`); 0 otherwise. Primary quantized weights count as `weights`.
   */
  quantizedWeightCache: number;
  masterWeights: number;
  optimizerState: number;
  total: number;
}

/** What a planned layer graph needs, and what makes its peak. */
export interface LayerPlanSummary {
  name: string;
  tensors: number;
  ops: number;
  peakBytes: number;
  arenaBytes: number;
  persistentBytes: number;
  /** arena + persistent: what the device must hold. */
  totalBytes: number;
  peakStep: number;
  peakOp: string | null;
  persistent: PersistentBreakdown;
  /** Live at the peak by layer and role, largest first. */
  peakByLayerAndRole: LayerPeakEntry[];
  /** Live at the peak by role (summed over layers). */
  peakByRole: Record<string, number>;
  /** Bytes live at the peak that are saved for backward. */
  savedAtPeakBytes: number;
}

function roundedSum(core: CoreBinding, lg: LayerGraph, names: string[]): number {
  if (names.length === 0) return 0;
  const byName = new Map(lg.graph.tensors.map((t) => [t.name, t]));
  const alignment = lg.graph.defaultAlignment ?? 256;
  const tensors = names.map((name) => {
    const t = byName.get(name)!;
    return t.bytes !== undefined ? { shape: [t.bytes], dtype: 'uint8' as const, alignment } : { shape: t.shape!, dtype: t.dtype!, alignment };
  });
  // A zero-size entry at the end rounds the last tensor up as well.
  tensors.push({ shape: [0], dtype: 'uint8', alignment });
  return bulkLayout(core, tensors).usedBytes;
}

/** Summarises a plan of a layer graph: peak, arena, persistent bytes, and what is live at the peak by layer and role. */
export function layerPlanSummary(core: CoreBinding, lg: LayerGraph, plan: PlanDocument): LayerPlanSummary {
  // Issue #14: what is read below is checked first, and named when it is wrong.
  if (lg === null || typeof lg !== 'object') throw new TensorplanError('INVALID_ARGUMENT', `layers = ${shown(lg)}: must be what tp.layerGraph returned`);
  parseGraph(lg.graph, 'layers.graph');
  if (lg.tensors === null || typeof lg.tensors !== 'object') throw new TensorplanError('INVALID_ARGUMENT', `layers.tensors = ${shown(lg.tensors)}: must be an object by tensor name`);
  parsePlan(plan);
  const s = plan.statistics;
  const persistentNames: Record<'weight' | 'quantizedWeight' | 'masterWeight' | 'optimizerState', string[]> = {
    weight: [], quantizedWeight: [], masterWeight: [], optimizerState: [],
  };
  for (const name of lg.graph.persistent ?? []) {
    const role = lg.tensors[name]?.role as LayerTensorRole;
    if (role === 'weight' || role === 'quantizedWeight' || role === 'masterWeight' || role === 'optimizerState') persistentNames[role].push(name);
  }
  const persistent: PersistentBreakdown = {
    weights: roundedSum(core, lg, persistentNames.weight),
    quantizedWeightCache: roundedSum(core, lg, persistentNames.quantizedWeight),
    masterWeights: roundedSum(core, lg, persistentNames.masterWeight),
    optimizerState: roundedSum(core, lg, persistentNames.optimizerState),
    total: s.persistentBytes,
  };
  const entries = new Map<string, LayerPeakEntry>();
  const byRole: Record<string, number> = {};
  let saved = 0;
  let counted = 0;
  for (const c of s.peakContributors) {
    const info = lg.tensors[c.storage];
    // Labels only: a tensor whose info is not what tp.layerGraph wrote counts as "other" of "model".
    const layer = typeof info?.layer === 'string' ? info.layer : 'model';
    const role = typeof info?.role === 'string' ? `${info.saved === true ? 'saved ' : ''}${info.role}` : 'other';
    const key = `${layer}\u0000${role}`;
    const entry = entries.get(key) ?? { layer, role, bytes: 0, storages: 0 };
    entry.bytes += c.bytes;
    entry.storages += 1;
    entries.set(key, entry);
    byRole[role] = (byRole[role] ?? 0) + c.bytes;
    if (info?.saved) saved += c.bytes;
    counted += c.bytes;
  }
  if (s.peakBytes > counted) {
    entries.set('workspace', { layer: 'workspace', role: 'workspace', bytes: s.peakBytes - counted, storages: 1 });
    byRole.workspace = s.peakBytes - counted;
  }
  const peakByLayerAndRole = [...entries.values()].sort((a, b) => b.bytes - a.bytes || a.layer.localeCompare(b.layer) || a.role.localeCompare(b.role));
  return {
    name: lg.graph.name ?? 'layer spec',
    tensors: lg.graph.tensors.length,
    ops: lg.graph.ops.length,
    peakBytes: s.peakBytes,
    arenaBytes: s.arenaBytes,
    persistentBytes: s.persistentBytes,
    totalBytes: s.arenaBytes + s.persistentBytes,
    peakStep: s.peakStep,
    peakOp: s.peakOp,
    persistent,
    peakByLayerAndRole,
    peakByRole: byRole,
    savedAtPeakBytes: saved,
  };
}
