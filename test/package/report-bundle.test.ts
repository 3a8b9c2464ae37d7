// The report inlines a minimal ECharts (src/report/echarts-minimal.ts ->
// dist/echarts-report.min.js) instead of the 62 MB echarts package. A series
// type or component left out of that build is not an error in ECharts'
// production build: it is silently not drawn. So every one the report's page
// script asks for is checked here, in chromium, on the charts the page made.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEchartsSource, renderReport } from '../../dist/index.mjs';
import type { ReportData } from '../../dist/index.mjs';
import { BROWSER_SKIP_REASON, launchChromium } from '../support/chromium';

const root = new URL('../../', import.meta.url);

function report(): ReportData {
  const storages = [
    { name: 'a', offset: 0, bytes: 1024, birth: 0, death: 2, producer: 'op0', lastReader: 'op2' },
    { name: 'b', offset: 1024, bytes: 2048, birth: 1, death: 3, producer: 'op1', lastReader: 'op3' },
  ];
  const liveBytes = [1024, 3072, 3072, 2048];
  return {
    title: 'bundle check', generatedBy: 'tensorplan test', steps: ['op0', 'op1', 'op2', 'op3'], liveBytes,
    baselines: [{ name: 'given order', liveBytes: liveBytes.map((b) => b + 512) }],
    peakBytes: 3072, peakStep: 1, lowerBoundBytes: 3072, arenaBytes: 3072, storages,
    topAtPeak: storages.map((t) => ({ name: t.name, bytes: t.bytes, producer: t.producer, lastReader: t.lastReader })),
    alternatives: [
      { label: 'base', peakBytes: 3072, persistentBytes: 0, totalBytes: 3072, deltaPeakBytes: 0, deltaTotalBytes: 0, roles: [], explanation: '' },
      { label: 'x=1', peakBytes: 2048, persistentBytes: 0, totalBytes: 2048, deltaPeakBytes: -1024, deltaTotalBytes: -1024, roles: [{ name: 'saved activation', bytes: -1024 }], explanation: 'x=1: peak -1 KiB' },
    ],
  };
}

describe('the inlined ECharts', () => {
  it('is the minimal build in dist, well under the full echarts.min.js', () => {
    const source = loadEchartsSource();
    expect(source).toBe(readFileSync(new URL('dist/echarts-report.min.js', root), 'utf8'));
    const full = statSync(createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js')).size;
    expect(source.length).toBeLessThan(full * 0.6);
    expect(source).not.toContain('process.env');
  });
});

describe.skipIf(BROWSER_SKIP_REASON !== '')(`the inlined ECharts in chromium${BROWSER_SKIP_REASON ? ` (skipped: ${BROWSER_SKIP_REASON})` : ''}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('has every series type and component the report uses, each made into a model', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tp-report-bundle-')), 'report.html');
    writeFileSync(file, renderReport(report(), loadEchartsSource()));
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text()); });
    await page.goto(`file://${file}`);
    await page.waitForFunction(() => Array.isArray((window as unknown as { tpCharts?: unknown[] }).tpCharts));
    const models = await page.evaluate(() => {
      type Model = { getSeries(): { subType: string }[]; getComponent(mainType: string): unknown };
      const charts = (window as unknown as { tpCharts: { getModel(): Model }[] }).tpCharts;
      const components = ['title', 'tooltip', 'legend', 'grid', 'xAxis', 'yAxis', 'markPoint', 'markLine', 'axisPointer', 'dataZoom'];
      return charts.map((chart) => ({
        series: chart.getModel().getSeries().map((s) => s.subType),
        components: components.filter((name) => chart.getModel().getComponent(name) != null),
      }));
    });
    expect(problems).toEqual([]);
    // The timeline: one stacked band (no categories given), the lower bound with the peak mark, the baseline; zoom on both charts.
    expect(models[0]).toEqual({ series: ['line', 'line', 'line'], components: ['title', 'tooltip', 'legend', 'grid', 'xAxis', 'yAxis', 'markPoint', 'axisPointer', 'dataZoom'] });
    expect(models[1]).toEqual({ series: ['custom'], components: ['title', 'tooltip', 'legend', 'grid', 'xAxis', 'yAxis', 'axisPointer', 'dataZoom'] });
    // --compare: stacked bars.
    expect(models[2].series).toEqual(['bar', 'bar']);
    await page.close();
  });
});
