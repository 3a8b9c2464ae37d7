// The Web Worker port of init({ worker: true }) in browsers.
import type { HostReply, WorkerPort } from './protocol.js';

/**
 * Starts dist/browser-worker.mjs as a module Web Worker. Written as one literal
 * `new Worker(new URL(...), { type: 'module' })` so that Vite and webpack 5
 * bundle the worker script with the application, as they do the .wasm.
 */
export function browserWorkerPort(): WorkerPort {
  const worker = new Worker(new URL('./browser-worker.mjs', import.meta.url), { type: 'module' });
  return {
    post: (message) => worker.postMessage(message),
    listen(onReply, onFailure) {
      worker.addEventListener('message', (event: MessageEvent<HostReply>) => onReply(event.data));
      worker.addEventListener('error', (event: ErrorEvent) => {
        event.preventDefault();
        onFailure(new Error(event.message || 'the worker script failed to load'));
      });
    },
    setBusy: () => undefined,
    async terminate() {
      worker.terminate();
    },
  };
}
