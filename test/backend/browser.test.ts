// The browser entry in headless chromium: WASM loads from a URL or from bytes,
// and planning gives the same answer as in Node.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Server } from 'node:http';
import { init } from '../../dist/index.mjs';
import { BROWSER_SKIP_REASON, launchChromium } from '../support/chromium';
import { seededRandom } from '../support/seeded-random';
import { startStaticServer } from '../support/static-server';

const EXAMPLE_GRAPH = JSON.parse(readFileSync(new URL('../../examples/cnn-inference.json', import.meta.url), 'utf8'));
const TRAINING_GRAPH = JSON.parse(readFileSync(new URL('../../examples/mlp-training.graph.json', import.meta.url), 'utf8'));

// Seeded values in [-1, 1] for every graph input and weight of the training
// example, as raw bytes of the tensor's dtype (fp32, or bf16 = top half of fp32).
function trainingInputs(seed: number): Record<string, number[]> {
  const random = seededRandom(seed);
  const inputs: Record<string, number[]> = {};
  for (const name of [...TRAINING_GRAPH.inputs, ...TRAINING_GRAPH.persistent]) {
    const tensor = TRAINING_GRAPH.tensors.find((t: { name: string }) => t.name === name);
    const count = tensor.shape.reduce((a: number, b: number) => a * b, 1);
    const values = Float32Array.from({ length: count }, () => random() * 2 - 1);
    const bytes = tensor.dtype === 'bf16'
      ? new Uint8Array(Uint16Array.from(new Uint32Array(values.buffer), (bits) => bits >>> 16).buffer)
      : new Uint8Array(values.buffer);
    inputs[name] = Array.from(bytes);
  }
  return inputs;
}
const TRAINING_INPUTS = trainingInputs(11);

const TENSORS = [
  { name: 'a', shape: [96, 160], dtype: 'fp8_e4m3', alignment: 256 },
  { name: 'b', shape: [0, 7], dtype: 'bf16', alignment: 512 },
  { name: 'c', shape: [128, 8], dtype: 'e8m0', alignment: 16 },
];

const PAGE = `<!doctype html><meta charset="utf-8"><title>tensorplan</title><script type="module">
  import { init, info } from '/dist/browser.mjs';
  const tensors = ${JSON.stringify(TENSORS)};
  try {
    const byUrl = await init();
    const report = await info();
    window.result = { layout: byUrl.bulkLayout(tensors), backends: report.backends.map((b) => b.name), backend: byUrl.backend };
  } catch (error) { window.result = { error: String(error) }; }
</script>`;

const BYTES_PAGE = `<!doctype html><meta charset="utf-8"><script type="module">
  import { init } from '/dist/browser.mjs';
  const bytes = await (await fetch('/wasm/dist/tensorplan_core.wasm')).arrayBuffer();
  try {
    const tp = await init({ wasm: { bytes } });
    window.result = { layout: tp.bulkLayout(${JSON.stringify(TENSORS)}) };
  } catch (error) { window.result = { error: String(error) }; }
</script>`;

const PLAN_PAGE = (graph: unknown) => `<!doctype html><meta charset="utf-8"><script type="module">
  import { init } from '/dist/browser.mjs';
  try {
    const tp = await init();
    const plan = tp.plan(${JSON.stringify(graph)}, { baselines: true });
    window.result = { plan, diagnostics: tp.validate(plan) };
  } catch (error) { window.result = { error: String(error) }; }
</script>`;

// The reference executor in the page: the training step in one arena, its
// trace checked by the core's verifier, outputs returned as byte arrays.
const EXECUTE_PAGE = (graph: unknown, inputs: Record<string, number[]>) => `<!doctype html><meta charset="utf-8"><script type="module">
  import { init } from '/dist/browser.mjs';
  try {
    const tp = await init();
    const graph = ${JSON.stringify(graph)};
    const plan = tp.plan(graph);
    const given = Object.fromEntries(Object.entries(${JSON.stringify(inputs)}).map(([k, v]) => [k, new Uint8Array(v)]));
    const run = await tp.execute(plan, given);
    const outputs = Object.fromEntries(Object.entries(run.outputs).map(([k, v]) => [k, Array.from(v)]));
    window.result = { plan, outputs, executor: run.executor, traceIssues: tp.verifyTrace(graph, plan.schedule, run.trace) };
  } catch (error) { window.result = { error: String(error) }; }
</script>`;

const WRONG_URL_PAGE = `<!doctype html><meta charset="utf-8"><script type="module">
  import { init } from '/dist/browser.mjs';
  try { await init({ wasm: { url: '/no/such/core.wasm' } }); window.result = { error: 'loaded?' }; }
  catch (error) { window.result = { message: error.message, code: error.code }; }
</script>`;

describe.skipIf(BROWSER_SKIP_REASON !== '')(`browser entry in chromium${BROWSER_SKIP_REASON ? ` (skipped: ${BROWSER_SKIP_REASON})` : ''}`, () => {
  let browser: Browser;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    ({ server, url: base } = await startStaticServer({
      '/page.html': PAGE, '/bytes.html': BYTES_PAGE, '/wrong.html': WRONG_URL_PAGE, '/plan.html': PLAN_PAGE(EXAMPLE_GRAPH),
      '/execute.html': EXECUTE_PAGE(TRAINING_GRAPH, TRAINING_INPUTS),
    }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  async function resultOf(path: string) {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${base}${path}`);
    await page.waitForFunction(() => (window as unknown as { result?: unknown }).result !== undefined);
    const result = await page.evaluate(() => (window as unknown as { result: unknown }).result);
    await page.close();
    return { result: result as Record<string, unknown>, errors };
  }

  it('loads the WASM from its default URL and lays out tensors exactly as Node does', async () => {
    const { result, errors } = await resultOf('/page.html');
    expect(errors).toEqual([]);
    expect(result.error).toBeUndefined();
    expect(result.backends).toEqual(['wasm']);
    const node = (await init({ backend: 'wasm' })).bulkLayout(TENSORS as never);
    expect(result.layout).toEqual(node);
  });

  it('plans an example graph with WASM exactly as Node does, and validates it', async () => {
    const { result, errors } = await resultOf('/plan.html');
    expect(errors).toEqual([]);
    expect(result.error).toBeUndefined();
    expect(result.diagnostics).toEqual([]);
    const node = (await init({ backend: 'wasm' })).plan(EXAMPLE_GRAPH as never, { baselines: true });
    const comparable = (plan: any) => ({ ...plan, statistics: { ...plan.statistics, timeMs: null } });
    expect(comparable(result.plan)).toEqual(comparable(node));
  });

  it('executes a training step with the reference executor: the trace verifies, outputs equal Node WASM byte for byte', async () => {
    const { result, errors } = await resultOf('/execute.html');
    expect(errors).toEqual([]);
    expect(result.error).toBeUndefined();
    expect(result.executor).toBe('reference');
    expect(result.traceIssues).toEqual([]);
    const tp = await init({ backend: 'wasm' });
    const plan = tp.plan(TRAINING_GRAPH as never);
    const given = Object.fromEntries(Object.entries(TRAINING_INPUTS).map(([k, v]) => [k, new Uint8Array(v)]));
    const node = tp.executeReference(plan, given);
    expect(Object.keys(result.outputs as object).sort()).toEqual([...TRAINING_GRAPH.outputs].sort());
    for (const name of TRAINING_GRAPH.outputs) {
      expect((result.outputs as Record<string, number[]>)[name], name).toEqual(Array.from(node.outputs[name]));
    }
  });

  it('accepts the module bytes from the application', async () => {
    const { result } = await resultOf('/bytes.html');
    expect(result.error).toBeUndefined();
    expect((result.layout as { allocationBytes: number }).allocationBytes).toBeGreaterThan(0);
  });

  it('names the URL and the cause when the .wasm is not there', async () => {
    const { result } = await resultOf('/wrong.html');
    expect(result.code).toBe('NO_BACKEND');
    expect(String(result.message)).toMatch(/\/no\/such\/core\.wasm.*404/);
  });
});

describe('worker threads', () => {
  it('plans inside a Node worker with the WASM backend', async () => {
    const source = `
      const { parentPort } = require('node:worker_threads');
      import(${JSON.stringify(new URL('../../dist/index.mjs', import.meta.url).href)})
        .then((tp) => tp.init({ backend: 'wasm' }))
        .then((tp) => parentPort.postMessage(tp.bulkLayout(${JSON.stringify(TENSORS)})));
    `;
    const worker = new Worker(source, { eval: true });
    const layout = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(layout).toEqual((await init({ backend: 'wasm' })).bulkLayout(TENSORS as never));
  });
});
