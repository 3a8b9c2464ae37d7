import { formatShortBytes, formatSignedBytes } from '../../bytes-text.js';
import { TensorplanError, guarded, optionsObject, shown } from '../../errors.js';
import type { GraphDocument } from '../../graph/graph-document.js';
import type { PlanOptions } from '../../plan/make-plan.js';
import type { PlanDocument } from '../../plan/plan-document.js';
import type { LayerGraph } from './layer-graph.js';
import type { LayerPlanSummary, PersistentBreakdown } from './layer-summary.js';
import type { TeBehaviourId } from './te-behaviours.js';
import { type LayerSpec, parseLayerSpec } from './layer-spec.js';

/**
 * What {@link compareLayerSpecs} needs to plan a spec: a session (`await init()`) is one. Front ends
 * take this narrow interface instead of the session class, so they never import it (no import cycle).
 *
 * @group Planning
 */
export interface LayerPlanner {
  layerGraph(spec: LayerSpec): LayerGraph;
  plan(graph: GraphDocument, options?: PlanOptions): PlanDocument;
  layerPlanSummary(layers: LayerGraph, plan: PlanDocument): LayerPlanSummary;
}

/**
 * One planned alternative and its byte deltas against the base spec.
 *
 * @group Planning
 */
export interface LayerComparisonRow {
  /** `base`, or the alternative as the user wrote it (`recipe=mxfp8`). */
  label: string;
  summary: LayerPlanSummary;
  /** Alternative minus base (0 for the base row). */
  deltaPeakBytes: number;
  deltaArenaBytes: number;
  deltaPersistentBytes: number;
  deltaTotalBytes: number;
  /**
   * Bytes live at each plan's peak by role (`saved quantizedWeight`, ...), alternative minus base,
   * both signs kept, largest |delta| first, zeros left out: they add up to `deltaPeakBytes`.
   */
  peakDeltaByRole: LayerPeakDelta<string>[];
  /** The same by TE behaviour (te-behaviours.ts); they add up to `deltaPeakBytes`. */
  peakDeltaByBehaviour: LayerPeakDelta<TeBehaviourId>[];
  /** Persistent bytes by kind, alternative minus base (`total` is `deltaPersistentBytes`). */
  deltaPersistent: PersistentBreakdown;
  /**
   * One line naming what makes the peak differ, e.g.
   * `recipe=bf16: peak -13.98 GiB (48.62 GiB -> 34.64 GiB): saved quantizedWeight -13.41 GiB, ...`.
   */
  explanation: string;
}

/**
 * A signed byte difference between the bytes live at two plans' peaks.
 *
 * @group Planning
 */
export interface LayerPeakDelta<K extends string> {
  key: K;
  bytes: number;
}

/**
 * The base spec and each alternative, planned the same way.
 *
 * @group Planning
 */
export interface LayerComparison {
  rows: LayerComparisonRow[];
}

function bad(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

const onOff = (value: string, key: string): boolean => {
  if (['on', 'true', 'yes', '1'].includes(value)) return true;
  if (['off', 'false', 'no', '0'].includes(value)) return false;
  return bad(`${key}=${value}: expected on or off`);
};

/**
 * Applies one alternative `key=value` to a spec and returns the new spec.
 * Keys: `recipe` (a recipe name, or `inputs:mxfp8,weights:mxfp8,...`),
 * `weightGradients` (separate|bulk|packed), `quantizedWeights` (perStep|cached|primary), `recompute` (on|off, every layer),
 * `tp` (a number), `sp` (on|off), `arch` (hopper|blackwell), `attention`
 * (fused|unfused), `microBatch`, `sequence`, or any dotted path of the spec
 * with a JSON value (`layers.0.repeat=4`).
 *
 * @group Planning
 */
export function applyAlternative(spec: LayerSpec, alternative: string): LayerSpec {
  return guarded('applyAlternative', [spec, alternative], () => applyAlternativeChecked(spec, alternative));
}

function applyAlternativeChecked(spec: LayerSpec, alternative: string): LayerSpec {
  parseLayerSpec(spec, 'spec');
  if (typeof alternative !== 'string') bad(`alternative = ${shown(alternative)}: must be a key=value string`);
  const at = alternative.indexOf('=');
  if (at <= 0) bad(`alternative ${shown(alternative)}: expected key=value`);
  const key = alternative.slice(0, at).trim();
  const value = alternative.slice(at + 1).trim();
  const next = structuredClone(spec) as LayerSpec;
  switch (key) {
    case 'recipe':
      if (value.includes(':')) {
        const roles: Record<string, string> = {};
        for (const part of value.split(',')) {
          const [role, recipe] = part.split(':');
          if (!['inputs', 'weights', 'gradients'].includes(role)) bad(`recipe=${value}: role ${shown(role)} is not inputs, weights or gradients`);
          roles[role] = recipe;
        }
        next.recipe = roles as LayerSpec['recipe'];
      } else {
        next.recipe = value as LayerSpec['recipe'];
      }
      return next;
    case 'quantizedWeights':
      next.quantizedWeights = value as LayerSpec['quantizedWeights'];
      return next;
    case 'weightGradients':
      next.weightGradients = value as LayerSpec['weightGradients'];
      return next;
    case 'recompute': {
      const on = onOff(value, key);
      next.layers = next.layers.map((layer) => ({ ...layer, recompute: on }));
      return next;
    }
    case 'tp':
      next.parallel = { ...next.parallel, tp: Number(value) };
      return next;
    case 'sp':
      next.parallel = { ...next.parallel, sequenceParallel: onOff(value, key) };
      return next;
    case 'arch':
      next.arch = value as LayerSpec['arch'];
      return next;
    case 'microBatch':
    case 'sequence':
      next.model = { ...next.model, [key]: Number(value) };
      return next;
    case 'attention': {
      if (value !== 'fused' && value !== 'unfused') bad(`attention=${value}: expected fused or unfused`);
      const fused = value === 'fused';
      next.layers = next.layers.map((layer) => {
        if (layer.kind === 'attention') return { ...layer, fused };
        if (layer.kind === 'transformer') return { ...layer, attention: { ...layer.attention, fused } };
        return layer;
      });
      return next;
    }
    default: {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = value;
      }
      const path = key.split('.');
      let target = next as unknown as Record<string, unknown>;
      for (const part of path.slice(0, -1)) {
        const child = target[part];
        if (child === null || typeof child !== 'object') bad(`alternative ${shown(alternative)}: ${shown(part)} is not an object in the spec`);
        target = child as Record<string, unknown>;
      }
      target[path[path.length - 1]] = parsed;
      return next;
    }
  }
}

/**
 * Plans the base spec and every alternative (`key=value`, see {@link applyAlternative}); deltas are
 * against the base. Pass `base` when the base is already planned (with the same options).
 *
 * @example
 * ```ts
 * import { LayerSpecBuilder, compareLayerSpecs, init } from 'tensorplan';
 *
 * const spec = new LayerSpecBuilder({ hidden: 1024, ffn: 4096, heads: 16, sequence: 2048, microBatch: 1 })
 *   .recipe('mxfp8').transformer({ repeat: 2, activation: 'swiglu', normalization: 'rmsnorm' })
 *   .build();
 * const tp = await init();
 * const [base, bf16] = compareLayerSpecs(tp, spec, ['recipe=bf16']).rows;
 * console.log(bf16.explanation);   // recipe=bf16: peak -84 MiB (288.28 MiB -> 204.28 MiB): saved quantizedWeight -66 MiB, ...
 * // base.label === 'base'
 * // bf16.deltaPeakBytes === bf16.summary.peakBytes - base.summary.peakBytes
 * // bf16.deltaPeakBytes === -84 * 2 ** 20
 * ```
 *
 * @group Planning
 */
export function compareLayerSpecs(tp: LayerPlanner, spec: LayerSpec, alternatives: readonly string[], options: PlanOptions = {},
  base?: LayerPlanSummary): LayerComparison {
  return guarded('compareLayerSpecs', [spec, alternatives, options, base], () => {
    // The planner and the lists are checked here, by name; the spec by applyAlternative and tp.layerGraph.
    if (tp === null || typeof tp !== 'object' || typeof tp.layerGraph !== 'function' || typeof tp.plan !== 'function' || typeof tp.layerPlanSummary !== 'function') {
      bad(`tp = ${shown(tp)}: must be a session (await init())`);
    }
    if (!Array.isArray(alternatives)) bad(`alternatives = ${shown(alternatives)}: must be an array of key=value strings`);
    alternatives.forEach((a, i) => {
      if (typeof a !== 'string') bad(`alternatives[${i}] = ${shown(a)}: must be a key=value string`);
    });
    optionsObject(options, 'options');
    if (base !== undefined && (base === null || typeof base !== 'object' || typeof base.peakBytes !== 'number' || typeof base.arenaBytes !== 'number'
      || typeof base.persistentBytes !== 'number' || typeof base.totalBytes !== 'number' || base.peakByRole === null
      || typeof base.peakByRole !== 'object' || !Array.isArray(base.peakByBehaviour) || base.persistent === null || typeof base.persistent !== 'object')) {
      bad(`base = ${shown(base)}: must be a layer plan summary (tp.layerPlanSummary)`);
    }
    return compareChecked(tp, spec, alternatives, options, base);
  });
}

function compareChecked(tp: LayerPlanner, spec: LayerSpec, alternatives: readonly string[], options: PlanOptions, base?: LayerPlanSummary): LayerComparison {
  const planOne = (s: LayerSpec) => {
    const lg = tp.layerGraph(s);
    return tp.layerPlanSummary(lg, tp.plan(lg.graph, options));
  };
  base ??= planOne(spec);
  const rows: LayerComparisonRow[] = [{
    label: 'base', summary: base, deltaPeakBytes: 0, deltaArenaBytes: 0, deltaPersistentBytes: 0, deltaTotalBytes: 0,
    peakDeltaByRole: [], peakDeltaByBehaviour: [],
    deltaPersistent: { weights: 0, quantizedWeightCache: 0, masterWeights: 0, optimizerState: 0, total: 0 },
    explanation: `base: peak ${formatShortBytes(base.peakBytes)}`,
  }];
  for (const alternative of alternatives) {
    const summary = planOne(applyAlternative(spec, alternative));
    const byRole = deltas(base.peakByRole, summary.peakByRole);
    const deltaPeakBytes = summary.peakBytes - base.peakBytes;
    const p = (k: keyof PersistentBreakdown) => summary.persistent[k] - base.persistent[k];
    rows.push({
      label: alternative, summary,
      deltaPeakBytes,
      deltaArenaBytes: summary.arenaBytes - base.arenaBytes,
      deltaPersistentBytes: summary.persistentBytes - base.persistentBytes,
      deltaTotalBytes: summary.totalBytes - base.totalBytes,
      peakDeltaByRole: byRole,
      peakDeltaByBehaviour: deltas(byBehaviourOf(base), byBehaviourOf(summary)) as LayerPeakDelta<TeBehaviourId>[],
      deltaPersistent: { weights: p('weights'), quantizedWeightCache: p('quantizedWeightCache'), masterWeights: p('masterWeights'),
        optimizerState: p('optimizerState'), total: p('total') },
      explanation: explain(alternative, base.peakBytes, summary.peakBytes, byRole),
    });
  }
  return { rows };
}

const byBehaviourOf = (s: LayerPlanSummary): Record<string, number> =>
  Object.fromEntries(s.peakByBehaviour.map((e) => [e.id, e.bytes]));

/** b minus a for every key of either, zeros left out, largest |delta| first. */
function deltas(a: Record<string, number>, b: Record<string, number>): LayerPeakDelta<string>[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].map((key) => ({ key, bytes: (b[key] ?? 0) - (a[key] ?? 0) }))
    .filter((d) => d.bytes !== 0)
    .sort((x, y) => Math.abs(y.bytes) - Math.abs(x.bytes) || x.key.localeCompare(y.key));
}


/** The roles behind a peak difference: the four largest, then the rest summed. */
function explain(label: string, basePeak: number, peak: number, byRole: LayerPeakDelta<string>[]): string {
  const head = `${label}: peak ${peak === basePeak ? 'unchanged' : formatSignedBytes(peak - basePeak)} (${formatShortBytes(basePeak)} -> ${formatShortBytes(peak)})`;
  if (byRole.length === 0) return head;
  const named = byRole.slice(0, 4).map((d) => `${d.key} ${formatSignedBytes(d.bytes)}`);
  const rest = byRole.slice(4);
  if (rest.length > 0) named.push(`${rest.length} other role${rest.length > 1 ? 's' : ''} ${formatSignedBytes(rest.reduce((sum, d) => sum + d.bytes, 0))}`);
  return `${head}: ${named.join(', ')}`;
}
