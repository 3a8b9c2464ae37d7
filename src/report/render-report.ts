import { formatFixedBytes } from '../bytes-text.js';
import { TensorplanError, guarded, shown } from '../errors.js';
import { describeSchemaError, schemaErrors } from '../graph/parse-graph.js';
import type { ReportData } from './report-data.js';
import { REPORT_DATA_SCHEMA } from './report-schema.js';

/**
 * The report embeds at most this many storages (largest first) to stay responsive; the tables list them all.
 *
 * @group Files
 */
export const MAX_DRAWN_STORAGES = 20_000;

/**
 * The placement view draws at most this many rectangles (largest first) and says so on the page:
 * past a few thousand, canvas hit-testing makes hover and zoom lag, and the smallest rectangles
 * are narrower than a pixel anyway.
 */
const MAX_PLACED_RECTANGLES = 4_000;

/** Groups per page and rows per page in the storage tables: the DOM stays small at 10^4 storages. */
const GROUPS_PER_PAGE = 25;
const ROWS_PER_PAGE = 50;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON that is safe inside a <script> element. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/**
 * Runs in the page: the timeline, the placement view, the compare chart and the
 * paged tables, from the embedded data. Self-contained (it is inlined as text):
 * no imports, user text only through textContent or esc().
 */
function pageScript(limits: { placed: number; groupsPerPage: number; rowsPerPage: number }): void {
  type Series = { name: string; liveBytes: number[]; steps?: string[]; peakBytes?: number };
  type Storage = ReportData['storages'][number];
  type Win = { echarts: any; TP_REPORT: ReportData; tpCharts: any[]; tpTables: Record<string, number> };
  const w = window as unknown as Win;
  const data = w.TP_REPORT;
  const fmt = (b: number): string => {
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = Math.abs(b);
    let i = 0;
    while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return i === 0 ? `${b} B` : `${b < 0 ? '-' : ''}${v.toFixed(2)} ${u[i]}`;
  };
  const esc = (t: string): string => String(t).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const short = (t: string, n: number): string => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
  // Fixed colours for the categories (the same words as the trace's counter), a palette for other splits.
  const COLOURS: Record<string, string> = {
    'saved for backward': '#4e79a7', gradients: '#e15759', transients: '#f28e2b', 'graph inputs': '#76b7b2',
    activations: '#59a14f', 'op workspaces': '#edc948', weights: '#9c755f', 'master weights': '#c9a27e',
    'optimizer state': '#b07aa1', 'quantized weight cache': '#ff9da7', 'persistent (weights, state)': '#9c755f',
    'external I/O': '#d4a6c8', 'other persistent': '#bab0ac',
  };
  const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#86bcb6', '#d37295', '#a0cbe8'];
  const colourOf = (name: string, i: number, byCategory: boolean): string => (byCategory && COLOURS[name]) || PALETTE[i % PALETTE.length];
  const steps = data.steps;
  const persistent = data.persistent ?? [];
  const persistentTotal = persistent.reduce((a, p) => a + p.bytes, 0);
  const groupings = data.groupings ?? [];
  const splitFor = (by: string): Series[] =>
    groupings.find((g) => g.by === by)?.series ?? data.categories ?? [{ name: 'live bytes', liveBytes: data.liveBytes }];

  // The timeline: persistent bands at the bottom (when shown), the arena's live bytes stacked by the split above them.
  const live = w.echarts.init(document.getElementById('live-chart'), null, { renderer: 'canvas' });
  const timeline = (by: string, withPersistent: boolean) => {
    const base = withPersistent ? persistentTotal : 0;
    const flat = (y: number) => steps.map(() => y);
    const band = (name: string, values: number[], colour: string) => ({
      name, type: 'line', stack: 'live', step: 'middle', showSymbol: false, data: values, color: colour,
      lineStyle: { width: 0 }, areaStyle: { opacity: 0.9 }, emphasis: { disabled: true },
    });
    const series: any[] = [
      ...(withPersistent ? persistent.map((p) => band(`persistent: ${p.name}`, flat(p.bytes), COLOURS[p.name] ?? '#bab0ac')) : []),
      ...splitFor(by).map((s, i) => band(s.name, s.liveBytes, colourOf(s.name, i, by === 'category'))),
      {
        name: 'lower bound', type: 'line', showSymbol: false, data: flat(base + data.lowerBoundBytes), color: '#111',
        lineStyle: { width: 1.5, type: 'dashed' },
        markPoint: { symbolSize: 44, data: [{ coord: [data.peakStep, base + data.peakBytes], value: 'peak', name: 'peak' }] },
      },
      ...data.baselines.map((b, i) => ({
        name: `baseline ${b.name}`, type: 'line', showSymbol: false, data: b.liveBytes.map((x) => x + base),
        color: ['#555', '#8c564b', '#7f7f7f', '#bcbd22', '#17becf', '#9467bd', '#d62728'][i % 7], lineStyle: { width: 1.2, type: 'dotted' },
      })),
    ];
    if (data.budget) {
      // The budget covers arena + persistent: without the persistent bands, what the arena may use is the budget less them.
      const limit = withPersistent ? data.budget.budgetBytes : data.budget.budgetBytes - persistentTotal;
      series.push({ name: withPersistent ? 'budget' : 'budget − persistent', type: 'line', showSymbol: false, data: flat(limit), color: data.budget.fits ? '#2a7d2a' : '#c00', lineStyle: { width: 2 } });
    }
    live.setOption({
      animation: false,
      title: { text: `Live bytes per step, by ${by}${withPersistent ? ', over the persistent memory' : ' (arena only)'}`, left: 'center', textStyle: { fontSize: 14 } },
      tooltip: {
        trigger: 'axis', confine: true, axisPointer: { type: 'line' },
        formatter: (params: { dataIndex: number; seriesName: string; value: number; color: string }[]) => {
          const k = params[0]?.dataIndex ?? 0;
          const rows = params
            .filter((p) => p.value !== 0 && !p.seriesName.startsWith('baseline'))
            .map((p) => `<span style="color:${p.color}">■</span> ${esc(p.seriesName)}: ${fmt(p.value)}`);
          const others = data.baselines.map((b) => `${esc(b.name)}: ${fmt(b.liveBytes[k] ?? 0)}${b.steps ? ` (runs ${esc(short(b.steps[k] ?? '', 40))})` : ''}`);
          return `<b>step ${k}: ${esc(steps[k] ?? '')}</b><br>live (arena): ${fmt(data.liveBytes[k] ?? 0)}<br>${rows.join('<br>')}`
            + (others.length ? `<br><i>baselines at step ${k}:</i><br>${others.join('<br>')}` : '');
        },
      },
      legend: { type: 'scroll', top: 24 },
      grid: { left: 90, right: 30, top: 64, bottom: 130 },
      xAxis: {
        type: 'category', data: steps.map((op, k) => `${k} ${op}`), name: 'step: op', nameLocation: 'end',
        // ONNX names are paths (`/features/features.0/Conv`): the last part tells ops apart, the shared prefix does not.
        axisLabel: { rotate: 35, fontSize: 10, formatter: (v: string) => { const at = v.indexOf(' '); return `${v.slice(0, at)} ${short(v.slice(at + 1).split('/').pop() ?? '', 22)}`; } },
      },
      yAxis: { type: 'value', axisLabel: { formatter: (v: number) => fmt(v) } },
      dataZoom: [{ type: 'inside', xAxisIndex: 0 }, { type: 'slider', xAxisIndex: 0, bottom: 8, height: 18 }],
      series,
    }, true);
  };
  const splitSelect = document.getElementById('split-by') as HTMLSelectElement;
  const withPersistent = document.getElementById('with-persistent') as HTMLInputElement;
  const redraw = () => timeline(splitSelect.value, withPersistent.checked);
  splitSelect.addEventListener('change', redraw);
  withPersistent.addEventListener('change', redraw);
  redraw();

  // The placement view: one rectangle per storage (largest first, at most limits.placed), one series per category for the legend.
  const drawn: Storage[] = [...data.storages].sort((a, b) => b.bytes - a.bytes).slice(0, limits.placed);
  const categories = [...new Set(drawn.map((s) => s.category ?? 'storages'))];
  const placement = w.echarts.init(document.getElementById('placement-chart'), null, { renderer: 'canvas' });
  placement.setOption({
    animation: false,
    title: { text: 'Placement: arena offset by step (one rectangle per storage), coloured by category', left: 'center', textStyle: { fontSize: 14 } },
    tooltip: {
      trigger: 'item', confine: true,
      formatter: (p: { value: number[] }) => {
        const s = drawn[p.value[4]];
        return `<b>${esc(short(s.name, 120))}</b><br>${fmt(s.bytes)} at offset ${fmt(s.offset)}<br>steps ${s.birth}–${s.death} (${esc(short(steps[s.birth] ?? '', 50))} – ${esc(short(steps[s.death] ?? '', 50))})`
          + `<br>category: ${esc(s.category ?? '')}${s.group ? ` · ${esc(s.group)}` : ''}<br>made by ${esc(s.producer)}<br>last read by ${esc(s.lastReader)}`
          + (s.why ? `<br><span style="display:inline-block;max-width:520px;white-space:normal">why alive: ${esc(s.why)}</span>` : '');
      },
    },
    legend: { type: 'scroll', top: 24 },
    grid: { left: 90, right: 30, top: 64, bottom: 60 },
    xAxis: { type: 'value', min: -0.5, max: Math.max(0, steps.length - 0.5), name: 'step', nameLocation: 'middle', nameGap: 26 },
    yAxis: { type: 'value', min: 0, max: Math.max(1, data.arenaBytes), axisLabel: { formatter: (v: number) => fmt(v) } },
    dataZoom: [
      { type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter' }, { type: 'inside', yAxisIndex: 0, filterMode: 'weakFilter' },
      { type: 'slider', xAxisIndex: 0, bottom: 8, height: 18, filterMode: 'weakFilter' },
    ],
    series: categories.map((category, c) => ({
      name: category, type: 'custom', color: colourOf(category, c, true),
      encode: { x: [0, 1], y: [2, 3], tooltip: [] },
      data: drawn.map((s, i) => [s.birth - 0.5, s.death + 0.5, s.offset, s.offset + s.bytes, i]).filter((_, i) => (drawn[i].category ?? 'storages') === category),
      renderItem: (_params: unknown, api: any) => {
        const start = api.coord([api.value(0), api.value(3)]);
        const end = api.coord([api.value(1), api.value(2)]);
        return {
          type: 'rect',
          shape: { x: start[0], y: start[1], width: Math.max(1, end[0] - start[0]), height: Math.max(1, end[1] - start[1]) },
          style: { fill: api.visual('color'), stroke: 'rgba(0,0,0,0.35)', lineWidth: 0.3 },
        };
      },
    })),
  });
  const charts = [live, placement];

  // --compare: each alternative's device total (persistent + arena peak) and the roles whose bytes at the peak change.
  const alternatives = data.alternatives ?? [];
  const compareDom = document.getElementById('compare-chart');
  if (compareDom && alternatives.length > 0) {
    const compare = w.echarts.init(compareDom, null, { renderer: 'canvas' });
    compare.setOption({
      animation: false,
      title: { text: 'Alternatives: persistent + peak of the arena (device total)', left: 'center', textStyle: { fontSize: 14 } },
      tooltip: {
        trigger: 'axis', confine: true, axisPointer: { type: 'shadow' },
        formatter: (params: { dataIndex: number }[]) => {
          const a = alternatives[params[0].dataIndex];
          const roles = a.roles.slice(0, 6).map((r) => `${esc(r.name)}: ${r.bytes > 0 ? '+' : ''}${fmt(r.bytes)}`);
          return `<b>${esc(a.label)}</b><br>peak ${fmt(a.peakBytes)}, persistent ${fmt(a.persistentBytes)}, total ${fmt(a.totalBytes)}`
            + (a.label === 'base' ? '' : `<br>Δ peak ${a.deltaPeakBytes > 0 ? '+' : ''}${fmt(a.deltaPeakBytes)}, Δ total ${a.deltaTotalBytes > 0 ? '+' : ''}${fmt(a.deltaTotalBytes)}<br>${roles.join('<br>')}`);
        },
      },
      legend: { top: 24 },
      grid: { left: 90, right: 30, top: 64, bottom: 60 },
      xAxis: { type: 'category', data: alternatives.map((a) => a.label), axisLabel: { interval: 0, formatter: (v: string) => short(v, 26) } },
      yAxis: { type: 'value', axisLabel: { formatter: (v: number) => fmt(v) } },
      series: [
        { name: 'persistent', type: 'bar', stack: 'total', data: alternatives.map((a) => a.persistentBytes), color: '#9c755f' },
        {
          name: 'arena peak', type: 'bar', stack: 'total', data: alternatives.map((a) => a.peakBytes), color: '#4e79a7',
          label: { show: true, position: 'top', formatter: (p: { dataIndex: number }) => fmt(alternatives[p.dataIndex].totalBytes) },
        },
        ...(data.budget ? [{ name: 'budget', type: 'line', data: alternatives.map(() => data.budget!.budgetBytes), color: '#c00', showSymbol: false, lineStyle: { width: 2 } }] : []),
      ],
    });
    charts.push(compare);
  }
  w.tpCharts = charts;
  window.addEventListener('resize', () => charts.forEach((c) => c.resize()));

  // Tables: storages grouped (layer · role, or the producer's op type), groups largest first, collapsible and paged.
  const el = (tag: string, text?: string, cls?: string): HTMLElement => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  const pager = (page: number, pages: number, go: (p: number) => void): HTMLElement => {
    const nav = el('div', undefined, 'pager');
    const prev = el('button', '‹ previous') as HTMLButtonElement;
    const next = el('button', 'next ›') as HTMLButtonElement;
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
    prev.onclick = () => go(page - 1);
    next.onclick = () => go(page + 1);
    nav.append(prev, el('span', ` page ${page + 1} of ${pages} `), next);
    return nav;
  };
  const storageRows = (rows: Storage[], total: number): HTMLElement => {
    const box = el('div');
    const show = (page: number) => {
      box.replaceChildren();
      const table = el('table');
      const head = el('tr');
      for (const h of ['storage', 'bytes', total > 0 ? 'of peak' : 'steps', 'category', 'made by', 'last read by', 'why alive']) head.append(el('th', h));
      table.append(head);
      for (const s of rows.slice(page * limits.rowsPerPage, (page + 1) * limits.rowsPerPage)) {
        const tr = el('tr', undefined, 'row');
        tr.append(el('td', short(s.name, 80)), el('td', fmt(s.bytes), 'num'),
          el('td', total > 0 ? `${((100 * s.bytes) / total).toFixed(1)}%` : `${s.birth}–${s.death}`, 'num'),
          el('td', s.category ?? ''), el('td', s.producer), el('td', s.lastReader), el('td', s.why ?? '', 'why'));
        tr.title = s.name;
        table.append(tr);
      }
      const pages = Math.ceil(rows.length / limits.rowsPerPage);
      box.append(table);
      if (pages > 1) box.append(pager(page, pages, show));
    };
    show(0);
    return box;
  };
  const groupedTable = (id: string, rows: Storage[], total: number) => {
    const root = document.getElementById(id);
    if (!root) return;
    const groups = new Map<string, Storage[]>();
    for (const s of rows) {
      const key = s.group ?? s.category ?? 'storages';
      const list = groups.get(key) ?? [];
      list.push(s);
      groups.set(key, list);
    }
    const sizeOf = (list: Storage[]) => list.reduce((a, s) => a + s.bytes, 0);
    const ordered = [...groups.entries()].map(([key, list]) => ({ key, list: list.sort((a, b) => b.bytes - a.bytes), bytes: sizeOf(list) }))
      .sort((a, b) => b.bytes - a.bytes);
    const show = (page: number) => {
      root.replaceChildren();
      root.append(el('p', `${rows.length} storages in ${ordered.length} groups, largest group first; open a group to list its storages (${limits.rowsPerPage} a page).`, 'note'));
      for (const g of ordered.slice(page * limits.groupsPerPage, (page + 1) * limits.groupsPerPage)) {
        const details = el('details') as HTMLDetailsElement;
        const summary = el('summary');
        summary.append(el('b', g.key), el('span', ` ${fmt(g.bytes)}${total > 0 ? ` (${((100 * g.bytes) / total).toFixed(1)}% of peak)` : ''}, ${g.list.length} storage${g.list.length === 1 ? '' : 's'}`));
        details.append(summary);
        details.addEventListener('toggle', () => {
          if (details.open && details.children.length === 1) details.append(storageRows(g.list, total));
        });
        root.append(details);
      }
      const pages = Math.ceil(ordered.length / limits.groupsPerPage);
      if (pages > 1) root.append(pager(page, pages, show));
      // The first group opens by itself: the largest share of memory is what a reader looks for first.
      const first = root.querySelector('details') as HTMLDetailsElement | null;
      if (first && page === 0) first.open = true;
    };
    show(0);
  };
  const atPeak = data.storages.filter((s) => s.birth <= data.peakStep && data.peakStep <= s.death);
  groupedTable('peak-table', atPeak, data.peakBytes);
  groupedTable('all-table', data.storages, 0);
}

/**
 * Renders the memory report as one self-contained HTML page: the data, the
 * charting library and the drawing code are all inlined, so it opens offline.
 * It shows summary cards (peak, arena, lower bound, persistent memory, the
 * budget's verdict and headroom, what the plan does not model), a stacked
 * timeline of live bytes by category (or layer, role, op type) with the budget,
 * the lower bound and the baselines' curves, a placement view coloured by
 * category, the alternatives of `--compare`, and paged tables of the storages
 * grouped by layer and role or by op type.
 *
 * @param data - what to show (`planReportData(plan, options)`)
 * @param echartsSource - the text of an ECharts build that has the line, bar and custom series and data zoom: `loadEchartsSource()`
 *
 * @group Files
 */
export function renderReport(data: ReportData, echartsSource: string): string {
  return guarded('renderReport', [data, echartsSource], () => renderChecked(data, echartsSource));
}

/** One summary card: a label, a big figure, a line under it (all HTML-escaped by the caller). */
const card = (label: string, figure: string, note: string, cls = ''): string =>
  `<div class="card ${cls}"><span>${label}</span><b>${figure}</b><small>${note}</small></div>`;

function renderChecked(data: ReportData, echartsSource: string): string {
  const errors = schemaErrors(REPORT_DATA_SCHEMA, data);
  if (errors.length > 0) throw new TensorplanError('INVALID_ARGUMENT', `report data: ${describeSchemaError(data, errors)}`);
  if (typeof echartsSource !== 'string') throw new TensorplanError('INVALID_ARGUMENT', `echartsSource = ${shown(echartsSource)}: must be the text of echarts.min.js`);
  if (data.peakStep >= Math.max(1, data.steps.length) && data.steps.length > 0) {
    throw new TensorplanError('INVALID_ARGUMENT', `report data: peakStep = ${data.peakStep}: must be below the step count ${data.steps.length}`);
  }
  const storages = [...data.storages].sort((a, b) => b.bytes - a.bytes).slice(0, MAX_DRAWN_STORAGES);
  const clipped = data.storages.length - storages.length;
  const placed = Math.min(storages.length, MAX_PLACED_RECTANGLES);
  const ratio = data.lowerBoundBytes > 0 ? (data.arenaBytes / data.lowerBoundBytes).toFixed(4) : 'n/a';
  const persistent = data.persistent ?? [];
  const persistentBytes = data.persistentBytes ?? persistent.reduce((a, p) => a + p.bytes, 0);
  const peakOp = data.steps[data.peakStep];
  const budget = data.budget;
  const cards = [
    card('peak (arena)', formatFixedBytes(data.peakBytes), `at step ${data.peakStep}${peakOp ? `: ${escapeHtml(peakOp.length > 60 ? `${peakOp.slice(0, 59)}…` : peakOp)}` : ''}`),
    card('arena', formatFixedBytes(data.arenaBytes), `arena / lower bound = ${ratio}`),
    card('lower bound', formatFixedBytes(data.lowerBoundBytes), 'no op order and placement can need less'),
    card('persistent memory', formatFixedBytes(persistentBytes),
      persistent.length > 0 ? persistent.map((p) => `${escapeHtml(p.name)} ${formatFixedBytes(p.bytes)}`).join('<br>') : 'weights and state outside the arena'),
    card('device total', formatFixedBytes(data.arenaBytes + persistentBytes), 'arena + persistent'),
    ...(budget ? [card(`budget ${formatFixedBytes(budget.budgetBytes)}`, budget.fits ? 'fits' : 'does not fit',
      budget.fits ? `headroom ${formatFixedBytes(budget.headroomBytes)}` : `over by ${formatFixedBytes(-budget.headroomBytes)}`, budget.fits ? 'fits' : 'over')] : []),
  ].join('\n');
  const unmodelled = data.unmodelled ?? [];
  const splits = (data.groupings ?? []).map((g) => g.by);
  const splitOptions = (splits.length > 0 ? splits : ['category']).map((by) => `<option value="${escapeHtml(by)}">${escapeHtml(by)}</option>`).join('');
  const baselineList = data.baselines
    .map((b) => `<li>${escapeHtml(b.name)}: peak ${formatFixedBytes(b.peakBytes ?? Math.max(0, ...b.liveBytes))}${b.steps ? ' (its own op order)' : ''}</li>`).join('');
  const alternatives = data.alternatives ?? [];
  const roleNames = [...new Set(alternatives.flatMap((a) => a.roles.slice(0, 8).map((r) => r.name)))].slice(0, 12);
  const compareTable = alternatives.length > 1 ? `<table><tr><th>Δ bytes at the peak, by role</th>${alternatives.slice(1).map((a) => `<th>${escapeHtml(a.label)}</th>`).join('')}</tr>
${roleNames.map((role) => `<tr><td>${escapeHtml(role)}</td>${alternatives.slice(1).map((a) => {
    const bytes = a.roles.find((r) => r.name === role)?.bytes ?? 0;
    return `<td class="num">${bytes === 0 ? '0' : `${bytes > 0 ? '+' : ''}${formatFixedBytes(bytes)}`}</td>`;
  }).join('')}</tr>`).join('\n')}</table>
<ul>${alternatives.slice(1).map((a) => `<li>${escapeHtml(a.explanation)}</li>`).join('')}</ul>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>${escapeHtml(data.title)} · tensorplan memory report</title>
<style>
 body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1500px; }
 h1 { margin-bottom: 4px; } .sub { color: #666; margin-top: 0; }
 .cards { display: flex; gap: 14px; flex-wrap: wrap; margin: 12px 0 16px; }
 .card { background: #f4f6f8; padding: 8px 14px; border-radius: 6px; min-width: 150px; }
 .card span { color: #555; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
 .card b { display: block; font-size: 20px; } .card small { color: #555; display: block; }
 .card.fits { background: #e6f4e6; } .card.over { background: #fbe3e3; }
 .unmodelled { background: #fff8e1; border-left: 4px solid #e0b000; padding: 6px 12px; margin-bottom: 16px; }
 .unmodelled ul { margin: 4px 0; }
 .controls { margin: 8px 0; } .controls label { margin-right: 18px; }
 .chart { width: 100%; height: 460px; margin-bottom: 12px; }
 table { border-collapse: collapse; margin: 6px 0; } td, th { padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
 td.why { max-width: 560px; color: #444; font-size: 12px; }
 .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
 details { margin: 2px 0; } summary { cursor: pointer; padding: 2px 0; }
 .pager { margin: 6px 0; } .pager button { margin: 0 4px; }
 .note { color: #666; font-size: 13px; }
 footer { color: #777; margin-top: 24px; font-size: 12px; }
</style></head>
<body>
<h1>${escapeHtml(data.title)}</h1>
<p class="sub">${data.steps.length} steps, ${data.storages.length} storages and workspaces</p>
<div class="cards">
${cards}
</div>
${unmodelled.length > 0 ? `<div class="unmodelled"><b>Not modelled</b> (the device needs these on top of the figures above):<ul>${unmodelled.map((u) => `<li>${escapeHtml(u)}</li>`).join('')}</ul></div>` : ''}
<h2>What fills the memory, step by step</h2>
<div class="controls">
 <label>split the arena by <select id="split-by">${splitOptions}</select></label>
 <label><input type="checkbox" id="with-persistent"${persistentBytes > 0 ? ' checked' : ''}> stack the persistent memory under the arena</label>
 <span class="note">wheel or drag on a chart to zoom and pan; the slider below it too</span>
</div>
<div id="live-chart" class="chart"></div>
${baselineList ? `<p class="note">Baselines (dotted), measured in the same run:</p><ul class="note">${baselineList}</ul>` : ''}
<h2>Where each storage lives</h2>
<div id="placement-chart" class="chart"></div>
<p class="note">${placed < data.storages.length ? `The placement view draws the ${placed} largest of ${data.storages.length} storages; the tables below list ${clipped > 0 ? `the ${storages.length} largest` : 'every one'}.` : `Every storage is drawn (${placed}).`}</p>
${alternatives.length > 0 ? `<h2>Alternatives (--compare)</h2>\n<div id="compare-chart" class="chart"></div>\n${compareTable}` : ''}
<h2>Alive at the peak (step ${data.peakStep}), by ${data.storages.some((s) => s.group?.includes(' · ')) ? 'layer and role' : 'producer op type'}</h2>
<div id="peak-table"></div>
<h2>Every storage, by ${data.storages.some((s) => s.group?.includes(' · ')) ? 'layer and role' : 'producer op type'}</h2>
<div id="all-table"></div>
<footer>${escapeHtml(data.generatedBy)}</footer>
<script>${echartsSource}</script>
<script>window.TP_REPORT = ${scriptJson({ ...data, storages })};</script>
<script>(${pageScript.toString()})(${JSON.stringify({ placed: MAX_PLACED_RECTANGLES, groupsPerPage: GROUPS_PER_PAGE, rowsPerPage: ROWS_PER_PAGE })});</script>
</body></html>
`;
}
