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
    // Cached weight workspaces (TE linear.py Linear.forward cache_name) are listed with the persistent bytes.
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
    expect(text.stdout).toContain('alternatives, largest device total (arena + persistent) first');
    expect(text.stdout).toContain('weightGradients=bulk');
  });

  // Which TE behaviour keeps the bytes live at the peak, and where MXFP8 costs more than BF16.
  it('prints the bytes live at the peak by TE behaviour and explains a --compare by role and behaviour, narrow', () => {
    const mxFile = join(dir, 'mx.layers.json');
    writeFileSync(mxFile, JSON.stringify({ ...tinySpec, recipe: 'mxfp8', layers: [{ kind: 'transformer', repeat: 2, activation: 'swiglu' }] }));
    const out = run('plan', mxFile, '--compare', 'recipe=bf16', '--backend', 'wasm');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    // eslint-disable-next-line no-control-regex
    const lines = out.stdout.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
    const from = lines.findIndex((l) => l.startsWith('live at the peak (step'));
    expect(from).toBeGreaterThan(0);
    const tableAt = lines.findIndex((l) => l.startsWith('alternatives, largest device total'));
    const behaviours = lines.slice(from, tableAt);
    expect(behaviours.join('\n')).toMatch(/│ live at the peak, by TE behaviour\s+│ bytes\s+│ storages\s+│/);
    expect(behaviours.join('\n')).toMatch(/savedQuantizedWeight\s+│ [\d.]+ [KMG]iB\s+│ \d+\s+│/);
    expect(behaviours.join('\n')).toContain('module/linear.py _linear_forward_impl');
    // The table fits 100 columns, largest device total first, signed deltas without
    // parentheses; then one line per alternative naming the roles behind the peak difference.
    const table = lines.slice(tableAt + 1, lines.findIndex((l, i) => i > tableAt && l.startsWith('recipe=bf16: peak ')));
    for (const line of table) expect(line.length, line).toBeLessThanOrEqual(100);
    const rowsOf = table.filter((l) => l.startsWith('│') && !l.includes('alternative'));
    expect(rowsOf.map((l) => l.split('│')[1].trim())).toEqual(['base', 'recipe=bf16']);  // MXFP8 holds more
    expect(rowsOf[1]).toMatch(/│ -[\d.]+ [KM]iB\s+│/);
    expect(table.join('\n')).not.toMatch(/\(\d/);
    const oneLine = lines.find((l) => l.startsWith('recipe=bf16: peak '))!;
    expect(oneLine).toMatch(/^recipe=bf16: peak -[\d.]+ [KM]iB \([\d.]+ [KM]iB -> [\d.]+ [KM]iB\): saved quantizedWeight -/);
    const explained = lines.slice(lines.findIndex((l) => l.startsWith('recipe=bf16 in detail: peak ')));
    expect(explained[0]).toMatch(/^recipe=bf16 in detail: peak -[\d.]+ [KM]iB \([\d.]+ [KM]iB -> [\d.]+ [KM]iB\), live at each peak:$/);
    expect(explained.join('\n')).toMatch(/saved quantizedWeight\s+│ -[\d.]+ [KM]iB/);
    expect(explained.join('\n')).toMatch(/│ by TE behaviour\s+│ Δ bytes\s+│/);
    expect(explained.join('\n')).toMatch(/savedLinearInput\s+│ \+[\d.]+ [KM]iB/);
    expect(explained.join('\n')).toContain('persistent 0 B: weights 0 B');
    for (const line of [...behaviours, ...explained]) expect(line.length, line).toBeLessThanOrEqual(100);
    const json = JSON.parse(run('plan', mxFile, '--json', '--compare', 'recipe=bf16', '--backend', 'wasm').stdout);
    const sum = (xs: { bytes: number }[]) => xs.reduce((a, x) => a + x.bytes, 0);
    expect(sum(json.layers.peakByBehaviour)).toBe(json.peakBytes);
    expect(json.layers.peakByBehaviour[0]).toHaveProperty('source');
    expect(json.layers.peakByBehaviour[0]).toHaveProperty('what');
    expect(json.layers.peakByBehaviour[0]).not.toHaveProperty('rule');
    expect(json.layers.peakByLayerAndRole[0]).toHaveProperty('byBehaviour');
    const row = json.comparison[1];
    expect(sum(row.peakDeltaByRole)).toBe(row.deltaPeakBytes);
    expect(sum(row.peakDeltaByBehaviour)).toBe(row.deltaPeakBytes);
    expect(row.deltaPersistent.total).toBe(row.deltaPersistentBytes);
    expect(row.explanation).toMatch(/^recipe=bf16: peak -.*saved quantizedWeight -/);
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
    // TE refuses MXFP8 below Blackwell (quantization.py _compute_mxfp8_support): the bf16 example says arch hopper.
    const hopper = run('plan', example('llama3-8b-bf16.layers.json'), '--compare', 'recipe=mxfp8');
    expect(hopper.code).toBe(2);
    expect(hopper.stderr).toContain('with recipe=mxfp8: arch = hopper: recipe = mxfp8 needs compute capability 10.0');
    expect(hopper.stderr).toContain('_compute_mxfp8_support');
    const graph = run('plan', example('two-chains.graph.json'), '--compare', 'recipe=mxfp8');
    expect(graph.code).toBe(2);
    expect(graph.stderr).toContain('--compare needs a layer spec');
  });
});
