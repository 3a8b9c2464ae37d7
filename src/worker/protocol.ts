// Messages between a worker-backed session (worker-session.ts) and the session
// it drives inside the worker (worker-host.ts). Values cross by structured clone.
import type { BackendChoice } from '../backend/registry.js';
import type { WasmOptions } from '../backend/wasm-source.js';

/** The init() options a worker gets (those of InitOptions but `worker`; api.ts imports this file, so they are spelled here). */
export interface WorkerInitOptions {
  backend?: BackendChoice;
  wasm?: WasmOptions;
}

/** What the main thread asks: load a backend, or call a session method. */
export type HostMessage = { kind: 'init'; options: WorkerInitOptions } | { kind: 'call'; method: string; args: unknown[] };

/** Main thread -> worker: a message and the id its reply carries. */
export type HostRequest = HostMessage & { id: number };

/** An error as it crosses: enough to rebuild the TensorplanError. */
export interface CrossingError {
  name: string;
  code?: string;
  message: string;
  reasons?: Record<string, string>;
}

/** Worker -> main thread: the answer to request `id`. */
export type HostReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: CrossingError };

/** What the worker's session says about itself after init. */
export interface SessionFacts {
  backend: string;
  source: string;
  coreVersion: string;
}

/** A worker as the session sees it: Web Worker or worker_threads, behind one shape. */
export interface WorkerPort {
  post(message: HostRequest): void;
  /** Registers the handlers; `onFailure` is called once if the worker dies or cannot start. */
  listen(onReply: (reply: HostReply) => void, onFailure: (error: Error) => void): void;
  /** Whether the worker should keep the process alive (Node): only while calls are pending. */
  setBusy(busy: boolean): void;
  terminate(): Promise<void>;
}
