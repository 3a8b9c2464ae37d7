import type { CoreBinding } from '../../abi/core-binding.js';
import { TensorplanError, shown } from '../../errors.js';
import { parseGraph } from '../../graph/parse-graph.js';
import { parsePlan } from '../../plan/parse-plan.js';
import { bulkLayout } from '../../formats/bulk-layout.js';
import type { PlanDocument } from '../../plan/plan-document.js';
import type { LayerGraph, LayerTensorRole } from './layer-graph.js';
import { TE_BEHAVIOURS, type TeBehaviour, type TeBehaviourId } from './te-behaviours.js';

/**
 * Bytes live at the peak for one layer and role.
 *
 * @group Planning
 */
export interface LayerPeakEntry {
  /** `L<i>`, or `model` (graph input, loss gradient), or `workspace`. */
  layer: string;
  /** The role, prefixed with `saved ` when the tensor is kept for backward. */
  role: string;
  bytes: number;
  storages: number;
  /** The same bytes by the TE behaviour that keeps them (they add up to `bytes`). */
  byBehaviour: Partial<Record<TeBehaviourId, number>>;
}

/**
 * Bytes live at the peak that one TE behaviour keeps, with its citation (te-behaviours.ts).
 *
 * @group Planning
 */
export interface LayerBehaviourEntry extends TeBehaviour {
  bytes: number;
  storages: number;
}

/**
 * Persistent bytes by kind (each tensor rounded up to the graph's 256 B alignment, as the plan counts it).
 *
 * @group Planning
 */
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

/**
 * What a planned layer graph needs, and what makes its peak.
 *
 * @group Planning
 */
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
  /**
   * Live at the peak by the TE behaviour that keeps each storage there, largest first (they add
   * up to `peakBytes`). A saved tensor whose backward readers are all done by the peak step counts
   * under `heldUntilNodeEnd` (TE's autograd ctx keeps it until the node returns).
   */
  peakByBehaviour: LayerBehaviourEntry[];
}

const knownBehaviour = (id: unknown): TeBehaviourId =>
  (typeof id === 'string' && Object.hasOwn(TE_BEHAVIOURS, id) ? id as TeBehaviourId : 'unattributed');

/**
 * Why a storage is alive at step `peak` of the plan's schedule: the behaviour of its tensor that a
 * later op (or the op at the peak) still reads or writes, the one used last; when none is, the
 * behaviour that holds it past its readers (holdUntil) if a backward op read it, else its own.
 */
function behaviourAtPeak(lg: LayerGraph, members: readonly string[], peak: number,
  usesOf: (tensor: string) => { last: number; backward: boolean }, stepOf: Map<string, number>): TeBehaviourId {
  let best: TeBehaviourId | undefined;
  let bestLast = -1;
  let held: TeBehaviourId | undefined;
  let heldUntil = -1;
  for (const name of members) {
    const info = lg.tensors[name];
    if (info === null || typeof info !== 'object') continue;
    const uses = usesOf(name);
    if (uses.last >= peak && uses.last > bestLast) {
      best = knownBehaviour(info.because);
      bestLast = uses.last;
    }
    const until = info.held && typeof info.held === 'object' ? stepOf.get(info.held.until) ?? -1 : -1;
    if (until >= peak && until > heldUntil) {
      held = knownBehaviour(uses.backward ? info.held!.because : info.because);
      heldUntil = until;
    }
  }
  return best ?? held ?? knownBehaviour(lg.tensors[members[0]]?.because);
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
  // What is read below is checked first, and named when it is wrong.
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
  const byBehaviour = new Map<TeBehaviourId, { bytes: number; storages: number }>();
  const addBehaviour = (entry: LayerPeakEntry, id: TeBehaviourId, bytes: number) => {
    entry.byBehaviour[id] = (entry.byBehaviour[id] ?? 0) + bytes;
    const total = byBehaviour.get(id) ?? { bytes: 0, storages: 0 };
    total.bytes += bytes;
    total.storages += 1;
    byBehaviour.set(id, total);
  };
  // Steps of the ops that really read or write each tensor (a holdUntil read is not one).
  const stepOf = new Map(plan.schedule.map((op, step) => [op, step]));
  const touching = new Map<string, { op: string; reads: boolean }[]>();
  const touch = (t: string, op: string, reads: boolean) => {
    const list = touching.get(t) ?? [];
    list.push({ op, reads });
    touching.set(t, list);
  };
  for (const op of lg.graph.ops) {
    for (const t of op.inputs) if (lg.tensors[t]?.held?.until !== op.name) touch(t, op.name, true);
    for (const t of op.outputs) touch(t, op.name, false);
  }
  const usesOf = (tensor: string) => {
    let last = -1;
    let backward = false;
    for (const use of touching.get(tensor) ?? []) {
      last = Math.max(last, stepOf.get(use.op) ?? -1);
      if (use.reads && lg.ops?.[use.op] === 'backward') backward = true;
    }
    return { last, backward };
  };
  const membersOf = new Map(plan.storages.map((st) => [st.tensors[0], st.tensors]));
  let saved = 0;
  let counted = 0;
  for (const c of s.peakContributors) {
    const info = lg.tensors[c.storage];
    // Labels only: a tensor whose info is not what tp.layerGraph wrote counts as "other" of "model".
    const layer = typeof info?.layer === 'string' ? info.layer : 'model';
    const role = typeof info?.role === 'string' ? `${info.saved === true ? 'saved ' : ''}${info.role}` : 'other';
    const key = `${layer}\u0000${role}`;
    const entry = entries.get(key) ?? { layer, role, bytes: 0, storages: 0, byBehaviour: {} };
    entry.bytes += c.bytes;
    entry.storages += 1;
    entries.set(key, entry);
    addBehaviour(entry, behaviourAtPeak(lg, membersOf.get(c.storage) ?? [c.storage], s.peakStep, usesOf, stepOf), c.bytes);
    byRole[role] = (byRole[role] ?? 0) + c.bytes;
    if (info?.saved) saved += c.bytes;
    counted += c.bytes;
  }
  if (s.peakBytes > counted) {
    const workspace: LayerPeakEntry = { layer: 'workspace', role: 'workspace', bytes: s.peakBytes - counted, storages: 1, byBehaviour: {} };
    addBehaviour(workspace, 'workspace', workspace.bytes);
    entries.set('workspace', workspace);
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
    peakByBehaviour: [...byBehaviour].map(([id, t]) => ({ ...TE_BEHAVIOURS[id], ...t }))
      .sort((a, b) => b.bytes - a.bytes || a.id.localeCompare(b.id)),
  };
}
