import Table from 'cli-table3';
import { tableStyle } from './colour.js';
import type { LayerComparison, LayerPlanSummary, LayerSpec } from '../index.js';
import { applyAlternative, parseLayerSpec } from '../index.js';
import { formatBytes, formatShortBytes, formatSignedBytes } from './format.js';

/** True when a parsed JSON document is a layer spec rather than a graph file. */
export function isLayerSpec(input: unknown): boolean {
  return input !== null && typeof input === 'object' && (input as { format?: unknown }).format === 'tensorplan.layers';
}

/** Checks the spec and every alternative up front, so bad input fails before any planning. */
export function checkLayerInput(input: unknown, file: string, alternatives: readonly string[]): LayerSpec {
  const spec = parseLayerSpec(input, file);
  for (const alternative of alternatives) parseLayerSpec(applyAlternative(spec, alternative), `${file} with ${alternative}`);
  return spec;
}

/** The layer part of `tensorplan plan SPEC.layers.json`: persistent breakdown and what is live at the peak by layer and role. */
export function printLayerSummary(summary: LayerPlanSummary): void {
  const p = summary.persistent;
  const cache = p.quantizedWeightCache > 0 ? `, quantized weight cache ${formatBytes(p.quantizedWeightCache)}` : '';
  console.log(`persistent: weights ${formatBytes(p.weights)}${cache}, master weights ${formatBytes(p.masterWeights)}, optimizer state ${formatBytes(p.optimizerState)}`);
  console.log(`arena + persistent: ${formatBytes(summary.totalBytes)}; saved for backward at the peak: ${formatBytes(summary.savedAtPeakBytes)}`);
  const roles = new Table({ head: ['live at the peak, by role', 'bytes'], style: tableStyle() });
  for (const [role, bytes] of Object.entries(summary.peakByRole).sort((a, b) => b[1] - a[1])) roles.push([role, formatBytes(bytes)]);
  console.log(roles.toString());
  const table = new Table({ head: ['layer', 'role', 'bytes', 'storages'], style: tableStyle() });
  for (const e of summary.peakByLayerAndRole.slice(0, 12)) {
    table.push([e.layer, e.role, formatBytes(e.bytes), e.storages]);
    // The TE behaviours behind the row, on a line of their own to keep the table narrow.
    const why = Object.entries(e.byBehaviour).sort((a, b) => b[1]! - a[1]!).map(([id, bytes]) => `${id} ${formatShortBytes(bytes!)}`);
    table.push([{ colSpan: 4, content: `  ${why.join(', ')}` }]);
  }
  console.log('live at the peak, by layer and role (largest 12), each with its TE behaviours:');
  console.log(table.toString());
  printBehaviours(summary);
}

/** Live at the peak by TE behaviour, largest first, each with what it is and its TE source (te-behaviours.ts). */
function printBehaviours(summary: LayerPlanSummary): void {
  const table = new Table({
    head: ['live at the peak, by TE behaviour', 'bytes', 'storages'], colWidths: [52, 14, 10], wordWrap: true, style: tableStyle(),
  });
  for (const e of summary.peakByBehaviour) {
    table.push([e.id, formatShortBytes(e.bytes), e.storages]);
    table.push([{ colSpan: 3, content: `${e.what} TE: ${e.source}` }]);
  }
  console.log(`live at the peak (step ${summary.peakStep}), by TE behaviour (TransformerEngine d0067d0da6):`);
  console.log(table.toString());
}

/**
 * The `--compare` output: a table that fits 100 columns, largest
 * device total (arena + persistent) first, with signed short deltas; then one
 * line per alternative naming the roles behind its peak difference; then, per
 * alternative, the difference by role and by TE behaviour in detail.
 */
export function printComparison(comparison: LayerComparison): void {
  const table = new Table({
    head: ['alternative', 'peak', 'Δ peak', 'persistent', 'Δ persistent', 'device', 'Δ device'],
    colWidths: [18, 12, 12, 12, 14, 12, 12], wordWrap: true, wrapOnWordBoundary: false, style: tableStyle(),
  });
  const rows = [...comparison.rows].sort((a, b) => b.summary.totalBytes - a.summary.totalBytes || a.label.localeCompare(b.label));
  for (const row of rows) {
    const s = row.summary;
    table.push([row.label, formatShortBytes(s.peakBytes), signedShort(row.deltaPeakBytes), formatShortBytes(s.persistentBytes),
      signedShort(row.deltaPersistentBytes), formatShortBytes(s.totalBytes), signedShort(row.deltaTotalBytes)]);
  }
  console.log('alternatives, largest device total (arena + persistent) first; Δ against the base spec:');
  console.log(table.toString());
  for (const row of comparison.rows.slice(1)) console.log(row.explanation);
  for (const row of comparison.rows.slice(1)) printPeakDifference(row);
}

/** A signed short delta, `0` for none. */
const signedShort = (bytes: number): string => (bytes === 0 ? '0' : formatSignedBytes(bytes));

/** Where one alternative's peak differs from the base: by role, by TE behaviour, and persistent bytes by kind. */
function printPeakDifference(row: LayerComparison['rows'][number]): void {
  const s = row.summary;
  const base = s.peakBytes - row.deltaPeakBytes;
  console.log(`${row.label} in detail: peak ${row.deltaPeakBytes === 0 ? 'unchanged' : formatSignedBytes(row.deltaPeakBytes)} `
    + `(${formatShortBytes(base)} -> ${formatShortBytes(s.peakBytes)}), live at each peak:`);
  if (row.peakDeltaByRole.length > 0) {
    const roles = new Table({ head: ['by role', 'Δ bytes'], colWidths: [44, 14], style: tableStyle() });
    for (const d of row.peakDeltaByRole) roles.push([d.key, formatSignedBytes(d.bytes)]);
    console.log(roles.toString());
    const behaviours = new Table({ head: ['by TE behaviour', 'Δ bytes'], colWidths: [44, 14], style: tableStyle() });
    for (const d of row.peakDeltaByBehaviour) behaviours.push([d.key, formatSignedBytes(d.bytes)]);
    console.log(behaviours.toString());
  }
  const p = row.deltaPersistent;
  console.log(`  persistent ${formatSignedBytes(p.total)}: weights ${formatSignedBytes(p.weights)}, quantized weight cache `
    + `${formatSignedBytes(p.quantizedWeightCache)}, master weights ${formatSignedBytes(p.masterWeights)}, optimizer state ${formatSignedBytes(p.optimizerState)}`);
}

/** The JSON form of a comparison (summaries without their long tables). */
export function comparisonJson(comparison: LayerComparison) {
  return comparison.rows.map((row) => ({
    label: row.label,
    peakBytes: row.summary.peakBytes,
    arenaBytes: row.summary.arenaBytes,
    persistentBytes: row.summary.persistentBytes,
    totalBytes: row.summary.totalBytes,
    deltaPeakBytes: row.deltaPeakBytes,
    deltaArenaBytes: row.deltaArenaBytes,
    deltaPersistentBytes: row.deltaPersistentBytes,
    deltaTotalBytes: row.deltaTotalBytes,
    peakDeltaByRole: row.peakDeltaByRole,
    peakDeltaByBehaviour: row.peakDeltaByBehaviour,
    deltaPersistent: row.deltaPersistent,
    explanation: row.explanation,
  }));
}

