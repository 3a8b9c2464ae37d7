// Renders the example memory reports (`tensorplan plan ... --report`) and
// writes screenshots of them to docs/images/report-*.png for docs/plans.md:
// the cards and the timeline (hovered at the peak, so the tooltip with the op
// name shows), the placement view (hovered on the largest storage, so its
// provenance shows), the compare chart, and the grouped tables.
//
//   node scripts/report-screenshots.mjs [--out docs/images] [--keep DIR]
//
// Needs dist/ (npm run build:ts) and Debian's chromium (CHROMIUM_PATH or
// /usr/bin/chromium) with playwright-core, as the browser tests do.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const out = join(root, arg('--out', 'docs/images'));
const work = arg('--keep', undefined) ?? mkdtempSync(join(tmpdir(), 'tp-report-shots-'));
mkdirSync(out, { recursive: true });
mkdirSync(work, { recursive: true });
const chromiumPath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!chromiumPath) throw new Error('no chromium found (apt-get install chromium, or set CHROMIUM_PATH)');

/** The example reports: a dense layer spec with a budget, an MoE spec with --compare, an ONNX model, a graph file. */
const CASES = [
  { tag: 'llama', file: 'examples/llama3-8b-bf16-tp8sp.layers.json', args: ['--budget', '24GiB', '--baselines'], shots: ['overview', 'zoom', 'placement', 'tables'] },
  { tag: 'moe', file: 'examples/mixtral-moe-tp8sp.layers.json', args: ['--compare', 'recipe=bf16', '--compare', 'recompute=on'], shots: ['overview', 'compare'] },
  // The weights of a small CNN dwarf its activations: this one is shown as the arena only.
  { tag: 'onnx', file: 'test/fixtures/onnx-real/mobilenet_v3_small.onnx', args: ['--baselines'], shots: ['overview', 'placement'], arenaOnly: true, split: 'op type' },
  { tag: 'graph', file: 'examples/transformer-block-training.json', args: ['--baselines', '--budget', '64MiB'], shots: ['overview'] },
];

/** Plans one case with --report and returns the HTML file. */
function report({ tag, file, args }) {
  const html = join(work, `${tag}.html`);
  const run = spawnSync(process.execPath, [join(root, 'bin/tensorplan.mjs'), 'plan', join(root, file), '--report', html, '--backend', 'wasm', ...args],
    { encoding: 'utf8' });
  // A plan over its budget exits 1 and still writes the report.
  if (!existsSync(html)) throw new Error(`${file}: no report (${run.status}): ${run.stderr}`);
  return html;
}

/** Hovers a chart at a data point so ECharts shows its tooltip. */
async function hover(page, chart, point, seriesIndex = 0) {
  const xy = await page.evaluate(({ chart, point, seriesIndex }) => window.tpCharts[chart].convertToPixel({ seriesIndex }, point), { chart, point, seriesIndex });
  const box = await page.locator(['#live-chart', '#placement-chart', '#compare-chart'][chart]).boundingBox();
  await page.mouse.move(box.x + xy[0], box.y + xy[1]);
  await page.waitForTimeout(300);
}

/** A screenshot of the page from the top of one element to the bottom of another. */
async function region(page, file, from, to) {
  const a = await page.locator(from).boundingBox();
  const b = await page.locator(to).boundingBox();
  await page.screenshot({ path: file, clip: { x: 0, y: a.y - 8, width: 1280, height: b.y + b.height - a.y + 16 } });
  const size = statSync(file).size;
  console.log(`${file}: ${(size / 1024).toFixed(0)} KiB`);
  if (size > 300 * 1024) console.warn(`  over 300 KiB: make the region smaller`);
}

const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
try {
  for (const c of CASES) {
    const html = report(c);
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`file://${html}`);
    await page.waitForFunction(() => Array.isArray(window.tpCharts));
    const peak = await page.evaluate(() => [window.TP_REPORT.peakStep, window.TP_REPORT.peakBytes, window.TP_REPORT.steps.length]);
    if (c.arenaOnly) await page.locator('#with-persistent').uncheck();
    if (c.split) await page.locator('#split-by').selectOption(c.split);
    for (const shot of c.shots) {
      const file = join(out, `report-${c.tag}-${shot}.png`);
      if (shot === 'overview') {
        await page.mouse.move(0, 0);
        await region(page, file, 'h1', '#live-chart');
      } else if (shot === 'zoom') {
        // Zoomed to the 8% of steps around the peak, the axis names each op; the tooltip at the peak splits its bytes.
        const span = 4;
        const at = (100 * peak[0]) / peak[2];
        await page.evaluate(({ start, end }) => window.tpCharts[0].dispatchAction({ type: 'dataZoom', start, end }), { start: at - span, end: at + span });
        await page.waitForTimeout(200);
        await hover(page, 0, [peak[0] - 6, peak[1] / 4], 0);
        await region(page, file, '.controls', '#live-chart');
      } else if (shot === 'placement') {
        await page.locator('#placement-chart').scrollIntoViewIfNeeded();
        const target = await page.evaluate(() => {
          const chart = window.tpCharts[1];
          const series = chart.getOption().series;
          // The largest storage: the first point of the series that holds index 0.
          for (let i = 0; i < series.length; i++) {
            const p = series[i].data.find((d) => d[4] === 0);
            if (p) return { seriesIndex: i, point: [(p[0] + p[1]) / 2, (p[2] + p[3]) / 2] };
          }
          return null;
        });
        if (target) await hover(page, 1, target.point, target.seriesIndex);
        await region(page, file, '#placement-chart', '#placement-chart');
      } else if (shot === 'compare') {
        await page.locator('#compare-chart').scrollIntoViewIfNeeded();
        await hover(page, 2, [1, 1], 0);
        await region(page, file, '#compare-chart', '#compare-chart + table');
      } else if (shot === 'tables') {
        await page.mouse.move(0, 0);
        await region(page, file, '#peak-table', '#peak-table');
      }
    }
    await page.close();
  }
} finally {
  await browser.close();
}
