// A user can see, per layer and role, which TE behaviour put each byte
// there: every tensor of a layer graph names the TransformerEngine
// behaviour that keeps it (te-behaviours.ts, TE main at
// d0067d0da6cb01811b8072a7d304f0e00344ce2b; each test cites the TE file and
// function), the summary splits the bytes live at the peak by behaviour, and
// --compare explains a peak difference by role and behaviour, exactly.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TE_BEHAVIOURS, compareLayerSpecs } from '../../../dist/index.mjs';
import type { LayerEntry, LayerGraph, LayerPlanSummary, LayerSpec, Tensorplan } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';

const tiny = (layers: LayerEntry[], extra: Partial<LayerSpec> = {}): LayerSpec => ({
  format: 'tensorplan.layers', version: 1, name: 'tiny',
  model: { hidden: 128, ffn: 256, heads: 4, kvHeads: 2, sequence: 64, microBatch: 2 },
  layers, ...extra,
});
const example = (f: string): LayerSpec => JSON.parse(readFileSync(new URL(`../../../examples/${f}`, import.meta.url), 'utf8'));

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function planned(tp: Tensorplan, spec: LayerSpec) {
  const lg = tp.layerGraph(spec);
  const plan = tp.plan(lg.graph);
  return { lg, plan, summary: tp.layerPlanSummary(lg, plan) };
}

/** The exactness the summary promises: behaviours add up to each entry, and to the peak. */
function expectExact(summary: LayerPlanSummary, contributors: number): void {
  for (const e of summary.peakByLayerAndRole) {
    expect(sum(Object.values(e.byBehaviour) as number[]), `${e.layer} ${e.role}`).toBe(e.bytes);
  }
  expect(sum(summary.peakByBehaviour.map((e) => e.bytes))).toBe(summary.peakBytes);
  expect(sum(summary.peakByBehaviour.map((e) => e.storages))).toBe(sum(summary.peakByLayerAndRole.map((e) => e.storages)));
  expect(sum(summary.peakByLayerAndRole.map((e) => e.storages))).toBeGreaterThanOrEqual(contributors);
  for (const e of summary.peakByBehaviour) {
    expect(e).toMatchObject(TE_BEHAVIOURS[e.id]);
    expect(e.bytes).toBeGreaterThan(0);
  }
  const sizes = summary.peakByBehaviour.map((e) => e.bytes);
  expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
}

const byId = (lg: LayerGraph, because: string) => Object.entries(lg.tensors).filter(([, info]) => info.because === because).map(([name]) => name);

describe('the TE behaviour table', () => {
  it('cites a TE source for every behaviour, a TE file and function for each that TE itself decides', () => {
    for (const [id, b] of Object.entries(TE_BEHAVIOURS)) {
      expect(b.id).toBe(id);
      expect(b.what).toMatch(/\.$/);
      expect(b.source.length).toBeGreaterThan(3);
      expect(Object.keys(b).sort()).toEqual(['id', 'source', 'what']);
    }
    // The behaviours TE's own code decides (saved sets, lifetimes, transients, caches, gathers)
    // each cite a TE Python or C++ file.
    const teDecides = ['savedQuantizedWeight', 'lnOutBothUsages', 'actOutBothUsages', 'actOutColumnwiseInBackward',
      'heldUntilNodeEnd', 'fc1OutUntilDactQuantized', 'normQuantizeTemporary', 'activationQuantizeTemporary', 'dactTemporary',
      'cachedWeightWorkspace', 'highPrecisionGather'] as const;
    for (const id of teDecides) expect(TE_BEHAVIOURS[id].source, id).toMatch(/\.(py|cpp)\b/);
  });

  it('docs/layer-specs.md lists every behaviour with what it keeps and its TE source', () => {
    const docs = readFileSync(new URL('../../../docs/layer-specs.md', import.meta.url), 'utf8');
    for (const b of Object.values(TE_BEHAVIOURS)) {
      expect(docs).toContain(`| \`${b.id}\` | ${b.what} | ${b.source} |`);
    }
  });
});

describe.each(BACKENDS)('TE provenance of layer-graph bytes (%s)', (backend) => {
  const tp = session(backend);

  it('every tensor of every example and recipe names a known behaviour', () => {
    for (const f of ['llama3-8b-mxfp8-tp8sp.layers.json', 'mixtral-moe-tp8sp.layers.json']) {
      for (const recipe of ['mxfp8', 'bf16', 'nvfp4', 'fp8_block'] as const) {
        const lg = tp.layerGraph({ ...example(f), recipe, layers: example(f).layers.map((l) => ({ ...l, repeat: 1 })) });
        for (const [name, info] of Object.entries(lg.tensors)) expect(TE_BEHAVIOURS[info.because], `${name}: ${info.because}`).toBeDefined();
      }
    }
  });

  // TE d0067d0da6, module/linear.py _linear_forward_impl: update_usage(rowwise_usage=True)
  // drops nothing and wt_save = weightmat is saved whole; _Linear.backward releases it on return.
  it('savedQuantizedWeight and heldUntilNodeEnd: the per-step weight is saved whole and held from dgrad until wgrad (module/linear.py _linear_forward_impl, _Linear.backward)', () => {
    const lg = tp.layerGraph(tiny([{ kind: 'linear', outFeatures: 128 }], { recipe: 'mxfp8' }));
    const weight = Object.entries(lg.tensors).filter(([n]) => n.startsWith('L0.linear.weight_q.'));
    expect(weight.length).toBe(4);
    for (const [name, info] of weight) {
      expect(info.because, name).toBe('savedQuantizedWeight');
      expect(info.held?.until, name).toBe('L0.linear.wgrad');
      expect(info.held?.because, name).toBe('heldUntilNodeEnd');
      // The real last reader: fprop reads the rowwise buffers, dgrad the columnwise ones.
      expect(info.held?.lastReader, name).toBe(name.includes('.rowwise') ? 'L0.linear.fprop' : 'L0.linear.dgrad');
    }
  });

  // TE d0067d0da6, module/layernorm_mlp.py _LayerNormMLP._forward (fc1_input_quantizer.set_usage(rowwise=True,
  // columnwise=backwards_needs_fc1_input), no update_usage(rowwise_usage=False)) and _LayerNormMLP.backward
  // (act_out.update_usage(columnwise_usage=True) for FP8 per-tensor).
  it('lnOutBothUsages, actOutBothUsages: LayerNormMLP keeps ln_out and act_out whole; FP8 per-tensor builds act_out columnwise in backward (module/layernorm_mlp.py)', () => {
    const mx = tp.layerGraph(tiny([{ kind: 'layernormMLP', activation: 'swiglu' }], { recipe: 'mxfp8' }));
    expect(byId(mx, 'lnOutBothUsages').sort()).toEqual(Object.keys(mx.tensors).filter((n) => n.startsWith('L0.ln2.out.')).sort());
    expect(byId(mx, 'actOutBothUsages').sort()).toEqual(Object.keys(mx.tensors).filter((n) => n.startsWith('L0.act.out.')).sort());
    expect(byId(mx, 'lnOutBothUsages').length).toBe(4);
    expect(byId(mx, 'actOutColumnwiseInBackward')).toEqual([]);
    const fp8 = tp.layerGraph(tiny([{ kind: 'layernormMLP', activation: 'swiglu' }], { recipe: 'fp8_current', arch: 'hopper' }));
    expect(byId(fp8, 'actOutColumnwiseInBackward')).toEqual(['L0.fc2.input.transpose']);
    // A LayerNormLinear keeps only the columnwise input (layernorm_linear.py ≈L487).
    const lnl = tp.layerGraph(tiny([{ kind: 'layernormLinear', outFeatures: 128 }], { recipe: 'mxfp8' }));
    expect(byId(lnl, 'savedLinearInput').sort()).toEqual(['L0.ln.out.columnwise_data', 'L0.ln.out.columnwise_scale_inv']);
    expect(byId(lnl, 'lnOutBothUsages')).toEqual([]);
  });

  // TE d0067d0da6: csrc/extensions/normalization.cpp, csrc/extensions/activation.cpp,
  // module/layernorm_mlp.py _LayerNormMLP.backward (dact in high precision, then quantized; fc1_out cleared after).
  it('high-precision transients: the temporaries and fc1_out until the dact is quantized (normalization.cpp, activation.cpp, layernorm_mlp.py)', () => {
    const nv = tp.layerGraph(tiny([{ kind: 'layernormMLP', activation: 'swiglu' }], { recipe: 'nvfp4' }));
    expect(byId(nv, 'normQuantizeTemporary')).toEqual(['L0.ln2.out_hp']);
    expect(byId(nv, 'activationQuantizeTemporary')).toEqual(['L0.act.out_hp']);
    expect(byId(nv, 'dactTemporary')).toEqual(['L0.act.dact']);
    expect(nv.tensors['L0.act.saved_input'].held).toEqual({ lastReader: 'L0.act.bwd', until: 'L0.act.grad_quantize', because: 'fc1OutUntilDactQuantized' });
    const bf = tp.layerGraph(tiny([{ kind: 'layernormMLP', activation: 'swiglu' }]));
    expect(['normQuantizeTemporary', 'activationQuantizeTemporary', 'dactTemporary', 'fc1OutUntilDactQuantized'].flatMap((id) => byId(bf, id))).toEqual([]);
  });

  // TE d0067d0da6, module/linear.py Linear.forward (cache_name, self._fp8_workspaces), module/base.py quantize_weight.
  it('cachedWeightWorkspace, primaryQuantizedWeight: cached weight workspaces and primary quantized weights are named as such (module/linear.py Linear.forward)', () => {
    const cached = tp.layerGraph(tiny([{ kind: 'linear', outFeatures: 128 }], { recipe: 'mxfp8', quantizedWeights: 'cached' }));
    expect(byId(cached, 'cachedWeightWorkspace').length).toBe(4);
    expect(byId(cached, 'cachedWeightWorkspace').every((n) => cached.graph.persistent!.includes(n))).toBe(true);
    expect(byId(cached, 'savedQuantizedWeight')).toEqual([]);
    const primary = tp.layerGraph(tiny([{ kind: 'linear', outFeatures: 128 }], { recipe: 'mxfp8', quantizedWeights: 'primary' }));
    expect(byId(primary, 'primaryQuantizedWeight').length).toBe(4);
  });

  it('SP buffers, gradients, weight gradients and optimizer state are named', () => {
    const lg = tp.layerGraph(tiny([{ kind: 'transformer' }], { recipe: 'mxfp8', parallel: { tp: 2, sequenceParallel: true } }));
    expect(byId(lg, 'spAllGather')).toContain('L0.fc1.input_gathered.rowwise_data');
    expect(byId(lg, 'spAllGather')).toContain('L0.fc2.grad_out_gathered');
    expect(lg.tensors['L0.fc1.wgrad'].because).toBe('weightGradient');
    expect(lg.tensors['L0.fc1.grad_in'].because).toBe('gradient');
    expect(lg.tensors['L0.fc1.weight.master'].because).toBe('masterWeight');
    expect(lg.tensors['L0.fc1.weight.state1'].because).toBe('optimizerState');
    expect(lg.tensors['L0.attn.softmax_stats'].because).toBe('savedAttention');
  });

  it('the bytes by behaviour add up exactly, per layer and role and in all (random small specs, property)', () => {
    const KINDS: LayerEntry[] = [
      { kind: 'linear', outFeatures: 128, bias: true }, { kind: 'layernormLinear', outFeatures: 128 },
      { kind: 'layernormMLP', activation: 'gelu' }, { kind: 'layernormMLP', activation: 'swiglu', normalization: 'rmsnorm' },
      { kind: 'attention', fused: true, workspaceBytes: 4096 }, { kind: 'attention', fused: false },
      { kind: 'transformer', moe: { experts: 4, topK: 2 } },
    ];
    const entry = fc.oneof(
      fc.constantFrom<LayerEntry>(...KINDS),
      fc.record({ kind: fc.constant('transformer' as const), recompute: fc.boolean(), repeat: fc.integer({ min: 1, max: 2 }),
        activation: fc.constantFrom('gelu' as const, 'swiglu' as const) }),
    );
    fc.assert(fc.property(
      fc.array(entry, { minLength: 1, maxLength: 2 }),
      fc.constantFrom<LayerSpec['recipe']>('bf16', 'mxfp8', 'fp8_delayed', 'fp8_current', 'nvfp4', 'fp8_block'),
      fc.constantFrom(1, 2), fc.boolean(), fc.constantFrom('perStep' as const, 'cached' as const, 'primary' as const),
      (layers, recipe, tpSize, sp, quantizedWeights) => {
        const spec = tiny(layers, { recipe, parallel: { tp: tpSize, sequenceParallel: sp }, quantizedWeights, arch: 'blackwell' });
        const { plan, summary } = planned(tp, spec);
        expectExact(summary, plan.statistics.peakContributors.length);
      }), { numRuns: 16, seed: 15 });
  });

  it('compare deltas by role and by behaviour add up to the peak delta, both signs kept', () => {
    const spec = tiny([{ kind: 'transformer', repeat: 2, activation: 'swiglu' }], { recipe: 'mxfp8' });
    const cmp = compareLayerSpecs(tp, spec, ['recipe=bf16', 'quantizedWeights=cached', 'recompute=on']);
    expect(cmp.rows[0].explanation).toMatch(/^base: peak /);
    for (const row of cmp.rows.slice(1)) {
      expect(sum(row.peakDeltaByRole.map((d) => d.bytes)), row.label).toBe(row.deltaPeakBytes);
      expect(sum(row.peakDeltaByBehaviour.map((d) => d.bytes)), row.label).toBe(row.deltaPeakBytes);
      const p = row.deltaPersistent;
      expect(p.total).toBe(row.deltaPersistentBytes);
      for (const list of [row.peakDeltaByRole, row.peakDeltaByBehaviour]) {
        const sizes = list.map((d) => Math.abs(d.bytes));
        expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
        expect(list.every((d) => d.bytes !== 0)).toBe(true);
      }
      expect(row.explanation.startsWith(`${row.label}: peak `)).toBe(true);
      expect(row.explanation).not.toMatch(/\(-|\(\d[^)]*\)\s*$/);
    }
    // Caching the weights moves them out of the arena into persistent memory (cachedWeightWorkspace).
    const cached = cmp.rows[2];
    expect(cached.deltaPersistent.quantizedWeightCache).toBeGreaterThan(0);
    expect(cached.peakDeltaByBehaviour.find((d) => d.key === 'savedQuantizedWeight')!.bytes).toBeLessThan(0);
  });

  it('the 32-layer MXFP8 Llama example: what costs more than BF16, and what TE holds until its node ends', () => {
    const spec = example('llama3-8b-mxfp8.layers.json');
    const { lg, plan, summary } = planned(tp, spec);
    expectExact(summary, plan.statistics.peakContributors.length);
    const peakOp = plan.schedule[summary.peakStep];
    expect(peakOp).toMatch(/^L31\.act\.grad_quantize$/);
    // At the peak, L31's FC2 dgrad is done: its weight's columnwise buffers are alive only because
    // LayerNormMLP's ctx holds them until the node ends (heldUntilNodeEnd); the rowwise ones were never
    // read in backward and count as saved whole (savedQuantizedWeight).
    const held = summary.peakByBehaviour.find((e) => e.id === 'heldUntilNodeEnd')!;
    const columnwise = ['L31.fc2.weight_q.columnwise_data', 'L31.fc2.weight_q.columnwise_scale_inv'];
    for (const name of columnwise) expect(lg.tensors[name].held).toEqual({ lastReader: 'L31.fc2.dgrad', until: 'L31.ln2.bwd', because: 'heldUntilNodeEnd' });
    const storageBytes = (name: string) => plan.storages.find((s) => s.tensors[0] === name)!.bytes;
    expect(held.bytes).toBe(sum(columnwise.map(storageBytes)));
    expect(held.storages).toBe(2);
    const cmp = compareLayerSpecs(tp, spec, ['recipe=bf16'], {}, summary);
    const row = cmp.rows[1];
    expect(row.explanation).toMatch(/^recipe=bf16: peak -\d+\.\d+ GiB \(\d+\.\d+ GiB -> \d+\.\d+ GiB\): saved quantizedWeight -/);
    const role = (key: string) => row.peakDeltaByRole.find((d) => d.key === key)?.bytes ?? 0;
    expect(role('saved quantizedWeight')).toBeLessThan(0);
    expect(role('saved quantizedActivation')).toBeLessThan(0);
    expect(role('saved activation')).toBeGreaterThan(0);
    const behaviour = (key: string) => row.peakDeltaByBehaviour.find((d) => d.key === key)?.bytes ?? 0;
    for (const id of ['savedQuantizedWeight', 'actOutBothUsages', 'lnOutBothUsages', 'dactTemporary', 'heldUntilNodeEnd']) {
      expect(behaviour(id), id).toBe(-(summary.peakByBehaviour.find((e) => e.id === id)?.bytes ?? 0));
    }
  }, 120_000);
});
