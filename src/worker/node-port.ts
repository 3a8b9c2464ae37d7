// The worker_threads port of init({ worker: true }) in Node.
import { Worker } from 'node:worker_threads';
import type { HostReply, WorkerPort } from './protocol.js';

/** Starts dist/worker.mjs (beside the built entry) as a worker thread. */
export function nodeWorkerPort(): WorkerPort {
  const worker = new Worker(new URL('./worker.mjs', import.meta.url));
  // Idle, the worker does not keep the process alive: a script that forgets dispose() still exits.
  worker.unref();
  let terminating = false;
  return {
    post: (message) => worker.postMessage(message),
    listen(onReply, onFailure) {
      worker.on('message', (reply: HostReply) => onReply(reply));
      worker.on('error', (error) => onFailure(error));
      worker.on('exit', (code) => {
        if (!terminating) onFailure(new Error(`the worker thread exited with code ${code}`));
      });
    },
    setBusy: (busy) => (busy ? worker.ref() : worker.unref()),
    async terminate() {
      terminating = true;
      await worker.terminate();
    },
  };
}
