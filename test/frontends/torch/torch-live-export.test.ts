// Programs exported in the test itself with the installed torch (python3 or TP_PYTHON; skipped
// with the reason otherwise): the given-order peak + persistent bytes with exact bytes equals
// PyTorch's eager live-storage peak, at the export's batch and at a batch bound with dims.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTorchExport } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
import { findTorch } from './torch-support';

const torch = findTorch();
const script = new URL('./export_tiny.py', import.meta.url).pathname;

describe.skipIf(!torch.python)(`programs exported now ${torch.why}`, () => {
  let exported: { dynamic: { path: string; symbol: string; peak4: number; peak6: number }; joint: { path: string; peak: number } } | undefined;
  const get = () => {
    if (!exported) {
      const out = spawnSync(torch.python!, [script, mkdtempSync(join(tmpdir(), 'tp-torch-'))], { encoding: 'utf8', maxBuffer: 16 << 20 });
      if (out.status !== 0) throw new Error(`export_tiny.py failed: ${out.stderr}`);
      exported = JSON.parse(out.stdout.trim().split('\n').pop()!);
    }
    return exported!;
  };

  describe.each(BACKENDS)('on %s', (backend) => {
    const tp = session(backend);
    const figure = (bytes: Uint8Array, options: Record<string, unknown>) => {
      const plan = tp.plan(tp.importTorchExport(bytes, { alignment: 1, ...options }).graph, { baselines: true });
      return plan.statistics.schedule.baselines.given + plan.statistics.persistentBytes;
    };

    it('a dynamic batch: the hint, and another batch bound by name, match eager', { timeout: 120_000 }, () => {
      const e = get().dynamic;
      const bytes = new Uint8Array(readFileSync(e.path));
      const r = importTorchExport(bytes, { alignment: 1 });
      expect(r.defaulted).toEqual({ [e.symbol]: 4 });
      expect(figure(bytes, {})).toBe(e.peak4);
      expect(figure(bytes, { dims: { [e.symbol]: 6 } })).toBe(e.peak6);
    });

    it('a joint forward + backward graph matches eager', { timeout: 120_000 }, () => {
      const e = get().joint;
      const bytes = new Uint8Array(readFileSync(e.path));
      expect(importTorchExport(bytes).joint).toBe(true);
      expect(figure(bytes, {})).toBe(e.peak);
    });
  });
});
