// The worker side: one in-process session, driven by messages. Both worker
// entries (node-worker.ts, browser-worker.ts) call serveSession with their
// entry's init().
import type { InitOptions } from '../api.js';
import { TensorplanError } from '../errors.js';
import type { Tensorplan } from '../tensorplan.js';
import type { CrossingError, HostReply, HostRequest, SessionFacts } from './protocol.js';

function crossing(error: unknown): CrossingError {
  if (error instanceof TensorplanError) return { name: error.name, code: error.code, message: error.message, reasons: { ...error.reasons } };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/** Answers requests from `receive` with `reply`, one session per worker. */
export function serveSession(
  init: (options: InitOptions) => Promise<Tensorplan>,
  receive: (handler: (request: HostRequest) => void) => void,
  reply: (message: HostReply) => void,
): void {
  let session: Tensorplan | undefined;
  receive(async (request) => {
    try {
      if (request.kind === 'init') {
        session = await init(request.options);
        const facts: SessionFacts = { backend: session.backend, source: session.source, coreVersion: session.coreVersion };
        reply({ id: request.id, ok: true, value: facts });
        return;
      }
      if (!session) throw new TensorplanError('INTERNAL', `${request.method} before init`);
      const method = (session as unknown as Record<string, unknown>)[request.method];
      if (typeof method !== 'function') throw new TensorplanError('UNSUPPORTED', `tp.${request.method} is not a session method`);
      const value = await (method as (...args: unknown[]) => unknown).apply(session, request.args);
      reply({ id: request.id, ok: true, value });
    } catch (error) {
      reply({ id: request.id, ok: false, error: crossing(error) });
    }
  });
}
