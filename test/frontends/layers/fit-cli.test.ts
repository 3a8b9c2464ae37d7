// `tensorplan fit` as a user runs it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyAlternative, init } from '../../../dist/index.mjs';
import type { LayerSpec } from '../../../dist/index.mjs';

const bin = new URL('../../../bin/tensorplan.mjs', import.meta.url).pathname;
const llama = new URL('../../../examples/llama3-8b-bf16-tp8sp.layers.json', import.meta.url).pathname;

function run(...args: string[]) {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

describe('tensorplan fit', () => {
  it('answers for the Llama example at 80 GiB: the answer fits, the next value does not', async () => {
    const out = run('fit', llama, '--budget', '80GiB', '--vary', 'model.microBatch', '--json', '--backend', 'wasm');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout);
    expect(json.vary).toBe('model.microBatch');
    expect(json.reserveBytes).toBe(0);
    expect(json.next.value).toBe(json.value + 1);
    expect(json.peakBytes).toBeGreaterThan(0);
    expect(json.next.peakBytes).toBeGreaterThan(json.peakBytes);
    // Checked by planning the two values directly.
    const tp = await init({ backend: 'wasm' });
    const spec = (await import(llama, { with: { type: 'json' } })).default as LayerSpec;
    const total = (v: number) => {
      const lg = tp.layerGraph(applyAlternative(spec, `model.microBatch=${v}`));
      return tp.layerPlanSummary(lg, tp.plan(lg.graph)).totalBytes;
    };
    expect(total(json.value)).toBeLessThanOrEqual(80 * 2 ** 30);
    expect(total(json.next.value)).toBeGreaterThan(80 * 2 ** 30);
  });

  it('prints the answer, its peak, what is alive at the next value\'s peak, and what the plan does not model', () => {
    const out = run('fit', llama, '--budget', '80GiB', '--reserve', '2GiB', '--vary', 'microBatch', '--backend', 'wasm');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/largest model\.microBatch that fits 80 GiB less a reserve of 2 GiB: \d+/);
    expect(out.stdout).toMatch(/peak [\d,]+ B/);
    expect(out.stdout).toMatch(/model\.microBatch = \d+ does not fit: .*over by/);
    expect(out.stdout).toContain('alive at its peak, by role');
    expect(out.stdout).toContain('saved activation');
    expect(out.stdout).toContain('the reserve of 2 GiB stands for them');
    for (const thing of ['CUDA context', 'NCCL', 'LM head', 'fragmentation']) expect(out.stdout).toContain(thing);
  });

  it('exits 1 with value null when the minimum does not fit', () => {
    const out = run('fit', llama, '--budget', '10GiB', '--vary', 'model.microBatch', '--json', '--backend', 'wasm');
    expect(out.code).toBe(1);
    const json = JSON.parse(out.stdout);
    expect(json.value).toBeNull();
    expect(json.next.value).toBe(1);
  });

  it('bad key, non-integer path, bad budget and a graph file are usage errors naming the field (exit 2)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-fit-'));
    const graph = join(dir, 'g.json');
    writeFileSync(graph, JSON.stringify({ format: 'tensorplan.graph', version: 1, tensors: [], ops: [] }));
    const cases: [string[], RegExp][] = [
      [[llama, '--budget', '80GiB', '--vary', 'recipe'], /options\.vary = "recipe": recipe is "bf16" in the spec, not an integer/],
      [[llama, '--budget', '80GiB', '--vary', 'model.hidden.x'], /model\.hidden is 4096 in the spec, not an object/],
      [[llama, '--budget', 'lots', '--vary', 'model.microBatch'], /--budget "lots": expected a size/],
      [[llama, '--budget', '0', '--vary', 'model.microBatch'], /--budget "0": must be more than 0 bytes/],
      [[llama, '--budget', '80GiB', '--vary', 'model.microBatch', '--min', 'x'], /--min "x": expected an integer/],
      [[llama, '--budget', '80GiB', '--vary', 'model.microBatch', '--min', '4', '--max', '2'], /--max 2: must be at least --min 4/],
      [[llama, '--budget', '80GiB'], /--vary/],
      [[graph, '--budget', '80GiB', '--vary', 'model.microBatch'], /needs a layer spec/],
    ];
    for (const [args, message] of cases) {
      const out = run('fit', ...args, '--backend', 'wasm');
      expect(out.code, args.join(' ')).toBe(2);
      expect(out.stderr).toMatch(message);
      expect(out.stdout).toBe('');
    }
  });
});
