// tp.fit finds the largest value of a layer-spec field whose plan fits a budget.
// Every answer is checked by planning the spec at the answer and at the value above directly.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyAlternative } from '../../../dist/index.mjs';
import type { LayerSpec, Tensorplan } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
import { errorOf } from '../../support/errors';

const GiB = 2 ** 30;
const llama = JSON.parse(readFileSync(new URL('../../../examples/llama3-8b-bf16-tp8sp.layers.json', import.meta.url), 'utf8')) as LayerSpec;
const tiny = {
  format: 'tensorplan.layers', version: 1, name: 'tiny',
  model: { hidden: 256, ffn: 1024, heads: 4, sequence: 64, microBatch: 2 },
  layers: [{ kind: 'transformer', repeat: 2 }],
} as unknown as LayerSpec;

/** arena + persistent of the spec with `path` set to `value`, planned directly. */
function totalAt(tp: Tensorplan, spec: LayerSpec, path: string, value: number): number {
  const lg = tp.layerGraph(applyAlternative(spec, `${path}=${value}`));
  return tp.layerPlanSummary(lg, tp.plan(lg.graph)).totalBytes;
}


describe.each(BACKENDS)('tp.fit on %s', (backend) => {
  const tp = session(backend);

  const cases: [string, LayerSpec, string, number, number][] = [
    ['llama microBatch 80 GiB', llama, 'model.microBatch', 80 * GiB, 0],
    ['llama microBatch 40 GiB, 2 GiB reserve', llama, 'model.microBatch', 40 * GiB, 2 * GiB],
    ['tiny sequence 64 MiB', tiny, 'model.sequence', 64 * 2 ** 20, 0],
    ['tiny sequence 200 MiB, 16 MiB reserve', tiny, 'model.sequence', 200 * 2 ** 20, 16 * 2 ** 20],
    ['tiny repeat 100 MiB', tiny, 'layers.0.repeat', 100 * 2 ** 20, 0],
  ];
  it.each(cases)('%s: the answer fits and the value above does not', (_name, spec, vary, budgetBytes, reserveBytes) => {
    const r = tp.fit(spec, { vary, budgetBytes, reserveBytes });
    expect(r.value).not.toBeNull();
    expect(r.monotone).toBe(true);
    const at = totalAt(tp, spec, vary, r.value!);
    expect(at).toBe(r.totalBytes);
    expect(at + reserveBytes).toBeLessThanOrEqual(budgetBytes);
    expect(r.next!.value).toBe(r.value! + 1);
    const above = totalAt(tp, spec, vary, r.value! + 1);
    expect(above).toBe(r.next!.totalBytes);
    expect(above + reserveBytes).toBeGreaterThan(budgetBytes);
    expect(r.next!.overByBytes).toBe(above + reserveBytes - budgetBytes);
    // What is alive at the next value's peak: the largest roles, and they are at most its peak.
    expect(r.next!.aliveByRole.length).toBeGreaterThan(0);
    expect(r.next!.aliveByRole.reduce((s, e) => s + e.bytes, 0)).toBeLessThanOrEqual(r.next!.peakBytes);
    expect(r.next!.aliveAtPeak[0].bytes).toBeGreaterThan(0);
    expect(r.unmodelled.some((u) => /CUDA context/.test(u))).toBe(true);
  });

  it('the reserve is taken off the budget: a larger reserve never gives a larger answer', () => {
    const a = tp.fit(tiny, { vary: 'model.sequence', budgetBytes: 200 * 2 ** 20 });
    const b = tp.fit(tiny, { vary: 'model.sequence', budgetBytes: 200 * 2 ** 20, reserveBytes: 64 * 2 ** 20 });
    expect(b.value!).toBeLessThan(a.value!);
    expect(b.reserveBytes).toBe(64 * 2 ** 20);
  });

  it('value is null when even the minimum does not fit, and next is the minimum', () => {
    const r = tp.fit(llama, { vary: 'model.microBatch', budgetBytes: 10 * GiB });
    expect(r.value).toBeNull();
    expect(r.peakBytes).toBeNull();
    expect(r.next!.value).toBe(1);
    expect(totalAt(tp, llama, 'model.microBatch', 1)).toBeGreaterThan(10 * GiB);
  });

  it('max bounds the search; a max that fits has no next', () => {
    const r = tp.fit(llama, { vary: 'model.microBatch', budgetBytes: 80 * GiB, min: 2, max: 5 });
    expect(r.value).toBe(5);
    expect(r.next).toBeNull();
    expect(r.probes.every((p) => p.value >= 2 && p.value <= 5)).toBe(true);
  });

  it('values the spec refuses are skipped and reported; tp (memory falls as it grows) is flagged not monotone', () => {
    const r = tp.fit(llama, { vary: 'tp', budgetBytes: 20 * GiB });
    expect(r.path).toBe('parallel.tp');
    expect(r.value).toBe(32);
    expect(r.monotone).toBe(false);
    const refused = r.probes.filter((p) => p.verdict === 'invalid');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0].reason).toMatch(/parallel\.tp = \d+: must divide model\.heads/);
    expect(r.probes.find((p) => p.value === 1)!.verdict).toBe('over');
  });

  it('reports each value tried through onProbe', () => {
    const seen: number[] = [];
    const r = tp.fit(tiny, { vary: 'sequence', budgetBytes: 64 * 2 ** 20, onProbe: (p) => seen.push(p.value) });
    expect(seen).toEqual(r.probes.map((p) => p.value));
  });

  it('bad key, non-integer path and bad budget are errors naming the field', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ vary: 'recipe', budgetBytes: GiB }, /options\.vary = "recipe": recipe is "bf16" in the spec, not an integer/],
      [{ vary: 'model.dtype', budgetBytes: GiB }, /options\.vary = "model\.dtype".*not an integer/],
      [{ vary: 'model.hidden.x', budgetBytes: GiB }, /options\.vary = "model\.hidden\.x": model\.hidden is 4096 in the spec, not an object/],
      [{ vary: 'model..x', budgetBytes: GiB }, /options\.vary/],
      [{ vary: 3, budgetBytes: GiB }, /options\.vary = 3/],
      [{ vary: 'model.microBatch', budgetBytes: -1 }, /options\.budgetBytes = -1/],
      [{ vary: 'model.microBatch', budgetBytes: '80GiB' }, /options\.budgetBytes = "80GiB"/],
      [{ vary: 'model.microBatch', budgetBytes: GiB, reserveBytes: Number.NaN }, /options\.reserveBytes = NaN/],
      [{ vary: 'model.microBatch', budgetBytes: GiB, min: 1.5 }, /options\.min = 1\.5/],
      [{ vary: 'model.microBatch', budgetBytes: GiB, min: 4, max: 2 }, /options\.max = 2/],
    ];
    for (const [options, message] of cases) {
      const error = errorOf(() => tp.fit(llama, options as never));
      expect(error.name).toBe('TensorplanError');
      expect(error.message).toMatch(message);
    }
    // A typo'd field is refused by the spec's schema at every value: no answer, the reason given.
    const typo = tp.fit(llama, { vary: 'model.microbatch', budgetBytes: 80 * GiB, max: 4 });
    expect(typo.value).toBeNull();
    expect(typo.probes[0].verdict).toBe('invalid');
    expect(typo.probes[0].reason).toMatch(/microbatch/);
  });
});
