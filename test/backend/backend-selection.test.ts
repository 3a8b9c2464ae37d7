// ARCHITECTURE.md decision 4: loud run-time backend selection.
import { spawnSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { TensorplanError, info, init } from '../../dist/index.mjs';
import type { GraphDocument } from '../../dist/index.mjs';
import { BackendRegistry } from '../../src/backend/registry';
import { TensorplanError as SourceTensorplanError } from '../../src/errors';
import type { LoadedBackend } from '../../src/backend/registry';
import { ADDON_BUILT, CUDA, SKIPPED_ON_GPU_HOST, SKIPPED_WITHOUT_GPU } from '../support/backends';

const fakeBackend = (name: 'cuda' | 'native' | 'wasm'): LoadedBackend => ({
  name,
  source: `fake ${name}`,
  core: { abiVersion: 1, coreVersion: 'fake', call: () => [] },
});

describe('BackendRegistry', () => {
  it('auto takes the highest-priority backend that loads', async () => {
    const registry = new BackendRegistry();
    registry.register('wasm', 10, async () => fakeBackend('wasm'));
    registry.register('cuda', 30, async () => { throw new Error('no GPU'); });
    registry.register('native', 20, async () => fakeBackend('native'));
    expect(registry.names()).toEqual(['cuda', 'native', 'wasm']);
    expect((await registry.resolve('auto')).name).toBe('native');
  });

  it('a named backend that cannot load is an error, never a fallback', async () => {
    const registry = new BackendRegistry();
    registry.register('wasm', 10, async () => fakeBackend('wasm'));
    registry.register('cuda', 30, async () => { throw new Error('driver missing'); });
    await expect(registry.resolve('cuda')).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      message: "backend 'cuda' is unavailable: driver missing",
    });
  });

  it('when nothing loads, one error lists every backend and its reason', async () => {
    const registry = new BackendRegistry();
    registry.register('cuda', 30, async () => { throw new Error('no driver'); });
    registry.register('native', 20, async () => { throw new Error('addon not built'); });
    registry.register('wasm', 10, async () => { throw new Error('bad magic'); });
    const error = await registry.resolve('auto').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceTensorplanError);
    expect((error as TensorplanError).code).toBe('NO_BACKEND');
    expect((error as TensorplanError).message).toBe(
      'no tensorplan backend could be loaded: [cuda] no driver; [native] addon not built; [wasm] bad magic',
    );
    expect((error as TensorplanError).reasons).toEqual({ cuda: 'no driver', native: 'addon not built', wasm: 'bad magic' });
  });

  it('loads each backend once, even when asked concurrently, and remembers failures', async () => {
    const registry = new BackendRegistry();
    const load = vi.fn(async () => fakeBackend('wasm'));
    const broken = vi.fn(async (): Promise<LoadedBackend> => { throw new Error('broken'); });
    registry.register('wasm', 10, load);
    registry.register('native', 20, broken);
    await Promise.all([registry.load('wasm'), registry.load('wasm'), registry.resolve('auto')]);
    await registry.resolve('native').catch(() => undefined);
    await registry.resolve('native').catch(() => undefined);
    expect(load).toHaveBeenCalledTimes(1);
    expect(broken).toHaveBeenCalledTimes(1);
  });

  it('rejects unknown and unregistered names clearly', async () => {
    const registry = new BackendRegistry();
    registry.register('wasm', 10, async () => fakeBackend('wasm'));
    await expect(registry.resolve('gpu' as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(registry.resolve('native')).rejects.toThrow("backend 'native' is not part of this build (available here: wasm)");
  });
});

describe('init and info on this machine', () => {
  it.skipIf(CUDA.available)(`init({ backend: 'cuda' }) without a GPU rejects with the reason${SKIPPED_ON_GPU_HOST}`, async () => {
    const error = await init({ backend: 'cuda' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TensorplanError);
    expect((error as TensorplanError).code).toBe('BACKEND_UNAVAILABLE');
    expect((error as TensorplanError).message).toMatch(/^backend 'cuda' is unavailable: .+/);
    expect((error as TensorplanError).message).toMatch(/driver|without CUDA|not built|no CUDA device/);
  });

  it.runIf(CUDA.available)(`init({ backend: 'cuda' }) on a GPU host gives a cuda session that executes on the GPU${SKIPPED_WITHOUT_GPU}`, async () => {
    const tp = await init({ backend: 'cuda' });
    expect(tp.backend).toBe('cuda');
    expect((await info()).backend).toBe('cuda');
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [{ name: 'x', shape: [8], dtype: 'fp32' }, { name: 'y', shape: [8], dtype: 'fp32' }],
      ops: [{ name: 'r', op: 'relu', inputs: ['x'], outputs: ['y'] }],
      inputs: ['x'], outputs: ['y'],
    };
    const plan = tp.plan(graph);
    const x = new Float32Array([-2, -1, 0, 1, 2, 3, -4, 5]);
    const result = await tp.execute(plan, { x: new Uint8Array(x.buffer) });
    expect(result.executor).toBe('cuda');
    expect(Array.from(new Float32Array(result.outputs.y.slice().buffer))).toEqual([0, 0, 0, 1, 2, 3, 0, 5]);
  });

  it('info() names the backend in use and every backend with availability and reason', async () => {
    const report = await info();
    expect(report.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(report.backends.map((b) => b.name)).toEqual(['cuda', 'native', 'wasm']);
    const wasm = report.backends.find((b) => b.name === 'wasm')!;
    expect(wasm.available).toBe(true);
    expect(wasm.coreVersion).toBe(report.version);
    for (const b of report.backends) expect(b.available ? b.reason === '' : b.reason.length > 0, b.name).toBe(true);
    const firstAvailable = report.backends.find((b) => b.available)!.name;
    expect(report.backend).toBe(firstAvailable);
    if (ADDON_BUILT) {
      expect(report.backends.find((b) => b.name === 'native')!.available).toBe(true);
      expect(report.cuda).not.toBeNull();
    }
  });

  it('init is memoised per backend', async () => {
    expect(await init({ backend: 'wasm' })).toBe(await init({ backend: 'wasm' }));
  });

  it('rejects a bad backend option with the value', async () => {
    await expect(init({ backend: 'gpu' as never })).rejects.toThrow("backend = 'gpu'");
  });
});

describe('loading only on demand', () => {
  it('importing the package loads no native addon; init({ backend: native }) loads exactly one', () => {
    const script = `
      const opened = [];
      const dlopen = process.dlopen;
      process.dlopen = (module, file, ...rest) => { opened.push(file); return dlopen.call(process, module, file, ...rest); };
      const tp = await import(${JSON.stringify(new URL('../../dist/index.mjs', import.meta.url).href)});
      const afterImport = opened.length;
      await tp.init({ backend: 'wasm' });
      const afterWasm = opened.length;
      let native = 'not built';
      try { await tp.init({ backend: 'native' }); native = 'loaded'; } catch (e) { native = e.message; }
      console.log(JSON.stringify({ afterImport, afterWasm, afterNative: opened.length, native }));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    const seen = JSON.parse(child.stdout.trim().split('\n').pop()!);
    expect(seen.afterImport).toBe(0);
    expect(seen.afterWasm).toBe(0);
    if (seen.native === 'loaded') expect(seen.afterNative).toBe(1);
  });
});
