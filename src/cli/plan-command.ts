import { chromeTrace } from './chrome-trace.js';
import { writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import Table from 'cli-table3';
import { tableStyle } from './colour.js';
import { baselineCurves, compareLayerSpecs, init, loadEchartsSource, parseGraph, planReportData, renderReport } from '../index.js';
import type { BackendChoice, PlanDocument } from '../index.js';
import { CliError, EXIT_NEGATIVE, EXIT_OK } from './exit-codes.js';
import { formatBytes } from './format.js';
import { parseBytes, parseSeconds } from './parse-units.js';
import { planProgressBar } from './progress.js';
import { readJsonFile } from './read-input.js';
import { importOnnxFile, importSummary, importTorchFile, isOnnxPath, isTorchExportPath, torchImportSummary } from './import-command.js';
import type { OnnxCliOptions } from './import-command.js';
import { checkLayerInput, comparisonJson, isLayerSpec, printComparison, printLayerSummary } from './layers-plan.js';
import { applyTorchCategories } from '../frontends/torch/report-categories.js';
import type { LayerGraph, LayerSpec } from '../index.js';

export interface PlanCommandOptions extends OnnxCliOptions {
  output?: string;
  report?: string;
  trace?: string;
  budget?: string;
  timeLimit?: string;
  baselines?: boolean;
  joint?: boolean;
  json?: boolean;
  referenceGraph?: boolean;
  checkFusion?: string;
  maxFusedRead?: string;
  backend?: BackendChoice;
  /** Layer specs only: alternatives `key=value` to plan and compare. */
  compare?: string[];
}

/** The statistics `--json` prints. */
function jsonSummary(plan: PlanDocument) {
  const s = plan.statistics;
  return {
    backend: plan.tool.backend,
    peakBytes: s.peakBytes,
    arenaBytes: s.arenaBytes,
    lowerBoundBytes: s.lowerBoundBytes,
    arenaOverLowerBound: s.arenaOverLowerBound,
    persistentBytes: s.persistentBytes,
    ...(s.externalIOBytes ? { externalIOBytes: s.externalIOBytes } : {}),
    timeMs: s.timeMs.total,
    phasesMs: s.timeMs,
    peakStep: s.peakStep,
    peakOp: s.peakOp,
    schedule: s.schedule,
    placement: s.placement,
    ...(s.joint ? { joint: s.joint } : {}),
    ...(s.budget ? { budget: s.budget } : {}),
    peakContributors: s.peakContributors.slice(0, 10),
  };
}

function printSummary(file: string, plan: PlanDocument): void {
  const s = plan.statistics;
  console.log(`plan of ${file}: ${plan.schedule.length} steps, ${plan.storages.length} storages (backend ${plan.tool.backend})`);
  const summary = new Table({ style: tableStyle() });
  summary.push(
    { 'peak (lower bound)': `${formatBytes(s.peakBytes)} at step ${s.peakStep}${s.peakOp ? ` (${s.peakOp})` : ''}` },
    { arena: `${formatBytes(s.arenaBytes)}  (arena / LB = ${s.arenaOverLowerBound.toFixed(4)})` },
    { persistent: formatBytes(s.persistentBytes) },
    ...(s.externalIOBytes ? [{ 'external I/O': `${formatBytes(s.externalIOBytes)}  (graph inputs and outputs, user buffers outside the arena)` }] : []),
    { schedule: `${s.schedule.method}${s.schedule.provedOptimal ? ' (proved optimal)' : ''}` },
    ...(s.joint ? [{
      joint: `${s.joint.candidates} orders placed, kept ${s.joint.order}'s: peak ${formatBytes(s.joint.chosen.peakBytes)}, arena ${formatBytes(s.joint.chosen.arenaBytes)}`
        + ` (smallest-peak order: peak ${formatBytes(s.joint.peakOrder.peakBytes)}, arena ${formatBytes(s.joint.peakOrder.arenaBytes)})`,
    }] : []),
    { placement: `${s.placement.method}${s.placement.provedOptimal ? ' (proved optimal)' : ''}` },
    { time: `${s.timeMs.total.toFixed(1)} ms (schedule ${s.timeMs.schedule.toFixed(1)}, place ${s.timeMs.place.toFixed(1)}, validate ${s.timeMs.validate.toFixed(1)})` },
  );
  console.log(summary.toString());
  const baselineRows = [
    ...Object.entries(s.schedule.baselines).map(([name, peak]) => ['schedule', name, formatBytes(peak), (peak / Math.max(1, s.peakBytes)).toFixed(3)]),
    ...Object.entries(s.placement.baselines).map(([name, height]) => ['placement', name, formatBytes(height), (height / Math.max(1, s.arenaBytes)).toFixed(3)]),
  ];
  if (baselineRows.length > 0) {
    const table = new Table({ head: ['phase', 'baseline', 'peak / arena', 'baseline / ours'], style: tableStyle() });
    baselineRows.forEach((row) => table.push(row));
    console.log('baselines, measured in the same run:');
    console.log(table.toString());
  }
  const members = new Map(plan.storages.map((storage) => [storage.tensors[0], storage.tensors.length]));
  const label = (owner: string) => ((members.get(owner) ?? 1) > 1 ? `${owner} (+${members.get(owner)! - 1} aliases)` : owner);
  const top = new Table({ head: ['alive at the peak', 'bytes', 'made by', 'last used by'], style: tableStyle() });
  for (const c of s.peakContributors.slice(0, 8)) top.push([label(c.storage), formatBytes(c.bytes), c.producer ?? '(graph input)', c.lastUse ?? '']);
  console.log(top.toString());
  if (s.budget) {
    console.log(s.budget.fits
      ? `fits the budget of ${formatBytes(s.budget.budgetBytes)} (arena + persistent = ${formatBytes(s.arenaBytes + s.persistentBytes)})`
      : `DOES NOT FIT the budget of ${formatBytes(s.budget.budgetBytes)}: over by ${formatBytes(s.budget.overByBytes)} (arena ${formatBytes(s.arenaBytes)} + persistent ${formatBytes(s.persistentBytes)}); the storages above are alive at the peak`);
  }
}

/** `tensorplan plan GRAPH.json|MODEL.onnx`: schedule, place, validate; summary, plan file and report. */
export async function planCommand(file: string, options: PlanCommandOptions): Promise<number> {
  const torch = isTorchExportPath(file) ? await importTorchFile(file, options) : undefined;
  if (!torch && (options.alignment !== undefined || options.customOp?.length || options.optimizer !== undefined)) {
    throw new CliError('--alignment, --custom-op and --optimizer apply to torch.export programs (MODEL.pt2) only');
  }
  const onnx = isOnnxPath(file) ? await importOnnxFile(file, options) : undefined;
  if (!onnx && !torch && (options.input?.length || options.value?.length || options.branch?.length || options.inPlace || options.externalIo || options.runtime || options.ortThreads)) {
    throw new CliError('--input, --value, --branch, --in-place, --external-io, --runtime and --ort-threads apply to ONNX models (MODEL.onnx) only (--input also to MODEL.pt2)');
  }
  const imported = onnx ?? torch;
  const input = imported ? undefined : await readJsonFile(file);
  const alternatives = options.compare ?? [];
  let spec: LayerSpec | undefined;
  if (input !== undefined && isLayerSpec(input)) {
    spec = checkLayerInput(input, file, alternatives);
    if (options.referenceGraph) throw new CliError('--reference-graph needs a graph file: a plan of a layer spec embeds its generated graph');
  } else if (alternatives.length > 0) {
    throw new CliError('--compare needs a layer spec (format tensorplan.layers), not a graph file');
  }
  const budgetBytes = options.budget !== undefined ? parseBytes(options.budget, '--budget') : undefined;
  const timeLimitSeconds = options.timeLimit !== undefined ? parseSeconds(options.timeLimit, '--time-limit') : undefined;
  const tp = await init({ backend: options.backend ?? 'auto' });
  let layers: LayerGraph | undefined;
  if (spec) layers = tp.layerGraph(spec);
  const graph = imported ? imported.graph : layers ? layers.graph : parseGraph(input, file);
  const progress = planProgressBar();
  let plan: PlanDocument;
  try {
    plan = tp.plan(graph, {
      baselines: options.baselines,
      joint: options.joint,
      budgetBytes,
      effort: timeLimitSeconds !== undefined ? 'thorough' : 'fast',
      timeLimitSeconds,
      graphPath: options.referenceGraph && options.output && !imported ? relative(dirname(resolve(options.output)), resolve(file)) : undefined,
      onProgress: progress.onProgress,
    });
  } finally {
    progress.stop();
  }
  // A proposed fusion is judged on the same graph: the peak may not rise and
  // the fused op's reads may not exceed --max-fused-read (PyTorch Inductor's two rules).
  const fusionOps = options.checkFusion?.split(',').map((op) => op.trim()).filter((op) => op.length > 0);
  const fusion = fusionOps ? tp.checkFusion(graph, fusionOps, {
    maxReadBytes: options.maxFusedRead !== undefined ? parseBytes(options.maxFusedRead, '--max-fused-read') : 0,
    timeLimitSeconds: 0.2,
  }) : undefined;
  if (options.output) await writeFile(options.output, JSON.stringify(plan, null, 2) + '\n');
  if (options.trace) await writeFile(options.trace, JSON.stringify(chromeTrace(plan, graph.name ?? file, layers)) + '\n');
  const layerSummary = layers ? tp.layerPlanSummary(layers, plan) : undefined;
  const comparison = spec && layerSummary && alternatives.length > 0
    ? compareLayerSpecs(tp, spec, alternatives, { effort: timeLimitSeconds !== undefined ? 'thorough' : 'fast', timeLimitSeconds }, layerSummary)
    : undefined;
  if (options.report) {
    // Each baseline's own op order and live bytes, so the report draws real curves (the plan keeps only their peaks).
    const made = planReportData(plan, {
      title: graph.name ?? file, layers, layerSummary, comparison, baselineSchedules: baselineCurves(tp, graph, plan),
    });
    const report = torch ? applyTorchCategories(made, plan, torch.categories) : made;
    await writeFile(options.report, renderReport(report, loadEchartsSource()));
  }
  if (options.json) {
    console.log(JSON.stringify({
      ...jsonSummary(plan),
      ...(fusion ? { fusion: { ops: fusionOps, ...fusion } } : {}),
      ...(layerSummary ? { layers: { ...layerSummary, peakByLayerAndRole: layerSummary.peakByLayerAndRole.slice(0, 50) } } : {}),
      ...(comparison ? { comparison: comparisonJson(comparison) } : {}),
    }, null, 2));
  } else {
    if (onnx) console.log(importSummary(file, onnx));
    if (torch) console.log(torchImportSummary(file, torch));
    printSummary(file, plan);
    if (fusion) {
      const why = [fusion.createsCycle && 'it would create a cycle', fusion.raisesPeak && `the peak would rise from ${formatBytes(fusion.peakBeforeBytes)} to ${formatBytes(fusion.peakAfterBytes)}`,
        fusion.readsTooLarge && `the fused op would read ${formatBytes(fusion.readBytes)} at once`].filter(Boolean).join('; ');
      console.log(`fusion of ${fusionOps!.join(', ')}: ${fusion.accepted ? `accepted (peak ${formatBytes(fusion.peakBeforeBytes)} -> ${formatBytes(fusion.peakAfterBytes)})` : `rejected: ${why}`}`);
    }
    if (layerSummary) printLayerSummary(layerSummary);
    if (comparison) printComparison(comparison);
    if (options.output) console.log(`plan written to ${options.output}`);
    if (options.report) console.log(`report written to ${options.report}`);
    if (options.trace) console.log(`trace written to ${options.trace} (open it in ui.perfetto.dev or Chromium DevTools' Performance panel (Load profile))`);
  }
  return plan.statistics.budget && !plan.statistics.budget.fits ? EXIT_NEGATIVE : EXIT_OK;
}
