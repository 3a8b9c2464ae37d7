import Table from 'cli-table3';
import { tableStyle } from './colour.js';
import type { LayerComparison, LayerPlanSummary, LayerSpec } from '../index.js';
import { applyAlternative, parseLayerSpec } from '../index.js';
import { formatBytes } from './format.js';

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

const signed = (bytes: number): string => (bytes === 0 ? '0' : `${bytes > 0 ? '+' : '-'}${formatBytes(Math.abs(bytes))}`);

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
  for (const e of summary.peakByLayerAndRole.slice(0, 12)) table.push([e.layer, e.role, formatBytes(e.bytes), e.storages]);
  console.log('live at the peak, by layer and role (largest 12):');
  console.log(table.toString());
}

/** The `--compare` table: each alternative's figures and its byte deltas against the base. */
export function printComparison(comparison: LayerComparison): void {
  const table = new Table({ head: ['alternative', 'peak', 'arena', 'persistent', 'Δ peak', 'Δ arena', 'Δ persistent', 'Δ arena + persistent'], style: tableStyle() });
  for (const row of comparison.rows) {
    const s = row.summary;
    table.push([row.label, formatBytes(s.peakBytes), formatBytes(s.arenaBytes), formatBytes(s.persistentBytes),
      signed(row.deltaPeakBytes), signed(row.deltaArenaBytes), signed(row.deltaPersistentBytes), signed(row.deltaTotalBytes)]);
  }
  console.log('alternatives (deltas against the base spec):');
  console.log(table.toString());
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
  }));
}

