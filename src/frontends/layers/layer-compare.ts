import { TensorplanError, guarded, optionsObject, shown } from '../../errors.js';
import type { GraphDocument } from '../../graph/graph-document.js';
import type { PlanOptions } from '../../plan/make-plan.js';
import type { PlanDocument } from '../../plan/plan-document.js';
import type { LayerGraph } from './layer-graph.js';
import type { LayerPlanSummary } from './layer-summary.js';
import { type LayerSpec, parseLayerSpec } from './layer-spec.js';

/**
 * What {@link compareLayerSpecs} needs to plan a spec: a session (`await init()`) is one. Front ends
 * take this narrow interface instead of the session class, so they never import it (no import cycle).
 */
export interface LayerPlanner {
  layerGraph(spec: LayerSpec): LayerGraph;
  plan(graph: GraphDocument, options?: PlanOptions): PlanDocument;
  layerPlanSummary(layers: LayerGraph, plan: PlanDocument): LayerPlanSummary;
}

/** One planned alternative and its byte deltas against the base spec. */
export interface LayerComparisonRow {
  /** `base`, or the alternative as the user wrote it (`recipe=mxfp8`). */
  label: string;
  summary: LayerPlanSummary;
  /** Alternative minus base (0 for the base row). */
  deltaPeakBytes: number;
  deltaArenaBytes: number;
  deltaPersistentBytes: number;
  deltaTotalBytes: number;
}

/** The base spec and each alternative, planned the same way. */
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
 */
export function compareLayerSpecs(tp: LayerPlanner, spec: LayerSpec, alternatives: readonly string[], options: PlanOptions = {},
  base?: LayerPlanSummary): LayerComparison {
  return guarded('compareLayerSpecs', [spec, alternatives, options, base], () => {
    // Issue #14: the planner and the lists are checked here, by name; the spec by applyAlternative and tp.layerGraph.
    if (tp === null || typeof tp !== 'object' || typeof tp.layerGraph !== 'function' || typeof tp.plan !== 'function' || typeof tp.layerPlanSummary !== 'function') {
      bad(`tp = ${shown(tp)}: must be a session (await init())`);
    }
    if (!Array.isArray(alternatives)) bad(`alternatives = ${shown(alternatives)}: must be an array of key=value strings`);
    alternatives.forEach((a, i) => {
      if (typeof a !== 'string') bad(`alternatives[${i}] = ${shown(a)}: must be a key=value string`);
    });
    optionsObject(options, 'options');
    if (base !== undefined && (base === null || typeof base !== 'object' || typeof base.peakBytes !== 'number' || typeof base.arenaBytes !== 'number'
      || typeof base.persistentBytes !== 'number' || typeof base.totalBytes !== 'number')) {
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
  const rows: LayerComparisonRow[] = [{ label: 'base', summary: base, deltaPeakBytes: 0, deltaArenaBytes: 0, deltaPersistentBytes: 0, deltaTotalBytes: 0 }];
  for (const alternative of alternatives) {
    const summary = planOne(applyAlternative(spec, alternative));
    rows.push({
      label: alternative, summary,
      deltaPeakBytes: summary.peakBytes - base.peakBytes,
      deltaArenaBytes: summary.arenaBytes - base.arenaBytes,
      deltaPersistentBytes: summary.persistentBytes - base.persistentBytes,
      deltaTotalBytes: summary.totalBytes - base.totalBytes,
    });
  }
  return { rows };
}
