// The HTML memory report opens offline in chromium, without console errors,
// and its charts draw something.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { init, loadEchartsSource, planReportData, renderReport } from '../../dist/index.mjs';
import type { ReportData } from '../../dist/index.mjs';
import { BROWSER_SKIP_REASON, launchChromium } from '../support/chromium';

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
      const colours = await page.evaluate((chartId) => {
        const canvas = document.querySelector(`#${chartId} canvas`) as HTMLCanvasElement;
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        const seen = new Set<number>();
        for (let i = 0; i < pixels.length; i += 4 * 97) seen.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
        return seen.size;
      }, id);
      expect(colours, id).toBeGreaterThan(5);
    }
    await page.close();
  });
});
