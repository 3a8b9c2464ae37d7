import { TensorplanError, guarded, shown } from '../errors.js';
import { describeSchemaError, schemaErrors } from '../graph/parse-graph.js';
import type { ReportData } from './report-data.js';
import { REPORT_DATA_SCHEMA } from './report-schema.js';

/**
 * The report draws at most this many storages (largest first) to stay responsive.
 *
 * @group Files
 */
export const MAX_DRAWN_STORAGES = 20_000;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON that is safe inside a <script> element. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(2)} ${units[unit]}`;
}

/** Runs in the page: builds both charts from the embedded data with ECharts. */
function pageScript(): void {
  type Win = { echarts: any; TP_REPORT: ReportData; tpCharts: unknown[] };
  const w = window as unknown as Win;
  const data = w.TP_REPORT;
  const fmt = (b: number): string => {
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = b;
    let i = 0;
    while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return i === 0 ? `${b} B` : `${v.toFixed(2)} ${u[i]}`;
  };
  const steps = data.liveBytes.map((_, i) => i);
  const live = w.echarts.init(document.getElementById('live-chart'), null, { renderer: 'canvas' });
  live.setOption({
    animation: false,
    title: { text: 'Live bytes per step', left: 'center' },
    tooltip: {
      trigger: 'axis',
      valueFormatter: (v: number) => fmt(v),
      axisPointer: { type: 'line' },
    },
    legend: { top: 28 },
    grid: { left: 90, right: 30, top: 70, bottom: 50 },
    xAxis: { type: 'category', data: steps, name: 'step', nameLocation: 'middle', nameGap: 30 },
    yAxis: { type: 'value', axisLabel: { formatter: (v: number) => fmt(v) } },
    series: [
      {
        name: 'tensorplan', type: 'line', step: 'middle', showSymbol: false, data: data.liveBytes,
        lineStyle: { width: 2 },
        markPoint: { data: [{ coord: [data.peakStep, data.peakBytes], value: fmt(data.peakBytes), name: 'peak' }] },
        markLine: { symbol: 'none', data: [{ yAxis: data.lowerBoundBytes, name: 'lower bound' }], label: { formatter: 'LB' } },
      },
      ...data.baselines.map((b) => ({ name: b.name, type: 'line', step: 'middle', showSymbol: false, data: b.liveBytes, lineStyle: { width: 1, type: 'dashed' } })),
    ],
  });
  const drawn = data.storages;
  const placement = w.echarts.init(document.getElementById('placement-chart'), null, { renderer: 'canvas' });
  placement.setOption({
    animation: false,
    title: { text: 'Placement: offset by step (one rectangle per storage)', left: 'center' },
    tooltip: {
      formatter: (p: { dataIndex: number }) => {
        const s = drawn[p.dataIndex];
        return `<b>${s.name}</b><br>${fmt(s.bytes)} at offset ${s.offset}<br>steps ${s.birth}–${s.death}<br>made by ${s.producer}<br>last read by ${s.lastReader}`;
      },
    },
    grid: { left: 90, right: 30, top: 50, bottom: 50 },
    xAxis: { type: 'value', min: -0.5, max: Math.max(0, data.liveBytes.length - 0.5), name: 'step', nameLocation: 'middle', nameGap: 30 },
    yAxis: { type: 'value', min: 0, max: Math.max(1, data.arenaBytes), axisLabel: { formatter: (v: number) => fmt(v) } },
    series: [{
      type: 'custom',
      encode: { x: [0, 1], y: [2, 3] },
      data: drawn.map((s) => [s.birth - 0.5, s.death + 0.5, s.offset, s.offset + s.bytes]),
      renderItem: (params: { dataIndex: number }, api: any) => {
        const start = api.coord([api.value(0), api.value(3)]);
        const end = api.coord([api.value(1), api.value(2)]);
        return {
          type: 'rect',
          shape: { x: start[0], y: start[1], width: Math.max(1, end[0] - start[0]), height: Math.max(1, end[1] - start[1]) },
          style: { fill: `hsl(${(params.dataIndex * 47) % 360}, 60%, 60%)`, stroke: '#333', lineWidth: 0.3 },
        };
      },
    }],
  });
  w.tpCharts = [live, placement];
  window.addEventListener('resize', () => { live.resize(); placement.resize(); });
}

/**
 * Renders the memory report as one self-contained HTML page: the data, the
 * charting library and the drawing code are all inlined, so it opens offline.
 *
 * @param data - what to show
 * @param echartsSource - the text of an ECharts build that has the line and custom series: `loadEchartsSource()`
 *
 * @group Files
 */
export function renderReport(data: ReportData, echartsSource: string): string {
  return guarded('renderReport', [data, echartsSource], () => renderChecked(data, echartsSource));
}

function renderChecked(data: ReportData, echartsSource: string): string {
  const errors = schemaErrors(REPORT_DATA_SCHEMA, data);
  if (errors.length > 0) throw new TensorplanError('INVALID_ARGUMENT', `report data: ${describeSchemaError(data, errors)}`);
  if (typeof echartsSource !== 'string') throw new TensorplanError('INVALID_ARGUMENT', `echartsSource = ${shown(echartsSource)}: must be the text of echarts.min.js`);
  const storages = [...data.storages].sort((a, b) => b.bytes - a.bytes).slice(0, MAX_DRAWN_STORAGES);
  const clipped = data.storages.length - storages.length;
  const rows = data.topAtPeak
    .map((c, i) => `<tr><td>${i + 1}</td><td>${escapeHtml(c.name)}</td><td class="num">${formatBytes(c.bytes)}</td>` +
      `<td class="num">${data.peakBytes > 0 ? ((100 * c.bytes) / data.peakBytes).toFixed(1) : '0.0'}%</td>` +
      `<td>${escapeHtml(c.producer)}</td><td>${escapeHtml(c.lastReader)}</td></tr>`)
    .join('\n');
  const ratio = data.lowerBoundBytes > 0 ? (data.arenaBytes / data.lowerBoundBytes).toFixed(4) : 'n/a';
  const baselineRows = data.baselines
    .map((b) => `<li>${escapeHtml(b.name)}: peak ${formatBytes(Math.max(0, ...b.liveBytes))}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>${escapeHtml(data.title)} · tensorplan memory report</title>
<style>
 body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
 .stats { display: flex; gap: 24px; flex-wrap: wrap; margin: 12px 0 20px; }
 .stat { background: #f4f6f8; padding: 8px 14px; border-radius: 6px; }
 .stat b { display: block; font-size: 18px; }
 .chart { width: 100%; height: 380px; margin-bottom: 24px; }
 table { border-collapse: collapse; } td, th { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: left; }
 .num { text-align: right; font-variant-numeric: tabular-nums; }
 footer { color: #777; margin-top: 24px; font-size: 12px; }
</style></head>
<body>
<h1>${escapeHtml(data.title)}</h1>
<div class="stats">
 <div class="stat">peak<b>${formatBytes(data.peakBytes)}</b>at step ${data.peakStep}${data.steps[data.peakStep] ? ` (${escapeHtml(data.steps[data.peakStep])})` : ''}</div>
 <div class="stat">arena<b>${formatBytes(data.arenaBytes)}</b>arena / LB ${ratio}</div>
 <div class="stat">lower bound<b>${formatBytes(data.lowerBoundBytes)}</b>${data.steps.length} steps, ${data.storages.length} storages</div>
</div>
${baselineRows ? `<ul>${baselineRows}</ul>` : ''}
<div id="live-chart" class="chart"></div>
<div id="placement-chart" class="chart"></div>
${clipped > 0 ? `<p>The placement chart shows the ${storages.length} largest storages; ${clipped} smaller ones are not drawn.</p>` : ''}
<h2>Alive at the peak (largest first)</h2>
<table><thead><tr><th>#</th><th>storage</th><th>bytes</th><th>of peak</th><th>made by</th><th>last read by</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<footer>${escapeHtml(data.generatedBy)}</footer>
<script>${echartsSource}</script>
<script>window.TP_REPORT = ${scriptJson({ ...data, storages })};</script>
<script>(${pageScript.toString()})();</script>
</body></html>
`;
}
