// Issue #14: bad input never shows a stack trace on the CLI and always exits 2.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/tensorplan.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tp-bad-input-'));

function run(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
}

describe('tensorplan with malformed input', () => {
  const cases: [string, string, string][] = [
    ['a plan without its schedule', 'plan.json', JSON.stringify({ format: 'tensorplan.plan', version: 1, graph: { path: 'x' } })],
    ['a layer spec with 2^30 groups', 'spec.layers.json', JSON.stringify({
      format: 'tensorplan.layers', version: 1, model: { hidden: 256, ffn: 512, heads: 4, sequence: 128, microBatch: 1 },
      layers: [{ kind: 'groupedLinear', groups: 2 ** 30, outFeatures: 256 }],
    })],
    ['a deeply nested graph', 'deep.graph.json', `${'['.repeat(100000)}${']'.repeat(100000)}`],
  ];
  it.each(cases)('%s: exit 2, one line naming the problem, no stack trace', (_, name, text) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    const out = run(name.startsWith('plan') ? 'validate' : 'plan', path);
    expect(out.status, out.stderr).toBe(2);
    expect(out.stderr).toMatch(/^tensorplan: /);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });
});
