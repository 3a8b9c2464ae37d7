// The HTML memory report opens offline in chromium, without console errors,
// and its charts draw something.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { baselineCurves, init, loadEchartsSource, planReportData, renderReport } from '../../dist/index.mjs';
import type { ReportData } from '../../dist/index.mjs';
import { BROWSER_SKIP_REASON, canvasColours, launchChromium } from '../support/chromium';

/** A small synthetic plan: storages stacked per step, enough to exercise every part of the page. */
function syntheticReport(): ReportData {
  const steps = Array.from({ length: 12 }, (_, i) => `op${i}<&>`);
  const storages = Array.from({ length: 20 }, (_, i) => ({
    name: `t${i}`, offset: (i % 5) * 1024, bytes: 1024, birth: i % 10, death: (i % 10) + 2, producer: `op${i % 10}`, lastReader: `op${(i % 10) + 2}`,
  }));
  const liveBytes = steps.map((_, s) => storages.filter((t) => t.birth <= s && s <= t.death).reduce((a, t) => a + t.bytes, 0));
  const peakBytes = Math.max(...liveBytes);
  const peakStep = liveBytes.indexOf(peakBytes);
  return {
    title: 'synthetic <plan>',
    generatedBy: 'tensorplan test',
    steps,
    liveBytes,
    baselines: [{ name: 'given order', liveBytes: liveBytes.map((b) => b + 512) }],
    peakBytes,
    peakStep,
    lowerBoundBytes: peakBytes,
    arenaBytes: 5 * 1024,
    storages,
    topAtPeak: storages.filter((t) => t.birth <= peakStep && peakStep <= t.death).map((t) => ({ name: t.name, bytes: t.bytes, producer: t.producer, lastReader: t.lastReader })),
  };
}

describe('planReportData', () => {
  it('turns a plan into the report: every storage and workspace drawn, the peak and contributors kept', async () => {
    const tp = await init({ backend: 'wasm' });
    const graph = JSON.parse(readFileSync(new URL('../../examples/moe-layer.json', import.meta.url), 'utf8'));
    const plan = tp.plan(graph, { baselines: true });
    const data = planReportData(plan);
    expect(data.storages).toHaveLength(plan.storages.length + plan.workspaces.length);
    expect(data.peakBytes).toBe(plan.statistics.peakBytes);
    expect(data.arenaBytes).toBe(plan.arenaBytes);
    expect(data.topAtPeak.map((c) => c.name)).toEqual(plan.statistics.peakContributors.map((c) => c.storage));
    expect(data.baselines).toHaveLength(7);
    for (const s of data.storages) expect(s.death).toBeLessThan(plan.schedule.length);
    expect(renderReport(data, loadEchartsSource())).toContain('Memory plan of MoE layer');
  });
});

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));

describe('planReportData: categories, groupings, baselines, provenance', () => {
  it.each(['examples/moe-layer.json', 'examples/transformer-block-training.json', 'examples/two-chains.graph.json'])('%s: every split adds up to the plan\'s live bytes at every step', async (file) => {
    const tp = await init({ backend: 'wasm' });
    const graph = read(file);
    const plan = tp.plan(graph, { baselines: true });
    const data = planReportData(plan, { baselineSchedules: baselineCurves(tp, graph, plan) });
    expect(data.groupings!.map((g) => g.by)).toEqual(['category', 'op type']);
    for (const g of data.groupings!) {
      plan.statistics.liveBytes.forEach((live, k) => expect(g.series.reduce((a, s) => a + s.liveBytes[k], 0), `${g.by} at step ${k}`).toBe(live));
    }
    // Baselines are their own schedules: each curve's maximum is the peak the plan reports for it.
    expect(data.baselines.map((b) => b.name).sort()).toEqual(Object.keys(plan.statistics.schedule.baselines).sort());
    for (const b of data.baselines) {
      expect(Math.max(...b.liveBytes), b.name).toBe(plan.statistics.schedule.baselines[b.name]);
      expect(b.steps!.slice().sort(), b.name).toEqual(plan.schedule.slice().sort());
    }
    // Provenance: every arena storage says who made it and why it is alive.
    for (const s of data.storages) {
      expect(s.category).toBeTruthy();
      expect(s.why).toMatch(/read by|graph output|never read|scratch of/);
    }
  });

  it('a layer spec: categories by role and saved flag, splits by layer and role, persistent by kind, TE behaviours as provenance, budget', async () => {
    const tp = await init({ backend: 'wasm' });
    const layers = tp.layerGraph(read('examples/mixtral-moe-tp8sp.layers.json'));
    const plan = tp.plan(layers.graph, { budgetBytes: 2 ** 30 });
    const layerSummary = tp.layerPlanSummary(layers, plan);
    const data = planReportData(plan, { layers, layerSummary, baselineSchedules: baselineCurves(tp, layers.graph, plan) });
    expect(data.groupings!.map((g) => g.by)).toEqual(['category', 'layer', 'role']);
    expect(data.categories!.map((c) => c.name)).toEqual(expect.arrayContaining(['saved for backward', 'gradients', 'transients']));
    for (const g of data.groupings!) {
      expect(g.series.length).toBeLessThanOrEqual(12);
      plan.statistics.liveBytes.forEach((live, k) => expect(g.series.reduce((a, s) => a + s.liveBytes[k], 0), `${g.by} at step ${k}`).toBe(live));
    }
    expect(data.persistentBytes).toBe(plan.statistics.persistentBytes);
    expect(data.persistent!.map((p) => p.name)).toEqual(expect.arrayContaining(['weights', 'optimizer state']));
    // Without baselines asked for, all seven are computed; each curve peaks at what tp.schedule reports for it.
    expect(data.baselines).toHaveLength(7);
    for (const b of data.baselines) expect(Math.max(...b.liveBytes)).toBe(tp.schedule(layers.graph, { method: b.name as never }).peakBytes);
    expect(data.budget).toEqual({ budgetBytes: 2 ** 30, fits: plan.statistics.budget!.fits, headroomBytes: 2 ** 30 - plan.arenaBytes - plan.statistics.persistentBytes });
    expect(data.unmodelled!.join('\n')).toMatch(/CUDA context[\s\S]*NCCL[\s\S]*embeddings[\s\S]*fragmentation/);
    const saved = data.storages.find((s) => s.category === 'saved for backward')!;
    expect(saved.group).toMatch(/^L\d+ · saved /);
    expect(saved.why).toMatch(/^[a-zA-Z]+: /);
    expect(data.storages.some((s) => / Kept past its last reader/.test(s.why ?? ''))).toBe(true);
  });

  it('fast-check: on random layered graphs, the categories add up and baselines peak at their reported peaks', async () => {
    const tp = await init({ backend: 'wasm' });
    const graphOf = (widths: number[], sizes: number[]) => {
      const tensors = [{ name: 'x', bytes: 256 }];
      const ops = [];
      let previous = ['x'];
      widths.forEach((width, layer) => {
        const outs = Array.from({ length: width }, (_, i) => `t${layer}_${i}`);
        outs.forEach((name, i) => {
          tensors.push({ name, bytes: 256 * sizes[(layer + i) % sizes.length] });
          ops.push({ name: `op${layer}_${i}`, op: i % 2 ? 'matmul' : 'add', inputs: [previous[i % previous.length]], outputs: [name], ...(i === 0 ? { workspaceBytes: 512 } : {}) });
        });
        previous = outs;
      });
      return { format: 'tensorplan.graph', version: 1, tensors, ops, inputs: ['x'], outputs: previous } as never;
    };
    await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }), async (widths, sizes) => {
      const graph = graphOf(widths, sizes);
      const plan = tp.plan(graph, { baselines: true });
      const data = planReportData(plan, { baselineSchedules: baselineCurves(tp, graph, plan) });
      plan.statistics.liveBytes.forEach((live, k) => expect(data.categories!.reduce((a, s) => a + s.liveBytes[k], 0)).toBe(live));
      for (const b of data.baselines) expect(Math.max(...b.liveBytes)).toBe(plan.statistics.schedule.baselines[b.name]);
    }), { seed: 19, numRuns: 25 });
  });

  it('refuses malformed options naming the field and the value', async () => {
    const tp = await init({ backend: 'wasm' });
    const plan = tp.plan(read('examples/two-chains.graph.json'));
    expect(() => planReportData(plan, { layers: 7 as never })).toThrow(/options\.layers = 7/);
    expect(() => planReportData(plan, { baselineSchedules: [{ name: 'x', liveBytes: ['a'] }] as never })).toThrow(/options\.baselineSchedules\[0\]\.liveBytes = \["a"\]/);
    expect(() => planReportData(plan, { comparison: { rows: [null] } as never })).toThrow(/options\.comparison\.rows\[0\] = null/);
    expect(() => renderReport({ ...planReportData(plan), budget: { budgetBytes: -1, fits: true, headroomBytes: 0 } }, loadEchartsSource())).toThrow(/budget\.budgetBytes/);
    expect(() => renderReport({ ...planReportData(plan), categories: [{ name: 'x', liveBytes: 'no' }] } as never, loadEchartsSource())).toThrow(/categories\[0\]\.liveBytes/);
  });
});

describe('renderReport', () => {
  it('is one self-contained page that escapes user text', () => {
    const html = renderReport(syntheticReport(), loadEchartsSource());
    expect(html).toContain('<title>synthetic &lt;plan&gt; · tensorplan memory report</title>');
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href=/);
    expect(html).not.toContain('op0<&>');
  });
});

describe.skipIf(BROWSER_SKIP_REASON !== '')(`report in chromium${BROWSER_SKIP_REASON ? ` (skipped: ${BROWSER_SKIP_REASON})` : ''}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('loads without console errors or network requests, and both charts draw', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-report-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderReport(syntheticReport(), loadEchartsSource()));
    const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    const problems: string[] = [];
    page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
    page.on('pageerror', (error) => problems.push(String(error)));
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`file://${file}`);
    await page.waitForFunction(() => Array.isArray((window as unknown as { tpCharts?: unknown[] }).tpCharts));
    expect(problems).toEqual([]);
    expect(requests).toEqual([`file://${file}`]);
    for (const id of ['live-chart', 'placement-chart']) {
      const shot = await page.locator(`#${id}`).screenshot();
      writeFileSync(join(dir, `${id}.png`), shot);
      // A blank chart compresses to almost nothing; drawn axes, lines and rectangles do not.
      expect(shot.length, id).toBeGreaterThan(8_000);
      const colours = await canvasColours(page, id, 97);
      expect(colours, id).toBeGreaterThan(5);
    }
    await page.close();
  });
});
