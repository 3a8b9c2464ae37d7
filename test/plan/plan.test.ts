// plan() and validate() (PLANNING.md §5-§6) on every backend, with the example graphs.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TensorplanError, parseGraph, parsePlan } from '../../dist/index.mjs';
import type { GraphDocument, PlanDocument, PlanProgress } from '../../dist/index.mjs';
import { BACKENDS, BOTH_BACKENDS, session } from '../support/backends';

const EXAMPLES = ['transformer-block-training', 'moe-layer', 'cnn-inference'];
const example = (name: string): GraphDocument =>
  parseGraph(JSON.parse(readFileSync(new URL(`../../examples/${name}.json`, import.meta.url), 'utf8')), name);

/** A plan without the parts that legitimately differ between runs. */
const comparable = (plan: PlanDocument) => ({ ...plan, tool: { ...plan.tool, backend: '' }, statistics: { ...plan.statistics, timeMs: null } });

describe.each(BACKENDS)('plan on %s', (backend) => {
  const tp = session(backend);

  it.each(EXAMPLES)('%s: a valid plan at the lower bound, never worse than any baseline', (name) => {
    const plan = tp.plan(example(name), { baselines: true });
    const s = plan.statistics;
    expect(tp.validate(plan)).toEqual([]);
    expect(plan.arenaBytes).toBeGreaterThanOrEqual(s.lowerBoundBytes);
    expect(s.arenaOverLowerBound).toBeCloseTo(plan.arenaBytes / s.lowerBoundBytes, 12);
    expect(Math.max(...s.liveBytes)).toBe(s.peakBytes);
    for (const peak of Object.values(s.schedule.baselines)) expect(s.peakBytes).toBeLessThanOrEqual(peak);
    for (const height of Object.values(s.placement.baselines)) expect(plan.arenaBytes).toBeLessThanOrEqual(height);
    expect(Object.keys(s.schedule.baselines)).toHaveLength(7);
    expect(Object.keys(s.placement.baselines)).toEqual(['greedy-size', 'xla-best', 'first-fit']);
    expect(s.peakContributors.reduce((sum, c) => sum + c.bytes, 0)).toBeLessThanOrEqual(s.peakBytes);
    expect(plan.tool).toEqual({ name: 'tensorplan', version: expect.any(String), backend });
  });

  it('the MoE example: our order beats the best baseline strictly', () => {
    const s = tp.plan(example('moe-layer'), { baselines: true }).statistics;
    expect(s.peakBytes).toBeLessThan(Math.min(...Object.values(s.schedule.baselines)));
  });

  it('round-trips exactly through JSON and passes the plan schema', () => {
    const plan = tp.plan(example('cnn-inference'));
    const copy = JSON.parse(JSON.stringify(plan));
    expect(copy).toEqual(plan);
    expect(parsePlan(copy)).toEqual(plan);
    expect(tp.validate(copy)).toEqual([]);
  });

  it('says whether the plan fits a budget, and by how much it misses', () => {
    const graph = example('cnn-inference');
    const total = (p: PlanDocument) => p.arenaBytes + p.statistics.persistentBytes;
    const fits = tp.plan(graph, { budgetBytes: 2 ** 40 });
    expect(fits.statistics.budget).toEqual({ budgetBytes: 2 ** 40, fits: true, overByBytes: 0 });
    const tight = tp.plan(graph, { budgetBytes: 1 << 20 });
    expect(tight.statistics.budget).toEqual({ budgetBytes: 1 << 20, fits: false, overByBytes: total(tight) - (1 << 20) });
  });

  it('reports progress through every phase, in order', () => {
    const seen: PlanProgress[] = [];
    tp.plan(example('cnn-inference'), { onProgress: (p) => seen.push(p) });
    expect(seen.map((p) => p.phase)).toEqual(['schedule', 'place', 'validate', 'done']);
    expect(seen.map((p) => p.completed)).toEqual([0, 1, 2, 3]);
  });

  it('thorough effort never does worse than fast', () => {
    const graph = example('moe-layer');
    const fast = tp.plan(graph);
    const thorough = tp.plan(graph, { effort: 'thorough', timeLimitSeconds: 1 });
    expect(thorough.statistics.peakBytes).toBeLessThanOrEqual(fast.statistics.peakBytes);
    expect(thorough.arenaBytes).toBeLessThanOrEqual(fast.arenaBytes);
  });

  it('plans the empty graph as zero bytes', () => {
    const plan = tp.plan({ format: 'tensorplan.graph', version: 1, tensors: [], ops: [] });
    expect(plan.arenaBytes).toBe(0);
    expect(plan.statistics.peakBytes).toBe(0);
    expect(tp.validate(plan)).toEqual([]);
  });

  it.each([
    [{ placement: 'best' }, "placement = \"best\": expected one of ours"],
    [{ effort: 'max' }, "effort = \"max\": expected 'fast' or 'thorough'"],
    [{ timeLimitSeconds: -1 }, 'timeLimitSeconds = -1: must be a positive number'],
    [{ budgetBytes: 1.5 }, 'budgetBytes = 1.5: must be an integer'],
  ])('rejects bad options %j naming the value', (options, message) => {
    expect(() => tp.plan(example('cnn-inference'), options as never)).toThrow(message);
  });

  it('reports a broken graph as a TensorplanError naming the cycle', () => {
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [{ name: 'a', bytes: 8 }, { name: 'b', bytes: 8 }],
      ops: [{ name: 'f', op: 'x', inputs: ['b'], outputs: ['a'] }, { name: 'g', op: 'x', inputs: ['a'], outputs: ['b'] }],
    };
    expect(() => tp.plan(graph)).toThrow(TensorplanError);
    expect(() => tp.plan(graph)).toThrow(/cycle/);
  });

  it('validate() needs the graph when the plan only references it', () => {
    const graph = example('cnn-inference');
    const plan = tp.plan(graph, { graphPath: 'cnn-inference.json' });
    expect(plan.graph).toEqual({ path: 'cnn-inference.json' });
    expect(() => tp.validate(plan)).toThrow('pass the graph to validate()');
    expect(tp.validate(plan, graph)).toEqual([]);
  });
});

describe.each(BACKENDS)('validate() catches planted corruptions on %s', (backend) => {
  const tp = session(backend);
  const base = tp.plan(example('moe-layer'));
  const codes = (plan: PlanDocument) => tp.validate(plan).map((d) => d.code);
  const mutate = (edit: (p: PlanDocument) => void) => {
    const plan = structuredClone(base);
    edit(plan);
    return plan;
  };
  const overlapping = () => {
    // Two storages alive at the same step with bytes to collide.
    for (const a of base.storages) {
      for (const b of base.storages) {
        if (a !== b && a.bytes > 0 && b.bytes > 0 && a.birth <= b.death && b.birth <= a.death) return [a.tensors[0], b.tensors[0]];
      }
    }
    throw new Error('no overlapping pair');
  };

  it.each([
    ['OVERLAP', (p: PlanDocument) => { const [a, b] = overlapping(); p.storages.find((s) => s.tensors[0] === a)!.offset = p.storages.find((s) => s.tensors[0] === b)!.offset; }],
    ['MISALIGNED', (p: PlanDocument) => { p.storages[3].offset += 8; }],
    ['OUTSIDE_ARENA', (p: PlanDocument) => { p.arenaBytes -= 256; }],
    ['SCHEDULE_INVALID', (p: PlanDocument) => { p.schedule.reverse(); }],
    ['SCHEDULE_INVALID', (p: PlanDocument) => { p.schedule[0] = 'no-such-op'; }],
    ['STORAGE_MISSING', (p: PlanDocument) => { p.storages.splice(2, 1); }],
    ['STORAGE_UNKNOWN', (p: PlanDocument) => { p.storages[0].tensors[0] = 'ghost'; }],
    ['FREED_WHILE_IN_USE', (p: PlanDocument) => { p.storages[1].death -= 1; }],
    ['SIZE_MISMATCH', (p: PlanDocument) => { p.storages[1].bytes -= 256; }],
    ['WORKSPACE_MISSING', (p: PlanDocument) => { p.workspaces.pop(); }],
    ['STATS_MISMATCH', (p: PlanDocument) => { p.statistics.peakBytes += 1; }],
    ['GRAPH_INVALID', (p: PlanDocument) => { const g = p.graph as GraphDocument; (g.aliases!.find((a) => a.kind === 'view') as { offset: number }).offset = 2 ** 40; }],
  ])('%s', (code, edit) => {
    expect(codes(mutate(edit))).toContain(code);
  });

  it('property: shifting a storage by whole alignments is reported exactly when it collides or leaves the arena', () => {
    fc.assert(fc.property(fc.nat(base.storages.length - 1), fc.integer({ min: -64, max: 64 }), (k, units) => {
      const plan = structuredClone(base);
      const moved = plan.storages[k];
      moved.offset += units * 256;
      // An oracle written here: pairwise, from the plan's own lifetimes (which are the true ones: unchanged).
      const collides = plan.storages.some((o, j) => j !== k && o.bytes > 0 && moved.bytes > 0 &&
        o.birth <= moved.death && moved.birth <= o.death && o.offset < moved.offset + moved.bytes && moved.offset < o.offset + o.bytes) ||
        plan.workspaces.some((w) => moved.bytes > 0 && moved.birth <= w.step && w.step <= moved.death &&
          w.offset < moved.offset + moved.bytes && moved.offset < w.offset + w.bytes);
      const outside = moved.offset < 0 || moved.offset + moved.bytes > plan.arenaBytes;
      expect(tp.validate(plan).length > 0).toBe(collides || outside);
    }), { numRuns: 300 });
  });
});

describe.skipIf(!BOTH_BACKENDS)('plan parity', () => {
  // Fast plans bound their searches by work, not time: byte-identical on both backends.
  it.each(EXAMPLES)('%s: wasm and native make the same plan', (name) => {
    const graph = example(name);
    const options = { baselines: true };
    expect(comparable(session('wasm').plan(graph, options))).toEqual(comparable(session('native').plan(graph, options)));
  });
});
