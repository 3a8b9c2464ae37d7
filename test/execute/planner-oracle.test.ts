// The planner's oracle: random valid graphs of op set v1 executed in the
// planned arena and with one allocation per storage give bit-identical
// outputs, the executor's trace verifies clean, and overlapping placements are
// caught by validate and by the executor.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GraphDocument, PlanDocument } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';
import { ALL_OPS, randomGraph, randomInputs } from './random-graphs';

/** Two arena storages alive at the same step, both non-empty. */
function overlappingPair(plan: PlanDocument): [number, number] | null {
  const s = plan.storages;
  for (let i = 0; i < s.length; i++) {
    for (let j = i + 1; j < s.length; j++) {
      if (s[i].bytes > 0 && s[j].bytes > 0 && s[i].birth <= s[j].death && s[j].birth <= s[i].death) return [i, j];
    }
  }
  return null;
}

describe.each(BACKENDS)('planner oracle on %s', (backend) => {
  const tp = session(backend);

  it('oracle: random graphs give bit-identical outputs in the arena and with separate allocations; traces verify', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
      const graph = randomGraph(seed, ALL_OPS);
      const plan = tp.plan(graph);
      expect(tp.validate(plan)).toEqual([]);
      const inputs = randomInputs(graph, seed);
      const arena = tp.executeReference(plan, inputs);
      const separate = tp.executeReference(plan, inputs, { memory: 'separate' });
      expect(Object.keys(arena.outputs)).toEqual(graph.outputs);
      for (const name of graph.outputs ?? []) expect(Buffer.from(arena.outputs[name]).equals(Buffer.from(separate.outputs[name]))).toBe(true);
      expect(arena.allocations).toBe(1 + (graph.persistent?.length ?? 0));
      expect(arena.peakBytes).toBe(plan.arenaBytes);
      expect(separate.peakBytes).toBeGreaterThanOrEqual(plan.arenaBytes === 0 ? 0 : plan.statistics.lowerBoundBytes);
      expect(tp.verifyTrace(graph, plan.schedule, arena.trace)).toEqual([]);
      expect(separate.trace).toEqual(arena.trace);
    }), { numRuns: 40 });
  });

  it('oracle: an overlapping placement is rejected by validate and by the executor, and executing it anyway (skipPlanCheck) changes outputs', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
      const graph = randomGraph(seed, ALL_OPS);
      const plan = tp.plan(graph);
      const pair = overlappingPair(plan);
      if (!pair) return;
      const broken: PlanDocument = structuredClone(plan);
      broken.storages[pair[1]].offset = broken.storages[pair[0]].offset;
      broken.arenaBytes = Math.max(plan.arenaBytes, broken.storages[pair[1]].offset + broken.storages[pair[1]].bytes);
      const codes = tp.validate(broken).map((d) => d.code);
      // Same offset: an overlap, or first a misalignment when the alignments differ.
      expect(codes.includes('OVERLAP') || codes.includes('MISALIGNED')).toBe(true);
    }), { numRuns: 25 });
    // A chain where every live storage overlaps: the outputs change.
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: ['x', 'a', 'b', 'y'].map((name) => ({ name, shape: [4], dtype: 'fp32' as const })),
      ops: [
        { name: 's1', op: 'scale', inputs: ['x'], outputs: ['a'], attributes: { alpha: 2 } },
        { name: 's2', op: 'scale', inputs: ['x'], outputs: ['b'], attributes: { alpha: 3 } },
        { name: 'sum', op: 'add', inputs: ['a', 'b'], outputs: ['y'] },
      ],
      inputs: ['x'], outputs: ['y'],
    };
    const plan = tp.plan(graph);
    const x = new Float32Array([1, 2, 3, 4]);
    const good = tp.executeReference(plan, { x });
    expect(Array.from(new Float32Array(good.outputs.y.buffer))).toEqual([5, 10, 15, 20]);
    const broken: PlanDocument = structuredClone(plan);
    for (const s of broken.storages) s.offset = 0;
    expect(tp.validate(broken).length).toBeGreaterThan(0);
    // The executor refuses it as validate does; run as stated (skipPlanCheck), the outputs change.
    expect(() => tp.executeReference(broken, { x })).toThrow(/^the plan is invalid \(5 diagnostics; tp_plan_validate lists them\): OVERLAP: /);
    const bad = tp.executeReference(broken, { x }, { skipPlanCheck: true });
    expect(bad.outputs.y).not.toEqual(good.outputs.y);
  });
});
