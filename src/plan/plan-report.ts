import { TensorplanError, shown } from '../errors.js';
import type { ReportData } from '../report/report-data.js';
import { parsePlan } from './parse-plan.js';
import type { PlanDocument } from './plan-document.js';

/**
 * The memory report's data for a plan (live bytes, placement rectangles, top contributors).
 *
 * @group Files
 */
export function planReportData(plan: PlanDocument, title?: string): ReportData {
  // Every field read below is one the plan schema requires (issue #14: a plan missing one is named, not a TypeError).
  parsePlan(plan);
  if (title !== undefined && typeof title !== 'string') throw new TensorplanError('INVALID_ARGUMENT', `title = ${shown(title)}: must be a string`);
  const stats = plan.statistics;
  const graphName = 'format' in plan.graph ? plan.graph.name : plan.graph.path;
  return {
    title: title ?? `Memory plan${graphName ? ` of ${graphName}` : ''}`,
    generatedBy: `${plan.tool.name} ${plan.tool.version} (${plan.tool.backend} backend)`,
    steps: plan.schedule,
    liveBytes: stats.liveBytes,
    // Baselines are drawn as flat lines at their peak: their per-step curves
    // belong to other op orders, which the plan does not keep.
    baselines: Object.entries(stats.schedule.baselines).map(([name, peak]) => ({ name: `${name} peak`, liveBytes: stats.liveBytes.map(() => peak) })),
    peakBytes: stats.peakBytes,
    peakStep: stats.peakStep,
    lowerBoundBytes: stats.lowerBoundBytes,
    arenaBytes: plan.arenaBytes,
    storages: [
      ...plan.storages.map((s) => ({
        name: s.tensors.join(', '), offset: s.offset, bytes: s.bytes, birth: s.birth,
        death: Math.min(s.death, plan.schedule.length - 1), producer: s.producer ?? '(graph input)', lastReader: s.lastUse ?? '(none)',
      })),
      ...plan.workspaces.map((w) => ({
        name: `workspace of ${w.op}`, offset: w.offset, bytes: w.bytes, birth: w.step, death: w.step, producer: w.op, lastReader: w.op,
      })),
    ],
    topAtPeak: stats.peakContributors.map((c) => ({ name: c.storage, bytes: c.bytes, producer: c.producer ?? '(graph input)', lastReader: c.lastUse ?? '(none)' })),
  };
}
