// dist/worker.mjs: the worker_threads side of init({ worker: true }) in Node.
import { parentPort } from 'node:worker_threads';
import { init } from '../index.js';
import type { HostRequest } from './protocol.js';
import { serveSession } from './worker-host.js';

if (!parentPort) throw new Error('tensorplan/dist/worker.mjs runs as a worker_threads Worker (init({ worker: true }) starts it)');
const port = parentPort;
serveSession(init, (handler) => port.on('message', (request: HostRequest) => handler(request)), (reply) => port.postMessage(reply));
