// `tensorplan plan` with a layer spec and --compare, as a user runs it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const bin = new URL('../../../bin/tensorplan.mjs', import.meta.url).pathname;
const example = (name: string) => new URL(`../../../examples/${name}`, import.meta.url).pathname;

function run(...args: string[]) {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const tinySpec = {
  format: 'tensorplan.layers', version: 1, name: 'tiny',
  model: { hidden: 128, ffn: 256, heads: 4, sequence: 64, microBatch: 2 },
  layers: [{ kind: 'transformer', repeat: 2 }],
};

describe('tensorplan plan with layer specs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tp-layers-'));
  const file = join(dir, 'tiny.layers.json');
  writeFileSync(file, JSON.stringify(tinySpec));

  it('prints peak, arena, persistent and what is live at the peak by layer and role', () => {
    const out = run('plan', file, '--backend', 'wasm');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('peak (lower bound)');
    expect(out.stdout).toMatch(/persistent: weights [\d,]+ B.*master weights.*optimizer state/);
    expect(out.stdout).toContain('live at the peak, by layer and role');
    expect(out.stdout).toMatch(/L[01]\s.*saved activation/);
    // Rule 5 of issue #15: cached weight workspaces are listed with the persistent bytes.
    const cachedFile = join(dir, 'cached.layers.json');
    writeFileSync(cachedFile, JSON.stringify({ ...tinySpec, recipe: 'mxfp8', quantizedWeights: 'cached' }));
    const cached = run('plan', cachedFile, '--backend', 'wasm');
    expect(cached.code).toBe(0);
    expect(cached.stdout).toMatch(/persistent: weights [\d,]+ B.*, quantized weight cache [\d,]+ B.*master weights/);
    expect(out.stdout).not.toContain('quantized weight cache');
  });

  it('--compare plans the alternatives and --json carries their deltas', () => {
    const out = run('plan', file, '--json', '--compare', 'recipe=mxfp8', 'recompute=on', '--backend', 'wasm');
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout);
    expect(json.layers.persistent.total).toBe(json.persistentBytes);
    expect(json.comparison.map((r: { label: string }) => r.label)).toEqual(['base', 'recipe=mxfp8', 'recompute=on']);
    const [base, , recompute] = json.comparison;
    expect(base.peakBytes).toBe(json.peakBytes);
    expect(recompute.deltaPeakBytes).toBe(recompute.peakBytes - base.peakBytes);
    expect(recompute.deltaPeakBytes).toBeLessThan(0);
    const text = run('plan', file, '--compare', 'weightGradients=bulk', '--backend', 'wasm');
    expect(text.stdout).toContain('alternatives (deltas against the base spec)');
    expect(text.stdout).toContain('weightGradients=bulk');
  });

  it('--budget answers "does it fit" for the example Llama stack (exit 1 when it does not)', () => {
    const fits = run('plan', example('llama3-8b-bf16-tp8sp.layers.json'), '--budget', '80GiB', '--json');
    expect(fits.code).toBe(0);
    expect(JSON.parse(fits.stdout).budget.fits).toBe(true);
    const over = run('plan', example('llama3-8b-bf16.layers.json'), '--budget', '80GiB');
    expect(over.code).toBe(1);
    expect(over.stdout).toContain('DOES NOT FIT');
  }, 60_000);

  it('bad specs and bad alternatives are usage errors (exit 2) naming the field', () => {
    const bad = join(dir, 'bad.layers.json');
    writeFileSync(bad, JSON.stringify({ ...tinySpec, parallel: { tp: 3 } }));
    const out = run('plan', bad);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('parallel.tp = 3');
    const alt = run('plan', file, '--compare', 'recipe=fp9');
    expect(alt.code).toBe(2);
    expect(alt.stderr).toContain('recipe=fp9');
    // TE refuses MXFP8 below Blackwell (rule 7 of issue #15): the bf16 example says arch hopper.
    const hopper = run('plan', example('llama3-8b-bf16.layers.json'), '--compare', 'recipe=mxfp8');
    expect(hopper.code).toBe(2);
    expect(hopper.stderr).toContain('with recipe=mxfp8: arch = hopper: recipe = mxfp8 needs compute capability 10.0');
    expect(hopper.stderr).toContain('_compute_mxfp8_support');
    const graph = run('plan', example('two-chains.graph.json'), '--compare', 'recipe=mxfp8');
    expect(graph.code).toBe(2);
    expect(graph.stderr).toContain('--compare needs a layer spec');
  });
});
