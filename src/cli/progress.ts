import { SingleBar } from 'cli-progress';
import type { PlanProgress } from '../index.js';

/**
 * A progress bar on stderr while plan() works, shown only when stderr is a
 * terminal (never in pipes, logs or --json output).
 */
export function planProgressBar(): { onProgress?: (p: PlanProgress) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { stop: () => undefined };
  const bar = new SingleBar({ format: 'planning {bar} {phase}', stream: process.stderr, clearOnComplete: true, hideCursor: true });
  let started = false;
  return {
    onProgress: (p) => {
      if (!started) {
        bar.start(p.total, 0, { phase: p.phase });
        started = true;
      }
      bar.update(p.completed, { phase: p.phase });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
