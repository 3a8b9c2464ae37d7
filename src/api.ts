import type { CudaDevice } from './backend/native-core.js';
import type { BackendChoice, BackendName, BackendRegistry, BackendStatus } from './backend/registry.js';
import { type WasmOptions, configureWasm } from './backend/wasm-source.js';
import { TensorplanError, optionsObject, shown } from './errors.js';
import { Tensorplan } from './tensorplan.js';
import type { SessionFrontEnds } from './tensorplan.js';
import { VERSION } from './version.js';
import type { WorkerInitOptions, WorkerPort } from './worker/protocol.js';
import { type TensorplanWorker, openWorkerSession } from './worker/worker-session.js';

/**
 * Options of {@link init}.
 *
 * @group Session
 */
export interface InitOptions {
  /** Which backend to use (default `'auto'`: cuda, then native, then wasm). */
  backend?: BackendChoice;
  /** Where the WASM core comes from (browsers; optional in Node). */
  wasm?: WasmOptions;
  /**
   * Run the session in its own worker (a Web Worker in browsers, a worker
   * thread in Node): `init({ worker: true })` resolves to a {@link TensorplanWorker}
   * whose methods return promises, so planning never blocks the page or the
   * event loop. The worker loads `backend` itself; end it with `dispose()`.
   */
  worker?: boolean;
}

/**
 * What {@link info} reports.
 *
 * @group Session
 */
export interface TensorplanInfo {
  /** Package version. */
  version: string;
  /** The backend `init()` with the same options would use, or null if none loads. */
  backend: BackendName | null;
  /** Why no backend could be chosen, when `backend` is null. */
  reason?: string;
  /** Every registered backend, highest priority first, with its availability and reason. */
  backends: BackendStatus[];
  /** CUDA as the native addon sees it; null where the addon did not load. */
  cuda: {
    compiled: boolean;
    runtimeVersion: number;
    driverVersion: number;
    reason: string;
    devices: CudaDevice[];
  } | null;
}

/** Options of init() and info(), checked field by field. */
function checkInitOptions(given: InitOptions | undefined): InitOptions {
  const options: InitOptions = optionsObject(given, 'options');
  if (options.wasm !== undefined && (options.wasm === null || typeof options.wasm !== 'object')) {
    throw new TensorplanError('INVALID_ARGUMENT', `options.wasm = ${shown(options.wasm)}: must be an object ({ url } or { bytes })`);
  }
  if (options.worker !== undefined && typeof options.worker !== 'boolean') {
    throw new TensorplanError('INVALID_ARGUMENT', `options.worker = ${shown(options.worker)}: must be true or false`);
  }
  return options;
}

/**
 * The worker's own options: a URL the page gave is made absolute here, since
 * the worker would resolve it against its own script instead of the page.
 */
function workerOptions(options: InitOptions): WorkerInitOptions {
  const { worker: _worker, ...rest } = options;
  const url = rest.wasm?.url;
  const page = (globalThis as { location?: { href: string } }).location?.href;
  if (url !== undefined && page !== undefined) rest.wasm = { ...rest.wasm, url: new URL(String(url), page).href };
  return rest;
}

/** The public entry points, bound to one backend registry (node or browser), the front ends its sessions get, and how it starts a worker. */
export function createApi(registry: BackendRegistry, frontEnds: SessionFrontEnds = {}, startWorker?: () => WorkerPort) {
  const sessions = new Map<BackendName, Tensorplan>();

  /**
   * Loads a backend and returns a session on it. With `backend: 'auto'` the
   * highest-priority backend that loads is used; a named backend that cannot
   * load rejects with its reason (never a silent fallback). Memoised: the
   * same backend is loaded once per process.
   */
  function init(given: InitOptions & { worker: true }): Promise<TensorplanWorker>;
  function init(given?: InitOptions): Promise<Tensorplan>;
  async function init(given?: InitOptions): Promise<Tensorplan | TensorplanWorker> {
    const options = checkInitOptions(given);
    if (options.worker === true) {
      if (!startWorker) throw new TensorplanError('UNSUPPORTED', 'options.worker = true: this entry cannot start workers');
      return openWorkerSession(startWorker(), workerOptions(options));
    }
    try {
      configureWasm(options.wasm);
    } catch (error) {
      throw new TensorplanError('INVALID_ARGUMENT', (error as Error).message);
    }
    const loaded = await registry.resolve(options.backend ?? 'auto');
    let session = sessions.get(loaded.name);
    if (!session || session.disposed) {
      session = new Tensorplan(loaded, frontEnds);
      sessions.set(loaded.name, session);
    }
    return session;
  }

  /** Reports which backend runs, every backend's availability and reason, versions and CUDA devices. */
  async function info(given?: InitOptions): Promise<TensorplanInfo> {
    const options = checkInitOptions(given);
    const backends = await registry.status();
    let backend: BackendName | null = null;
    let reason: string | undefined;
    try {
      backend = (await registry.resolve(options.backend ?? 'auto')).name;
    } catch (error) {
      reason = (error as Error).message;
    }
    let cuda: TensorplanInfo['cuda'] = null;
    for (const name of ['cuda', 'native'] as const) {
      if (cuda || !backends.some((b) => b.name === name && b.available)) continue;
      const probe = (await registry.load(name)).cuda;
      if (probe) {
        cuda = {
          compiled: probe.compiled,
          runtimeVersion: probe.runtimeVersion,
          driverVersion: probe.driverVersion,
          reason: probe.reason,
          devices: probe.devices,
        };
      }
    }
    return { version: VERSION, backend, ...(reason ? { reason } : {}), backends, cuda };
  }

  return { init, info };
}
