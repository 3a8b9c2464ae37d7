// Joint schedule and placement (plan(graph, { joint: true }), docs/plans.md
// "Joint schedule and placement"): the order is chosen by its placed arena.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TensorplanError, parsePlan } from '../../dist/index.mjs';
import type { GraphDocument } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';

/**
 * A layered graph from a compact list: op i reads the listed tensors (-1 = the
 * graph input, j = op j's output), writes `units` x 256 bytes and, when the
 * flag is 1, needs a 2 KiB workspace. The last op's output is the graph's.
 */
function layeredGraph(ops: readonly (readonly [readonly number[], number, number])[]): GraphDocument {
  const name = (t: number) => (t < 0 ? 'in' : `t${t}`);
  return {
    format: 'tensorplan.graph', version: 1, name: 'layered',
    tensors: [{ name: 'in', bytes: 4096 }, ...ops.map(([, units], i) => ({ name: `t${i}`, bytes: 256 * units }))],
    ops: ops.map(([reads, , workspace], i) => ({
      name: `op${i}`, op: 'x', inputs: reads.map(name), outputs: [`t${i}`], workspaceBytes: workspace ? 2048 : 0,
    })),
    inputs: ['in'], outputs: [`t${ops.length - 1}`],
  };
}

/**
 * 40 ops found by a seeded search over the layered graphs of
 * bench/plan.bench.mjs (reads among the 8 latest tensors): the smallest-peak
 * order (17152 B) places at 18432 B, Inductor's BFS order peaks higher
 * (17664 B) and places at its peak, 768 B less, and a compacted copy of the
 * smallest-peak order places at 17152 B.
 */
const PEAK_ORDER_PLACES_WORSE = layeredGraph([
  [[-1], 16, 0], [[-1], 12, 0], [[0], 13, 0], [[-1, 1], 8, 0], [[-1], 7, 0], [[4, 3], 13, 0], [[5], 11, 1], [[1], 14, 1],
  [[2, 5, 3], 13, 1], [[7, 8], 5, 0], [[9, 3], 14, 0], [[6, 8], 9, 0], [[7], 4, 0], [[7], 6, 0], [[7], 2, 0], [[11, 8, 9], 15, 0],
  [[10], 6, 0], [[9], 8, 0], [[11, 17], 11, 0], [[18, 15], 1, 0], [[15, 19, 14], 10, 0], [[14], 5, 0], [[16, 14], 10, 0],
  [[18, 19], 5, 1], [[17, 22], 6, 1], [[24], 13, 0], [[25, 21, 19], 9, 1], [[26, 19], 13, 0], [[20, 25, 24], 16, 0], [[21, 22], 1, 0],
  [[25, 27], 14, 0], [[28, 29], 2, 0], [[29, 26], 10, 0], [[32, 31], 11, 0], [[28, 31], 9, 0], [[31, 28, 29], 5, 0], [[32], 12, 0],
  [[36, 31], 11, 1], [[32, 37, 34], 4, 0], [[31], 7, 0],
]);

/** Random layered graphs: each op reads 1-3 of the `window` latest tensors. */
const layeredArbitrary = fc.integer({ min: 2, max: 12 }).chain((window) =>
  fc.array(fc.tuple(fc.array(fc.nat(window - 1), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 32 }), fc.nat(1)), { minLength: 1, maxLength: 60 })
    .map((ops) => layeredGraph(ops.map(([back, units, workspace], i) => [[...new Set(back.map((b) => i - 1 - Math.min(b, i)))], units, workspace] as const))));

describe.each(BACKENDS)('joint plan on %s', (backend) => {
  const tp = session(backend);

  it('keeps the order that places smallest, here a compacted copy of the peak order, and reports both orders', () => {
    const plain = tp.plan(PEAK_ORDER_PLACES_WORSE);
    const joint = tp.plan(PEAK_ORDER_PLACES_WORSE, { joint: true, baselines: true });
    expect(plain.statistics.joint).toBeUndefined();
    expect(tp.validate(joint)).toEqual([]);
    const j = joint.statistics.joint!;
    expect(j.peakOrder).toEqual({ peakBytes: plain.statistics.peakBytes, arenaBytes: plain.arenaBytes });
    expect(j.chosen).toEqual({ peakBytes: joint.statistics.peakBytes, arenaBytes: joint.arenaBytes });
    expect(j.peakOrder).toEqual({ peakBytes: 17152, arenaBytes: 18432 });
    // Inductor's BFS order peaks higher and places at its peak, 768 B below
    // the peak order's arena; the compacted copy keeps the smallest peak and
    // places at it.
    expect(joint.statistics.schedule.baselines['inductor-bfs']).toBe(17664);
    expect(j.order).toBe('ours, compacted (seed 1)');
    expect(joint.statistics.schedule.method).toBe('ours, compacted (seed 1)');
    expect(j.chosen).toEqual({ peakBytes: 17152, arenaBytes: 17152 });
    expect(joint.schedule).not.toEqual(plain.schedule);
    expect(Object.keys(joint.statistics.placement.baselines)).toEqual(['greedy-size', 'xla-best', 'first-fit']);
    expect(parsePlan(JSON.parse(JSON.stringify(joint)))).toEqual(joint);
  });

  it('on random layered graphs the joint arena is never above the default one, and the plan is valid', () => {
    fc.assert(fc.property(layeredArbitrary, (graph) => {
      const plain = tp.plan(graph);
      const joint = tp.plan(graph, { joint: true });
      expect(tp.validate(joint)).toEqual([]);
      expect(parsePlan(JSON.parse(JSON.stringify(joint)))).toEqual(joint);
      const j = joint.statistics.joint!;
      expect(joint.arenaBytes).toBeLessThanOrEqual(plain.arenaBytes);
      expect(j.peakOrder).toEqual({ peakBytes: plain.statistics.peakBytes, arenaBytes: plain.arenaBytes });
      expect(j.chosen).toEqual({ peakBytes: joint.statistics.peakBytes, arenaBytes: joint.arenaBytes });
      expect(j.candidates).toBeGreaterThanOrEqual(1);
      if (j.order === plain.statistics.schedule.method) expect(joint.schedule).toEqual(plain.schedule);
      // Ties keep the smaller peak: an order with a higher peak must place strictly smaller.
      if (joint.statistics.peakBytes > plain.statistics.peakBytes) expect(joint.arenaBytes).toBeLessThan(plain.arenaBytes);
    }), { numRuns: 25, seed: 18 });
  });

  it('a thorough joint plan is valid and reports both orders', () => {
    const plan = tp.plan(PEAK_ORDER_PLACES_WORSE, { joint: true, effort: 'thorough', timeLimitSeconds: 0.5 });
    expect(tp.validate(plan)).toEqual([]);
    expect(plan.statistics.joint!.chosen).toEqual({ peakBytes: plan.statistics.peakBytes, arenaBytes: plan.arenaBytes });
    expect(plan.arenaBytes).toBeLessThanOrEqual(plan.statistics.joint!.peakOrder.arenaBytes);
  });

  it.each([1, 'yes', null])('refuses joint = %s, naming the option', (value) => {
    expect(() => tp.plan(PEAK_ORDER_PLACES_WORSE, { joint: value as never })).toThrow(TensorplanError);
    expect(() => tp.plan(PEAK_ORDER_PLACES_WORSE, { joint: value as never })).toThrow(/joint = .*expected true or false/);
  });
});
