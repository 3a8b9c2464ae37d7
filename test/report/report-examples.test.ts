// The example reports in chromium: a dense layer spec with a
// budget, an MoE spec with --compare (both through the CLI), an ONNX model, a
// graph file, and a plan with 10^4 storages. Each opens offline without
// console errors or network requests, every chart draws, hovering the
// timeline shows the op name and hovering the placement view the storage's
// provenance, and the tables keep the DOM small.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineCurves, init, loadEchartsSource, planReportData, renderReport } from '../../dist/index.mjs';
import type { GraphDocument } from '../../dist/index.mjs';
import { BROWSER_SKIP_REASON, canvasColours, launchChromium } from '../support/chromium';

const bin = new URL('../../bin/tensorplan.mjs', import.meta.url).pathname;
const path = (p: string) => new URL(`../../${p}`, import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'tp-report-examples-'));

/** `tensorplan plan FILE --report`: the HTML file. */
function cliReport(tag: string, file: string, args: string[]): string {
  const html = join(dir, `${tag}.html`);
  const out = spawnSync(process.execPath, [bin, 'plan', path(file), '--report', html, '--backend', 'wasm', ...args], { encoding: 'utf8' });
  expect(out.status, out.stderr).toBe(0);
  expect(out.stdout).toContain(`report written to ${html}`);
  return html;
}

/** A chain of `n` ops, each output also read three steps later: n storages, a few alive at once. */
function bigGraph(n: number): GraphDocument {
  const tensors = [{ name: 'x', bytes: 4096 }, ...Array.from({ length: n }, (_, i) => ({ name: `t${i}`, bytes: 4096 * (1 + (i % 7)) }))];
  const ops = Array.from({ length: n }, (_, i) => ({
    name: `op${i}`, op: ['matmul', 'add', 'relu'][i % 3], inputs: i === 0 ? ['x'] : [`t${i - 1}`, ...(i >= 3 ? [`t${i - 3}`] : [])], outputs: [`t${i}`],
  }));
  return { format: 'tensorplan.graph', version: 1, name: 'chain of 10^4', tensors, ops, inputs: ['x'], outputs: [`t${n - 1}`] };
}

/** A report rendered through the API, with baseline curves. */
async function apiReport(tag: string, graph: GraphDocument): Promise<string> {
  const tp = await init({ backend: 'wasm' });
  const plan = tp.plan(graph);
  const html = join(dir, `${tag}.html`);
  writeFileSync(html, renderReport(planReportData(plan, { title: tag, baselineSchedules: baselineCurves(tp, graph, plan) }), loadEchartsSource()));
  return html;
}

describe.skipIf(BROWSER_SKIP_REASON !== '')(`example reports in chromium${BROWSER_SKIP_REASON ? ` (skipped: ${BROWSER_SKIP_REASON})` : ''}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Opens a report, failing on console errors and on any request but the page itself. */
  async function open(file: string): Promise<{ page: Page; problems: string[]; requests: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('request', (request) => requests.push(request.url()));
    await page.route((url) => url.href !== `file://${file}`, (route) => route.abort());
    await page.goto(`file://${file}`);
    await page.waitForFunction(() => Array.isArray((window as unknown as { tpCharts?: unknown[] }).tpCharts));
    return { page, problems, requests };
  }

  /** Distinct colours in a chart's canvas (every 31st pixel): a blank or axes-only chart has few. */
  const colours = (page: Page, id: string) => canvasColours(page, id, 31);

  /** Moves the mouse onto a data point of chart `chart` and returns the chart's text (its tooltip). */
  async function hover(page: Page, chart: number, point: number[], seriesIndex: number): Promise<string> {
    const ids = ['#live-chart', '#placement-chart', '#compare-chart'];
    await page.locator(ids[chart]).scrollIntoViewIfNeeded();
    const xy = await page.evaluate(({ c, p, s }) => (window as any).tpCharts[c].convertToPixel({ seriesIndex: s }, p), { c: chart, p: point, s: seriesIndex });
    const box = (await page.locator(ids[chart]).boundingBox())!;
    await page.mouse.move(box.x + xy[0], box.y + xy[1]);
    await page.waitForTimeout(250);
    return page.locator(ids[chart]).innerText();
  }

  /** Where the largest drawn storage is in the placement view: its series and its centre. */
  const largest = (page: Page) => page.evaluate(() => {
    const series = (window as any).tpCharts[1].getOption().series as { data: number[][] }[];
    for (let i = 0; i < series.length; i++) {
      const p = series[i].data.find((d) => d[4] === 0);
      if (p) return { seriesIndex: i, point: [(p[0] + p[1]) / 2, (p[2] + p[3]) / 2] };
    }
    throw new Error('no rectangle drawn');
  });

  async function checkReport(file: string, expectCharts: string[]) {
    const { page, problems, requests } = await open(file);
    for (const id of expectCharts) expect(await colours(page, id), id).toBeGreaterThan(8);
    const data = await page.evaluate(() => (window as any).TP_REPORT);
    // Timeline: the tooltip near the peak names the step's op (at 10^4 steps a pixel spans several).
    const timeline = await hover(page, 0, [data.peakStep, data.peakBytes / 3], 0);
    const [, step, op] = /step (\d+): (.+)/.exec(timeline) ?? [];
    expect(op, timeline).toBe(data.steps[Number(step)]);
    expect(Math.abs(Number(step) - data.peakStep)).toBeLessThanOrEqual(Math.max(1, data.steps.length / 500));
    // Placement: the tooltip of the largest storage gives its provenance.
    await page.locator('#placement-chart').scrollIntoViewIfNeeded();
    const target = await largest(page);
    const placement = await hover(page, 1, target.point, target.seriesIndex);
    const biggest = [...data.storages].sort((a: { bytes: number }, b: { bytes: number }) => b.bytes - a.bytes)[0];
    expect(placement).toContain(`made by ${biggest.producer}`);
    expect(placement).toContain(`last read by ${biggest.lastReader}`);
    expect(placement).toContain('why alive:');
    expect(problems).toEqual([]);
    expect(requests).toEqual([`file://${file}`]);
    return { page, data };
  }

  it('a dense layer spec with a budget (CLI): cards, categories, baselines, provenance', async () => {
    const file = cliReport('llama', 'examples/llama3-8b-bf16-tp8sp.layers.json', ['--budget', '24GiB']);
    const { page, data } = await checkReport(file, ['live-chart', 'placement-chart']);
    const cards = await page.locator('.cards').innerText();
    expect(cards).toMatch(/PERSISTENT MEMORY\s+11\.38 GiB/i);
    expect(cards).toMatch(/fits\s+headroom/);
    expect(await page.locator('.unmodelled').innerText()).toMatch(/CUDA context[\s\S]*NCCL[\s\S]*embeddings and the LM head[\s\S]*fragmentation/);
    expect(data.baselines.length).toBe(7);
    // The split selector redraws the timeline by layer: one stacked series per layer (12 at most, `other` the rest).
    await page.locator('#split-by').selectOption('layer');
    const names = await page.evaluate(() => (window as any).tpCharts[0].getOption().series.map((s: { name: string }) => s.name));
    expect(names).toEqual(expect.arrayContaining(['L0', 'lower bound', 'budget']));
    expect(names.some((n: string) => n.startsWith('other ('))).toBe(true);
    await page.close();
  });

  it('an MoE spec with --compare (CLI): the compare chart draws and names the roles that change', async () => {
    const file = cliReport('moe', 'examples/mixtral-moe-tp8sp.layers.json', ['--compare', 'recipe=bf16']);
    const { page } = await checkReport(file, ['live-chart', 'placement-chart', 'compare-chart']);
    const tip = await hover(page, 2, [1, 1], 0);
    expect(tip).toContain('recipe=bf16');
    expect(tip).toMatch(/saved quantizedWeight: -/);
    await page.close();
  });

  it('an ONNX model (CLI) and a graph file (API)', async () => {
    await (await checkReport(cliReport('onnx', 'test/fixtures/onnx-real/mobilenet_v3_small.onnx', ['--baselines']), ['live-chart', 'placement-chart'])).page.close();
    const graph = JSON.parse(readFileSync(path('examples/transformer-block-training.json'), 'utf8'));
    await (await checkReport(await apiReport('graph', graph), ['live-chart', 'placement-chart'])).page.close();
  });

  it('10^4 storages: the tables are paged, the DOM stays small, the placement view says what it leaves out', async () => {
    const file = await apiReport('big', bigGraph(10_000));
    const { page, data } = await checkReport(file, ['live-chart', 'placement-chart']);
    expect(data.storages.length).toBeGreaterThan(10_000);
    // Open groups list 50 rows a page; each table shows 25 groups a page.
    expect(await page.locator('tr.row').count()).toBeLessThanOrEqual(2 * 50);
    expect(await page.locator('details').count()).toBeLessThanOrEqual(2 * 25);
    const all = page.locator('#all-table');
    expect(await all.innerText()).toMatch(/10\d{3} storages in 4 groups/);
    await all.locator('.pager button', { hasText: 'next' }).first().click();
    expect(await all.locator('.pager').first().innerText()).toContain('page 2 of');
    expect(await page.locator('tr.row').count()).toBeLessThanOrEqual(2 * 50);
    expect(await page.locator('body').innerText()).toMatch(/draws the 4000 largest of 1000\d storages/);
    await page.close();
  });
});
