#!/usr/bin/env node
// Screenshots of `tensorplan plan --trace` files open in a standard viewer, for
// docs/plans.md: docs/images/trace-*.png.
//
// The viewer is the Performance panel of Chromium's own DevTools, which opens
// Trace Event Format JSON ("Load profile"). It ships inside chromium, so no
// download is needed; the two other standard viewers cannot be had offline
// here: Perfetto's UI is served from ui.perfetto.dev only (no npm or Debian
// package), and Debian's chromium 156 no longer serves chrome://tracing (with
// internal debugging pages enabled through the Local State pref
// "internal_only_uis_enabled", the page still fails with ERR_FAILED).
//
// The DevTools front end is served by chromium's remote-debugging HTTP server
// (/devtools/devtools_app.html) and attached to a blank page; the trace is
// loaded through the panel's file chooser, driven by playwright-core.
//
// Usage: npm run build:ts && node scripts/trace-screenshot.mjs [--out docs/images]
// (CHROMIUM_PATH picks the browser, /usr/bin/chromium otherwise).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.indexOf('--out');
const outDir = resolve(outArg > 0 ? process.argv[outArg + 1] : join(root, 'docs/images'));
const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!executablePath) throw new Error('no chromium found (apt-get install chromium, or set CHROMIUM_PATH)');

const WIDTH = 1400;
const HEIGHT = 560;
// Where DevTools (chromium 156) lays out the Performance panel once the sidebar
// is hidden (px): the overview strip, the first track header, a header's height.
const OVERVIEW_Y = 80;
const FIRST_TRACK_Y = 129;
const ROW = 17;
/** Steps shown around the peak: ~100 px per op, enough for its name. */
const WINDOW = 14;

/** The examples shown: a graph file and a layer spec. */
const SHOTS = [
  { file: 'examples/transformer-block-training.json', png: 'trace-transformer-block.png' },
  { file: 'examples/llama3-8b-bf16-tp8sp.layers.json', png: 'trace-llama3-8b.png' },
];

/** A free loopback TCP port for chromium's remote-debugging server. */
function freePort() {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
    server.on('error', fail);
  });
}

/** Runs `tensorplan plan FILE --trace` and returns the plan and the trace file's path. */
function planWithTrace(file, dir) {
  const base = join(dir, file.replace(/\W+/g, '_'));
  const out = spawnSync(process.execPath, [join(root, 'bin/tensorplan.mjs'), 'plan', join(root, file), '-o', `${base}.plan.json`,
    '--trace', `${base}.trace.json`, '--backend', 'wasm'], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`tensorplan plan ${file} failed: ${out.stderr}`);
  return { plan: JSON.parse(readFileSync(`${base}.plan.json`, 'utf8')), trace: `${base}.trace.json` };
}

/** Clicks the first visible element matching `locator`, waiting for one to show. */
async function clickVisible(locator) {
  await locator.filter({ visible: true }).first().click();
}

async function shoot(browser, port, { file, png }, dir) {
  const { plan, trace } = planWithTrace(file, dir);
  const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT } });
  // DevTools needs a target to attach to before its panels work; a blank page serves.
  const blank = await context.newPage();
  await blank.goto('about:blank');
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const target = targets.find((t) => t.type === 'page' && t.url === 'about:blank');
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`http://127.0.0.1:${port}/devtools/devtools_app.html?ws=127.0.0.1:${port}/devtools/page/${target.id}&panel=timeline`);

  const chooser = page.waitForEvent('filechooser');
  await clickVisible(page.getByRole('button', { name: /^Load (profile|trace)/ }));
  await (await chooser).setFiles(trace);
  // The panel opens its keyboard-shortcuts dialog on a first load: close it, and the sidebar.
  const shortcuts = page.getByText('Keyboard shortcuts for flame chart');
  await shortcuts.waitFor();
  await clickVisible(page.getByRole('button', { name: 'Close', exact: true }));
  await shortcuts.waitFor({ state: 'hidden' });
  await clickVisible(page.getByRole('button', { name: 'Hide sidebar' }));
  await page.waitForTimeout(500);
  // With the sidebar hidden the flame chart spans the page; its first track
  // header (the process) sits below the time ruler. Expand it, then its
  // "schedule" thread.
  await page.mouse.click(9, FIRST_TRACK_Y);
  await page.waitForTimeout(300);
  await page.mouse.click(19, FIRST_TRACK_Y + ROW);
  await page.waitForTimeout(300);

  // Zoom to the steps around the peak by selecting them in the overview strip,
  // then select the peak op so the Summary pane shows its arguments.
  const steps = plan.schedule.length;
  const peak = plan.statistics.peakStep;
  const window = Math.min(WINDOW, steps);
  const from = Math.max(0, Math.min(steps - window, peak - Math.floor(window / 2)));
  await page.mouse.move((from / steps) * WIDTH, OVERVIEW_Y);
  await page.mouse.down();
  await page.mouse.move(((from + window) / steps) * WIDTH, OVERVIEW_Y, { steps: 10 });
  await page.mouse.up();
  await page.waitForTimeout(500);
  // The panel's search (Ctrl+F) selects the first match (op names are unique),
  // which is more exact than clicking where the zoom put it.
  await page.mouse.click(WIDTH / 2, FIRST_TRACK_Y + 4 * ROW);
  await page.keyboard.press('Control+F');
  await page.keyboard.type(plan.statistics.peakOp);
  await page.keyboard.press('Enter');
  await page.waitForTimeout(500);
  // The search bar stays open: closing it (button or Escape) drops the selection.
  await page.mouse.move(WIDTH / 2, FIRST_TRACK_Y + 8 * ROW);
  await page.waitForTimeout(500);
  // The Summary pane must show the selected op's arguments: the plan's peak.
  await page.getByText(String(plan.statistics.liveBytes[peak]), { exact: true }).filter({ visible: true }).first().waitFor({ timeout: 5000 });
  await page.screenshot({ path: join(outDir, png) });
  await context.close();
  if (errors.length) throw new Error(`DevTools page errors for ${file}: ${errors.join('; ')}`);
  return { png, steps, peak, op: plan.statistics.peakOp };
}

mkdirSync(outDir, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'tensorplan-trace-shot-'));
const port = await freePort();
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', `--remote-debugging-port=${port}`],
});
try {
  for (const shot of SHOTS) {
    const done = await shoot(browser, port, shot, dir);
    const bytes = statSync(join(outDir, done.png)).size;
    if (bytes > 300 * 1024) throw new Error(`${done.png} is ${bytes} bytes: keep screenshots under 300 KiB`);
    const kib = (bytes / 1024).toFixed(0);
    console.log(`${join(outDir, done.png)}: ${shot.file}, ${done.steps} steps, peak at step ${done.peak} (${done.op}), ${kib} KiB`);
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
