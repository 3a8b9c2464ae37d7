import { TensorplanError, guarded, optionsObject, shown } from '../errors.js';
import type { LayerComparison } from '../frontends/layers/layer-compare.js';
import { UNMODELLED } from '../frontends/layers/layer-fit.js';
import type { LayerGraph } from '../frontends/layers/layer-graph.js';
import type { LayerPlanSummary } from '../frontends/layers/layer-summary.js';
import { TE_BEHAVIOURS, type TeBehaviourId } from '../frontends/layers/te-behaviours.js';
import type { GraphDocument } from '../graph/graph-document.js';
import type { ReportAlternative, ReportAmount, ReportData, ReportGrouping, ReportSeries, ReportStorage } from '../report/report-data.js';
import type { LivenessResult } from '../schedule/liveness.js';
import type { BaselineMethod, ScheduleOptions, ScheduleResult } from '../schedule/schedule.js';
import { WORKSPACE_CATEGORY, liveBytesBy, storageCategory } from './live-categories.js';
import { parsePlan } from './parse-plan.js';
import type { PlanDocument, PlanStorage } from './plan-document.js';

/**
 * What {@link planReportData} can add to a plan's report besides the plan itself.
 *
 * @group Files
 */
export interface PlanReportOptions {
  /** The page title; default `Memory plan of NAME`. */
  title?: string;
  /**
   * The layer graph the plan was made from (`tp.layerGraph(spec)`): the timeline then splits the
   * arena into saved for backward, gradients and transients, and also by layer and by role, and
   * each storage says which TE behaviour keeps it alive.
   */
  layers?: LayerGraph;
  /** `tp.layerPlanSummary(layers, plan)`: splits the persistent bytes into weights, master weights, optimizer state. */
  layerSummary?: LayerPlanSummary;
  /**
   * Each baseline's own schedule and live bytes ({@link baselineCurves}), drawn as real curves.
   * Without them the baselines the plan reports are drawn as flat lines at their peak.
   */
  baselineSchedules?: ReportSeries[];
  /** `compareLayerSpecs(...)`: the report then charts the alternatives' peaks and the roles that change. */
  comparison?: LayerComparison;
}

/**
 * The two calls {@link baselineCurves} needs: a session (`await init()`) is one.
 *
 * @group Files
 */
export interface BaselineScheduler {
  schedule(graph: GraphDocument, options?: ScheduleOptions): ScheduleResult;
  liveness(graph: GraphDocument, order?: readonly string[]): LivenessResult;
}

/** Every single baseline, in the core's code order (schedule.ts BaselineMethod). */
const ALL_BASELINES: readonly BaselineMethod[] = ['given', 'inductor-lpmf', 'inductor-bfs', 'inductor-dfs', 'xla-list', 'xla-dfs', 'xla-post-order'];

/** More series than this in one split are shown as the largest ones and `other`. */
const MAX_SERIES = 12;

function bad(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

/**
 * Each scheduling baseline's own op order and live bytes per step, for
 * {@link PlanReportOptions.baselineSchedules}: the baselines the plan measured
 * (`baselines: true`), or all seven when it measured none. Each curve's maximum
 * is that baseline's peak (the figure `plan.statistics.schedule.baselines` reports).
 *
 * @param planner - a session: `await init()`
 * @param graph - the graph the plan was made from
 * @param plan - the plan, for the names of the baselines it measured
 *
 * @group Files
 */
export function baselineCurves(planner: BaselineScheduler, graph: GraphDocument, plan: PlanDocument): ReportSeries[] {
  return guarded('baselineCurves', [planner, graph, plan], () => {
    parsePlan(plan);
    if (planner === null || typeof planner !== 'object' || typeof planner.schedule !== 'function' || typeof planner.liveness !== 'function') {
      bad(`planner = ${shown(planner)}: must be a session (await init())`);
    }
    const measured = Object.keys(plan.statistics.schedule.baselines).filter((name) => (ALL_BASELINES as readonly string[]).includes(name)) as BaselineMethod[];
    return (measured.length > 0 ? measured : ALL_BASELINES).map((method) => {
      const order = planner.schedule(graph, { method }).order;
      const live = planner.liveness(graph, order);
      return { name: method, liveBytes: live.liveBytes, steps: order, peakBytes: live.peakBytes };
    });
  });
}

/**
 * The memory report's data for a plan: live bytes per step by category (and by
 * layer and role, or by op type), persistent bytes, the budget, the lower
 * bound, the baselines' curves, op names, and every storage with its
 * provenance (producer, last reader, why it is alive).
 *
 * @param plan - a plan (`tp.plan(...)`)
 * @param options - a title, or {@link PlanReportOptions}
 *
 * @group Files
 */
export function planReportData(plan: PlanDocument, options?: string | PlanReportOptions): ReportData {
  return guarded('planReportData', [plan, options], () => reportData(plan, options));
}

function reportData(plan: PlanDocument, given: string | PlanReportOptions | undefined): ReportData {
  // Every field read below is one the plan schema requires (a plan missing one is named, not a TypeError).
  parsePlan(plan);
  const options: PlanReportOptions = typeof given === 'string' ? { title: given } : optionsObject(given, 'options');
  const { title, layers, layerSummary, baselineSchedules, comparison } = options;
  if (title !== undefined && typeof title !== 'string') bad(`title = ${shown(title)}: must be a string`);
  if (layers !== undefined && (layers === null || typeof layers !== 'object' || layers.tensors === null || typeof layers.tensors !== 'object')) {
    bad(`options.layers = ${shown(layers)}: must be what tp.layerGraph returned`);
  }
  const stats = plan.statistics;
  const steps = plan.schedule.length;
  const graphDoc = 'format' in plan.graph ? plan.graph : undefined;
  const graphName = graphDoc ? graphDoc.name : (plan.graph as { path: string }).path;
  const stepOf = new Map(plan.schedule.map((op, k) => [op, k]));
  const opType = new Map((graphDoc?.ops ?? []).map((op) => [op.name, op.op]));

  const info = (storage: PlanStorage) => {
    const name = storage.tensors[0];
    const value = layers && Object.hasOwn(layers.tensors, name) ? (layers.tensors as Record<string, unknown>)[name] : undefined;
    return value !== null && typeof value === 'object' ? value as Partial<LayerGraph['tensors'][string]> : undefined;
  };
  const roleKey = (storage: PlanStorage): string => {
    const i = info(storage);
    return typeof i?.role === 'string' ? `${i.saved === true ? 'saved ' : ''}${i.role}` : 'other';
  };
  const layerKey = (storage: PlanStorage): string => {
    const layer = info(storage)?.layer;
    return typeof layer === 'string' ? layer : 'other';
  };
  const opTypeKey = (storage: PlanStorage): string => (storage.producer === null ? '(graph input)' : opType.get(storage.producer) ?? '(unknown op)');
  const groupOf = (storage: PlanStorage): string => (layers ? `${layerKey(storage)} · ${roleKey(storage)}` : opTypeKey(storage));

  const categories = seriesOf(liveBytesBy(plan, (s) => storageCategory(s, layers)), Infinity);
  const groupings: ReportGrouping[] = [{ by: 'category', series: categories }];
  if (layers) {
    groupings.push({ by: 'layer', series: seriesOf(liveBytesBy(plan, layerKey), MAX_SERIES) });
    groupings.push({ by: 'role', series: seriesOf(liveBytesBy(plan, roleKey), MAX_SERIES) });
  } else if (graphDoc) {
    groupings.push({ by: 'op type', series: seriesOf(liveBytesBy(plan, opTypeKey), MAX_SERIES) });
  }

  const why = (storage: PlanStorage): string => {
    const i = info(storage);
    if (i && typeof i.because === 'string' && Object.hasOwn(TE_BEHAVIOURS, i.because)) {
      const behaviour = TE_BEHAVIOURS[i.because as TeBehaviourId];
      const held = i.held && typeof i.held === 'object' && typeof i.held.until === 'string'
        ? ` Kept past its last reader (${i.held.lastReader ?? 'none'}) until ${i.held.until}: ${i.held.because}.` : '';
      return `${behaviour.id}: ${behaviour.what}${held}`;
    }
    if (storage.death >= steps) return 'a graph output: alive to the end of the step';
    if (storage.lastUse === null) return 'never read after it is made';
    return `read by ${storage.lastUse} at step ${stepOf.get(storage.lastUse) ?? storage.death}`;
  };
  const storages: ReportStorage[] = [
    ...plan.storages.map((s) => ({
      name: s.tensors.join(', '), offset: s.offset, bytes: s.bytes, birth: s.birth,
      death: Math.min(s.death, steps - 1), producer: s.producer ?? '(graph input)', lastReader: s.lastUse ?? '(none)',
      category: storageCategory(s, layers), group: groupOf(s), why: why(s), tensors: s.tensors.length,
    })),
    ...plan.workspaces.map((w) => ({
      name: `workspace of ${w.op}`, offset: w.offset, bytes: w.bytes, birth: w.step, death: w.step, producer: w.op, lastReader: w.op,
      category: WORKSPACE_CATEGORY, group: layers ? `${layerOfOp(layers, w.op)} · workspace` : WORKSPACE_CATEGORY,
      why: `scratch of ${w.op}, alive during its step (${w.step})`, tensors: 0,
    })),
  ];

  const persistent = persistentAmounts(plan, layerSummary);
  const occupied = plan.arenaBytes + persistent.reduce((a, p) => a + p.bytes, 0);
  return {
    title: title ?? `Memory plan${graphName ? ` of ${graphName}` : ''}`,
    generatedBy: `${plan.tool.name} ${plan.tool.version} (${plan.tool.backend} backend)`,
    steps: plan.schedule,
    liveBytes: stats.liveBytes,
    baselines: baselinesOf(plan, baselineSchedules),
    peakBytes: stats.peakBytes,
    peakStep: stats.peakStep,
    lowerBoundBytes: stats.lowerBoundBytes,
    arenaBytes: plan.arenaBytes,
    storages,
    topAtPeak: stats.peakContributors.map((c) => ({ name: c.storage, bytes: c.bytes, producer: c.producer ?? '(graph input)', lastReader: c.lastUse ?? '(none)' })),
    persistentBytes: persistent.reduce((a, p) => a + p.bytes, 0),
    persistent,
    categories,
    groupings,
    ...(stats.budget ? { budget: { budgetBytes: stats.budget.budgetBytes, fits: stats.budget.fits, headroomBytes: stats.budget.budgetBytes - occupied } } : {}),
    // A layer spec lists neither embeddings nor the LM head nor every library workspace; a graph file has what it has.
    unmodelled: layers ? [...UNMODELLED] : UNMODELLED.filter((u) => !u.startsWith('embeddings') && !u.startsWith('cuBLAS')),
    ...(comparison !== undefined ? { alternatives: alternativesOf(comparison) } : {}),
  };
}

/** The layer an op belongs to: the layer of the first tensor it writes that tp.layerGraph knows. */
function layerOfOp(layers: LayerGraph, op: string): string {
  const ops: unknown = (layers.graph as { ops?: unknown } | null)?.ops;
  const found = Array.isArray(ops) ? ops.find((o) => (o as { name?: unknown } | null)?.name === op) as { outputs?: unknown } : undefined;
  for (const t of Array.isArray(found?.outputs) ? found.outputs as unknown[] : []) {
    if (typeof t !== 'string') continue;
    const layer = Object.hasOwn(layers.tensors, t) ? (layers.tensors[t] as { layer?: unknown } | null)?.layer : undefined;
    if (typeof layer === 'string') return layer;
  }
  return 'other';
}

/** Series from a split, all-zero ones left out, largest peak first; past `max`, the smallest are summed as `other`. */
function seriesOf(split: Map<string, Float64Array>, max: number): ReportSeries[] {
  const peakOf = (s: Float64Array) => s.reduce((a, b) => Math.max(a, b), 0);
  const entries = [...split.entries()].filter(([, s]) => peakOf(s) > 0).sort((a, b) => peakOf(b[1]) - peakOf(a[1]) || a[0].localeCompare(b[0]));
  if (entries.length <= max) return entries.map(([name, s]) => ({ name, liveBytes: Array.from(s) }));
  const kept = entries.slice(0, max - 1);
  const other = new Float64Array(entries[0][1].length);
  for (const [, s] of entries.slice(max - 1)) s.forEach((b, k) => { other[k] += b; });
  return [...kept.map(([name, s]) => ({ name, liveBytes: Array.from(s) })), { name: `other (${entries.length - kept.length})`, liveBytes: Array.from(other) }];
}

/** Persistent bytes by kind: the layer summary's split when given, else one amount; external I/O apart. */
function persistentAmounts(plan: PlanDocument, summary: LayerPlanSummary | undefined): ReportAmount[] {
  const total = plan.statistics.persistentBytes;
  const amounts: ReportAmount[] = [];
  if (summary !== undefined) {
    const p = (summary as { persistent?: unknown } | null)?.persistent as Record<string, unknown> | undefined;
    const parts: [string, string][] = [['weights', 'weights'], ['quantizedWeightCache', 'quantized weight cache'], ['masterWeights', 'master weights'], ['optimizerState', 'optimizer state']];
    if (p === null || typeof p !== 'object') bad(`options.layerSummary.persistent = ${shown(p)}: must be what tp.layerPlanSummary returned`);
    for (const [key, name] of parts) {
      const bytes = p[key];
      if (typeof bytes !== 'number' || !Number.isFinite(bytes) || bytes < 0) bad(`options.layerSummary.persistent.${key} = ${shown(bytes)}: must be a byte count`);
      if (bytes > 0) amounts.push({ name, bytes });
    }
    const rest = total - amounts.reduce((a, x) => a + x.bytes, 0);
    if (rest > 0) amounts.push({ name: 'other persistent', bytes: rest });
  } else if (total > 0) {
    amounts.push({ name: 'persistent (weights, state)', bytes: total });
  }
  if (plan.statistics.externalIOBytes) amounts.push({ name: 'external I/O', bytes: plan.statistics.externalIOBytes });
  return amounts;
}

/** The baselines' own curves when given (checked), else flat lines at the peaks the plan reports. */
function baselinesOf(plan: PlanDocument, given: ReportSeries[] | undefined): ReportSeries[] {
  const peaks = plan.statistics.schedule.baselines;
  if (given === undefined) {
    // Without their schedules the curves are unknown: flat lines at the reported peaks.
    return Object.entries(peaks).map(([name, peak]) => ({ name: `${name} peak`, liveBytes: plan.statistics.liveBytes.map(() => peak), peakBytes: peak }));
  }
  if (!Array.isArray(given)) bad(`options.baselineSchedules = ${shown(given)}: must be an array (baselineCurves(tp, graph, plan))`);
  return given.map((b, i) => {
    const at = `options.baselineSchedules[${i}]`;
    if (b === null || typeof b !== 'object' || typeof b.name !== 'string') bad(`${at} = ${shown(b)}: must be { name, liveBytes, steps? }`);
    if (!Array.isArray(b.liveBytes) || b.liveBytes.some((x) => typeof x !== 'number' || !Number.isFinite(x))) bad(`${at}.liveBytes = ${shown(b.liveBytes)}: must be an array of byte counts`);
    if (b.steps !== undefined && (!Array.isArray(b.steps) || b.steps.length !== b.liveBytes.length || b.steps.some((s) => typeof s !== 'string'))) {
      bad(`${at}.steps = ${shown(b.steps)}: must be ${b.liveBytes.length} op names`);
    }
    const peakBytes = b.liveBytes.reduce((a, x) => Math.max(a, x), 0);
    return { name: b.name, liveBytes: [...b.liveBytes], ...(b.steps ? { steps: [...b.steps] } : {}), peakBytes };
  });
}

/** The comparison's rows as the report charts them (checked: a malformed one is named). */
function alternativesOf(comparison: LayerComparison): ReportAlternative[] {
  const rows = (comparison as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows)) bad(`options.comparison = ${shown(comparison)}: must be what compareLayerSpecs returned`);
  return rows.map((row: LayerComparison['rows'][number], i) => {
    const at = `options.comparison.rows[${i}]`;
    if (row === null || typeof row !== 'object' || row.summary === null || typeof row.summary !== 'object') bad(`${at} = ${shown(row)}: must be a comparison row with a summary`);
    const s = row.summary;
    const numbers = { peakBytes: s.peakBytes, persistentBytes: s.persistentBytes, totalBytes: s.totalBytes, deltaPeakBytes: row.deltaPeakBytes, deltaTotalBytes: row.deltaTotalBytes };
    for (const [key, value] of Object.entries(numbers)) if (typeof value !== 'number' || !Number.isFinite(value)) bad(`${at}.${key} = ${shown(value)}: must be a number of bytes`);
    if (typeof row.label !== 'string') bad(`${at}.label = ${shown(row.label)}: must be a string`);
    if (!Array.isArray(row.peakDeltaByRole)) bad(`${at}.peakDeltaByRole = ${shown(row.peakDeltaByRole)}: must be an array`);
    return {
      label: row.label, peakBytes: s.peakBytes, persistentBytes: s.persistentBytes, totalBytes: s.totalBytes,
      deltaPeakBytes: row.deltaPeakBytes, deltaTotalBytes: row.deltaTotalBytes,
      roles: row.peakDeltaByRole.map((d, j) => {
        if (d === null || typeof d !== 'object' || typeof d.key !== 'string' || typeof d.bytes !== 'number') bad(`${at}.peakDeltaByRole[${j}] = ${shown(d)}: must be { key, bytes }`);
        return { name: d.key, bytes: d.bytes };
      }),
      explanation: typeof row.explanation === 'string' ? row.explanation : '',
    };
  });
}
