// tensorplan's Inductor baselines against PyTorch's own torch/_inductor/memory.py
// (torch 2.14.1: topological_sort_lpmf, _bfs, _dfs and the chooser
// reorder_for_peak_memory), run by scripts/inductor-crosscheck.py on the
// examples, layer specs, ONNX zoo models and 72 seeded random graphs. Needs a
// Python with torch: `python3`, or the one TP_INDUCTOR_PYTHON names (e.g. a
// venv with torch 2.14.1, or 2.13.0+cpu with --memory-py pointing at 2.14.1's
// memory.py through TP_INDUCTOR_MEMORY_PY).
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const python = process.env.TP_INDUCTOR_PYTHON ?? 'python3';
const probe = spawnSync(python, ['-c', 'import torch'], { encoding: 'utf8' });
const SKIP_REASON = probe.status === 0 ? '' : `${python} cannot import torch`;

describe.skipIf(SKIP_REASON !== '')(`Inductor cross-check${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  it('gives the same orders and peaks as torch/_inductor/memory.py on every graph', async () => {
    const memoryPy = process.env.TP_INDUCTOR_MEMORY_PY;
    // Asynchronous: a blocked worker misses vitest's RPC deadlines during the minute this takes.
    const { stdout: out } = await promisify(execFile)(python, [
      'scripts/inductor-crosscheck.py', '--require-agreement', ...(memoryPy ? ['--memory-py', memoryPy] : []),
    ], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
    const total = Number(/, (\d+) graphs/.exec(out)?.[1]);
    expect(total).toBeGreaterThanOrEqual(95);
    for (const method of ['lpmf', 'bfs', 'dfs', 'best']) {
      expect(out).toMatch(new RegExp(`${method} +same order ${total}/${total}, same peak ${total}/${total}`));
    }
    expect(out).toContain(`same orders: ${total}/${total}`);
  }, 300_000);
});
