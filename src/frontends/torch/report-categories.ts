// The import's storage categories (saved for backward, gradients, outputs, activations, ...) in a
// plan report of a torch.export program: planReportData splits the arena by category only for
// layer specs (graph inputs / activations otherwise), so the CLI applies the importer's split to
// the report data it made: the timeline's category series and each storage's category.
import type { PlanDocument, PlanStorage } from '../../plan/plan-document.js';
import { liveBytesBy } from '../../plan/live-categories.js';
import type { ReportData } from '../../report/report-data.js';
import type { TorchStorageCategory } from './import-options.js';

/** Sets `report`'s category split from the import's categories (by tensor name). */
export function applyTorchCategories(report: ReportData, plan: PlanDocument, categories: Readonly<Record<string, TorchStorageCategory>>): ReportData {
  const categoryOf = (storage: PlanStorage): string => {
    const first = storage.tensors.find((t) => Object.hasOwn(categories, t));
    return first === undefined ? 'activations' : categories[first];
  };
  const peakOf = (s: Float64Array) => s.reduce((a, b) => Math.max(a, b), 0);
  const series = [...liveBytesBy(plan, categoryOf).entries()]
    .filter(([, s]) => peakOf(s) > 0)
    .sort((a, b) => peakOf(b[1]) - peakOf(a[1]) || a[0].localeCompare(b[0]))
    .map(([name, s]) => ({ name, liveBytes: Array.from(s) }));
  // planReportData lists plan.storages first, in order, then the workspaces.
  const storages = report.storages.map((s, i) => (i < plan.storages.length ? { ...s, category: categoryOf(plan.storages[i]) } : s));
  const groupings = (report.groupings ?? []).map((g) => (g.by === 'category' ? { by: 'category', series } : g));
  return { ...report, categories: series, storages, groupings };
}
