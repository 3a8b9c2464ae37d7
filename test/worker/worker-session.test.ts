// init({ worker: true }) runs a session on a worker thread with the
// same methods returning promises, and dispose() ends every kind of session.
// (The Web Worker side runs in chromium in test/package/bundlers.test.ts.)
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Tensorplan, TensorplanError, init, parseLayerSpec } from '../../dist/index.mjs';
import type { TensorplanWorker } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8'));
const GRAPH = read('cnn-inference.json');
const LAYERS = read('llama3-8b-mxfp8-tp8sp.layers.json');
const comparable = (plan: any) => ({ ...plan, statistics: { ...plan.statistics, timeMs: null } });

describe.each(BACKENDS)('worker session on %s', (backend) => {
  const local = session(backend);

  async function withWorker<T>(use: (tp: TensorplanWorker) => Promise<T>): Promise<T> {
    const tp = await init({ worker: true, backend });
    try {
      return await use(tp);
    } finally {
      await tp.dispose();
    }
  }

  it('answers every session method with what the in-process session returns', async () => {
    await withWorker(async (tp) => {
      expect(tp.backend).toBe(backend);
      expect(tp.coreVersion).toBe(local.coreVersion);
      const plan = await tp.plan(GRAPH, { baselines: true });
      expect(comparable(plan)).toEqual(comparable(local.plan(GRAPH, { baselines: true })));
      expect(await tp.validate(plan)).toEqual([]);
      const format = { shape: [128, 256], dtype: 'bf16', recipe: 'mxfp8' } as const;
      expect(await tp.tensorSpecBuffers(format)).toEqual(local.tensorSpecBuffers(format));
      const bytes = new Uint8Array(128 * 256 * 2).map((_, i) => (i * 37) % 251);
      const quantized = await tp.quantize(format, bytes);
      expect(quantized).toEqual(local.quantize(format, bytes));
      const layers = await tp.layerGraph(parseLayerSpec(LAYERS));
      expect(layers.graph).toEqual(local.layerGraph(parseLayerSpec(LAYERS)).graph);
    });
  });

  it('offers exactly the methods of Tensorplan', async () => {
    await withWorker(async (tp) => {
      const methods = Object.getOwnPropertyNames(Tensorplan.prototype)
        .filter((name) => name !== 'constructor' && name !== 'cudaAddon' && typeof Object.getOwnPropertyDescriptor(Tensorplan.prototype, name)?.value === 'function');
      for (const name of methods) expect(typeof (tp as unknown as Record<string, unknown>)[name], name).toBe('function');
      await expect(tp.createDeviceArena(1024)).rejects.toMatchObject({ code: 'UNSUPPORTED' });
    });
  });

  it('rejects with the TensorplanError the session threw, code and message intact', async () => {
    await withWorker(async (tp) => {
      const bad = [{ shape: [4], dtype: 'fp33' }] as never;
      let local_: unknown;
      try { local.bulkLayout(bad); } catch (error) { local_ = error; }
      const remote = await tp.bulkLayout(bad).then(() => undefined, (error: unknown) => error);
      expect(remote).toBeInstanceOf(TensorplanError);
      expect(remote).toMatchObject({ code: (local_ as TensorplanError).code, message: (local_ as TensorplanError).message });
      // The session still works after an error.
      expect((await tp.plan(GRAPH)).arenaBytes).toBe(local.plan(GRAPH).arenaBytes);
    });
  });

  it('does not block the event loop while it plans', async () => {
    await withWorker(async (tp) => {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 0);
      const spec = parseLayerSpec(LAYERS);
      await tp.plan((await tp.layerGraph(spec)).graph);
      clearInterval(timer);
      // The in-process session plans synchronously: no timer can fire during its call.
      expect(ticks).toBeGreaterThan(0);
    });
  });

  it('dispose() rejects pending and later calls, and is idempotent', async () => {
    const tp = await init({ worker: true, backend });
    const pending = tp.layerGraph(parseLayerSpec(LAYERS)).then(() => 'answered', (error: unknown) => error);
    await tp.dispose();
    expect(tp.disposed).toBe(true);
    expect(await pending).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('dispose()') });
    await expect(tp.plan(GRAPH)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await tp.dispose();
  });

  it('a worker whose backend cannot load rejects init with the reason, and ends', async () => {
    const error = await init({ worker: true, backend: 'wasm', wasm: { bytes: new Uint8Array([1, 2, 3, 4]) } }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(TensorplanError);
    expect((error as TensorplanError).message).toMatch(/not a WebAssembly module/);
  });
});

describe('in-process sessions', () => {
  it('dispose() refuses later calls by name; init() then gives a new session on the same backend', async () => {
    const tp = await init({ backend: 'wasm' });
    const other = await init({ backend: 'wasm' });
    expect(other).toBe(tp);
    tp.dispose();
    expect(tp.disposed).toBe(true);
    expect(() => tp.plan(GRAPH)).toThrow(/tp\.plan: the session was disposed/);
    await expect(tp.execute({} as never, {})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    tp.dispose();
    const fresh = await init({ backend: 'wasm' });
    expect(fresh).not.toBe(tp);
    expect(fresh.disposed).toBe(false);
    expect(fresh.plan(GRAPH).arenaBytes).toBeGreaterThan(0);
  });

  it('init() refuses a worker option that is not a boolean', async () => {
    await expect(init({ worker: 'yes' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('options.worker') });
  });
});
