// dist/browser-worker.mjs: the Web Worker side of init({ worker: true }) in browsers.
import { init } from '../browser.js';
import type { HostReply, HostRequest } from './protocol.js';
import { serveSession } from './worker-host.js';

interface WorkerScope {
  addEventListener(type: 'message', listener: (event: { data: HostRequest }) => void): void;
  postMessage(message: HostReply): void;
}
const scope = globalThis as unknown as WorkerScope;
serveSession(init, (handler) => scope.addEventListener('message', (event) => handler(event.data)), (reply) => scope.postMessage(reply));
