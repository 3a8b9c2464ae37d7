// The main-thread side of init({ worker: true }): a session whose methods are
// those of Tensorplan, run in a dedicated worker (Web Worker or worker_threads)
// and answered as promises, so planning never blocks the page or the event
// loop. In the spirit of onnxruntime-web's proxy worker (env.wasm.proxy,
// onnxruntime 1.17 js/web/lib/wasm/proxy-wrapper.ts: one worker, requests
// matched to replies by id); no code taken from it.
import { TensorplanError, type TensorplanErrorCode } from '../errors.js';
import { Tensorplan } from '../tensorplan.js';
import type { HostMessage, HostReply, HostRequest, SessionFacts, WorkerInitOptions, WorkerPort } from './protocol.js';

type MethodName = { [K in keyof Tensorplan]: Tensorplan[K] extends (...args: never[]) => unknown ? K : never }[keyof Tensorplan];
/** Methods that cannot cross to another thread (their results hold live handles). */
type LocalOnly = 'createDeviceArena' | 'dispose';
type Promised<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };

/**
 * A session that runs in a worker: the methods of {@link Tensorplan}, each
 * returning a promise. Arguments and results cross by structured clone (typed
 * arrays are copied). `createDeviceArena` is not available (an arena lives in
 * the thread that made it). Call `dispose()` to end the worker.
 *
 * @group Session
 */
export interface TensorplanWorker extends Promised<Pick<Tensorplan, Exclude<MethodName, LocalOnly>>> {
  /** The backend the worker's session runs on. */
  readonly backend: Tensorplan['backend'];
  /** Where the worker's core was loaded from. */
  readonly source: string;
  /** Version of the worker's core. */
  readonly coreVersion: string;
  /** True once disposed (or once the worker died). */
  readonly disposed: boolean;
  /** Ends the worker and frees its core; pending and later calls reject with INVALID_ARGUMENT naming dispose(). */
  dispose(): Promise<void>;
}

const REMOTE_METHODS = Object.getOwnPropertyNames(Tensorplan.prototype).filter((name) => {
  const descriptor = Object.getOwnPropertyDescriptor(Tensorplan.prototype, name);
  return name !== 'constructor' && name !== 'dispose' && name !== 'createDeviceArena' && name !== 'cudaAddon' && typeof descriptor?.value === 'function';
});

class WorkerSession {
  #next = 1;
  #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  #ended: TensorplanError | undefined;
  facts: SessionFacts = { backend: '', source: '', coreVersion: '' };

  constructor(private readonly port: WorkerPort) {
    port.listen((reply) => this.#answer(reply), (error) => this.#fail(new TensorplanError('INTERNAL', `the tensorplan worker stopped: ${error.message}`)));
  }

  get disposed(): boolean {
    return this.#ended !== undefined;
  }

  request(message: HostMessage): Promise<unknown> {
    if (this.#ended) return Promise.reject(this.#ended);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.port.setBusy(true);
      try {
        this.port.post({ ...message, id } satisfies HostRequest);
      } catch (error) {
        this.#pending.delete(id);
        this.port.setBusy(this.#pending.size > 0);
        reject(new TensorplanError('INVALID_ARGUMENT', `${message.kind === 'call' ? `tp.${message.method}` : 'init'}: the arguments cannot be sent to the worker: ${(error as Error).message}`));
      }
    });
  }

  async dispose(): Promise<void> {
    if (this.#ended) return;
    this.#fail(new TensorplanError('INVALID_ARGUMENT', 'the worker session was disposed (dispose() was called)'));
    await this.port.terminate();
  }

  #answer(reply: HostReply): void {
    const waiter = this.#pending.get(reply.id);
    if (!waiter) return;
    this.#pending.delete(reply.id);
    this.port.setBusy(this.#pending.size > 0);
    if (reply.ok) {
      waiter.resolve(reply.value);
      return;
    }
    const { code, message, reasons, name } = reply.error;
    waiter.reject(code ? new TensorplanError(code as TensorplanErrorCode, message, reasons) : Object.assign(new Error(message), { name }));
  }

  #fail(error: TensorplanError): void {
    if (this.#ended) return;
    this.#ended = error;
    for (const waiter of this.#pending.values()) waiter.reject(error);
    this.#pending.clear();
    this.port.setBusy(false);
  }
}

/** Starts a worker, loads a backend in it with `options`, and returns the session that drives it. */
export async function openWorkerSession(port: WorkerPort, options: WorkerInitOptions): Promise<TensorplanWorker> {
  const session = new WorkerSession(port);
  try {
    session.facts = (await session.request({ kind: 'init', options })) as SessionFacts;
  } catch (error) {
    await session.dispose();
    throw error;
  }
  const proxy: Record<string, unknown> = {};
  for (const method of REMOTE_METHODS) {
    proxy[method] = (...args: unknown[]) => session.request({ kind: 'call', method, args });
  }
  Object.defineProperties(proxy, {
    backend: { get: () => session.facts.backend, enumerable: true },
    source: { get: () => session.facts.source, enumerable: true },
    coreVersion: { get: () => session.facts.coreVersion, enumerable: true },
    disposed: { get: () => session.disposed, enumerable: true },
    dispose: { value: () => session.dispose() },
    createDeviceArena: {
      value: () => Promise.reject(new TensorplanError('UNSUPPORTED', 'tp.createDeviceArena: a device arena cannot cross threads; use an in-process session (init() without worker)')),
    },
  });
  return proxy as unknown as TensorplanWorker;
}
