// A user's web app that imports the installed package by name and
// plans a graph, built by Vite (build and dev server), webpack 5 and esbuild,
// then run in headless chromium. The package comes from `npm pack` unpacked
// into the app's node_modules, as `npm install tensorplan-<v>.tgz` lays it out
// (the browser entry bundles its own dependencies, so none are needed), never
// from src/ or dist/ of this repository.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init } from '../../dist/index.mjs';
import { BROWSER_SKIP_REASON, launchChromium } from '../support/chromium';
import { startStaticServer } from '../support/static-server';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/bundler-app', import.meta.url));
const GRAPH_FILE = fileURLToPath(new URL('../../examples/cnn-inference.json', import.meta.url));
const GRAPH = JSON.parse(readFileSync(GRAPH_FILE, 'utf8'));

interface PageResult {
  error?: string;
  backend?: string;
  plan?: { statistics: Record<string, unknown> } & Record<string, unknown>;
  workerPlan?: PageResult['plan'];
  diagnostics?: unknown[];
}

/** The app directory: fixture sources, the example graph, and the packed package in node_modules. */
function makeApp(): string {
  const app = mkdtempSync(join(tmpdir(), 'tensorplan-bundlers-'));
  cpSync(FIXTURE, app, { recursive: true });
  cpSync(GRAPH_FILE, join(app, 'graph.json'));
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', app], { cwd: REPOSITORY, encoding: 'utf8' })
    .trim().split('\n').pop()!;
  const installed = join(app, 'node_modules', 'tensorplan');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['xzf', join(app, packed), '-C', installed, '--strip-components=1']);
  return app;
}

const comparable = (plan: PageResult['plan']) => ({ ...plan, statistics: { ...plan!.statistics, timeMs: null } });

describe.skipIf(BROWSER_SKIP_REASON !== '')(`bundled web apps in chromium${BROWSER_SKIP_REASON ? ` (skipped: ${BROWSER_SKIP_REASON})` : ''}`, () => {
  let app: string;
  let browser: Browser;
  let server: Server;
  let base: string;
  let nodePlan: PageResult['plan'];

  beforeAll(async () => {
    app = makeApp();
    browser = await launchChromium();
    ({ server, url: base } = await startStaticServer({}, app));
    nodePlan = (await init({ backend: 'wasm' })).plan(GRAPH, { baselines: true }) as never;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    server?.close();
    if (app) rmSync(app, { recursive: true, force: true });
  });

  async function resultOf(url: string): Promise<{ result: PageResult; errors: string[]; wasmRequests: string[] }> {
    const page = await browser.newPage();
    const errors: string[] = [];
    const wasmRequests: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('request', (request) => { if (request.url().includes('.wasm')) wasmRequests.push(request.url()); });
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { result?: unknown }).result !== undefined, null, { timeout: 60_000 });
    const result = await page.evaluate(() => (window as unknown as { result: PageResult }).result);
    await page.close();
    return { result, errors, wasmRequests };
  }

  /** The page planned with WASM, found its .wasm in the build output, and got Node's plan. */
  function expectPlanned({ result, errors, wasmRequests }: Awaited<ReturnType<typeof resultOf>>, outDir: string) {
    expect(errors).toEqual([]);
    expect(result.error).toBeUndefined();
    expect(result.backend).toBe('wasm');
    expect(result.diagnostics).toEqual([]);
    expect(comparable(result.plan)).toEqual(comparable(nodePlan));
    if (outDir !== 'out-esbuild') expect(comparable(result.workerPlan)).toEqual(comparable(nodePlan));
    // The bundler emitted the .wasm into the output and the page fetched that copy.
    const emitted = readdirSync(join(app, outDir), { recursive: true }).map(String).filter((file) => file.endsWith('.wasm'));
    expect(emitted).toHaveLength(1);
    // The page fetched that copy: once for the main-thread session, once in the worker.
    expect(wasmRequests).toEqual(Array(outDir === 'out-esbuild' ? 1 : 2).fill(`${base}/${outDir}/${emitted[0]}`));
  }

  it('vite build: finds the .wasm and the worker through new URL(..., import.meta.url) with no configuration', async () => {
    const { build } = await import('vite');
    await build({ root: app, configFile: false, logLevel: 'silent', base: './', build: { outDir: join(app, 'out-vite'), emptyOutDir: true } });
    expectPlanned(await resultOf(`${base}/out-vite/index.html`), 'out-vite');
  });

  it('webpack 5: emits the .wasm as an asset module and bundles the worker, with no configuration and no warning', async () => {
    const webpack = (await import('webpack')).default;
    const stats = await new Promise<import('webpack').Stats>((resolve, reject) => {
      const compiler = webpack({
        mode: 'production', context: app, entry: './main.js', performance: { hints: false },
        // Minifying 600 kB takes 10 s here and proves nothing about the .wasm.
        optimization: { minimize: false },
        output: { path: join(app, 'out-webpack'), filename: 'main.js', clean: true },
      });
      compiler.run((error, result) => compiler.close(() => (error || !result ? reject(error) : resolve(result))));
    });
    expect(stats.compilation.errors.map(String)).toEqual([]);
    expect(stats.compilation.warnings.map(String)).toEqual([]);
    writeFileSync(join(app, 'out-webpack', 'index.html'), '<!doctype html><meta charset="utf-8"><script src="./main.js"></script>');
    expectPlanned(await resultOf(`${base}/out-webpack/index.html`), 'out-webpack');
  });

  it('esbuild: imports tensorplan/wasm with the file loader and passes its URL to init()', async () => {
    const esbuild = await import('esbuild');
    const outcome = await esbuild.build({
      absWorkingDir: app, entryPoints: ['main-esbuild.js'], bundle: true, format: 'esm', outdir: 'out-esbuild',
      loader: { '.wasm': 'file' }, logLevel: 'silent',
    });
    expect(outcome.errors).toEqual([]);
    writeFileSync(join(app, 'out-esbuild', 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main-esbuild.js"></script>');
    expectPlanned(await resultOf(`${base}/out-esbuild/index.html`), 'out-esbuild');
  });

  describe('vite dev server', () => {
    async function devServer(optimizeDeps: Record<string, unknown>) {
      const { createServer } = await import('vite');
      // A random port below 5900: Chromium refuses to load from port 6000
      // (X11) with net::ERR_UNSAFE_PORT.
      const dev = await createServer({
        root: app, configFile: false, logLevel: 'silent', optimizeDeps, cacheDir: join(app, '.vite'),
        server: { host: '127.0.0.1', port: 5173 + Math.floor(Math.random() * 700), strictPort: false, hmr: false, watch: null },
      });
      await dev.listen();
      return dev;
    }

    it("plans with the README's one line of config (optimizeDeps.exclude) and fetches the package's own .wasm", async () => {
      const dev = await devServer({ exclude: ['tensorplan'] });
      try {
        const url = dev.resolvedUrls!.local[0];
        const { result, errors, wasmRequests } = await resultOf(url);
        expect(errors).toEqual([]);
        expect(result.error).toBeUndefined();
        expect(comparable(result.plan)).toEqual(comparable(nodePlan));
        expect(comparable(result.workerPlan)).toEqual(comparable(nodePlan));
        expect(wasmRequests).toEqual(Array(2).fill(`${url}node_modules/tensorplan/wasm/dist/tensorplan_core.wasm`));
      } finally {
        await dev.close();
      }
    });

    it('without it, pre-bundling moves the entry away from its .wasm: the error says so and names the fix', async () => {
      const dev = await devServer({});
      try {
        const { result } = await resultOf(dev.resolvedUrls!.local[0]);
        expect(result.error).toMatch(/answered an HTML page, not tensorplan_core\.wasm/);
        expect(result.error).toContain("optimizeDeps: { exclude: ['tensorplan'] }");
      } finally {
        await dev.close();
      }
    });
  });
});
