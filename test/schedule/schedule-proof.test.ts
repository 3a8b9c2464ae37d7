// Schedules proved beyond 64 ops by cutting the order where every
// order must pass (core-cpp/src/schedule/schedule_cuts.h), and the gap to the
// lower bound when not proved, through the public API on every backend.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';

// `blocks` blocks in a row; in each, one value fans out to two chains
// p -> big -> q whose outputs a join op reads. Running a block's chains one
// after the other is optimal, but the forced-live bound at each op (every
// order holds x and one big tensor) is 1-2 KiB below it (one chain's end is
// alive while the other's big tensor is made): only a search proves it, and
// the joins are forced cuts, so each block is searched on its own.
function chainedBlocks(blocks: number): GraphDocument {
  const tensors = [{ name: 'x0', bytes: 4096 }];
  const ops = [];
  for (let b = 0; b < blocks; b++) {
    const ends = [];
    for (let c = 0; c < 2; c++) {
      const big = `b${b}.big${c}`, end = `b${b}.end${c}`;
      tensors.push({ name: big, bytes: 65536 * (1 + ((b + c) % 2)) }, { name: end, bytes: 1024 * (1 + c) });
      ops.push({ name: `b${b}.p${c}`, op: 'f', inputs: [`x${b}`], outputs: [big] });
      ops.push({ name: `b${b}.q${c}`, op: 'g', inputs: [big], outputs: [end] });
      ends.push(end);
    }
    tensors.push({ name: `x${b + 1}`, bytes: 4096 });
    ops.push({ name: `b${b}.join`, op: 'sum', inputs: ends, outputs: [`x${b + 1}`] });
  }
  return { format: 'tensorplan.graph', version: 1, tensors, ops, inputs: ['x0'], outputs: [`x${blocks}`] };
}

describe.each(BACKENDS)('schedule proofs on %s', (backend) => {
  const tp = session(backend);

  it('proves a 200-op graph optimal by its forced cuts, under a time limit and under a work limit', () => {
    const graph = chainedBlocks(40);
    expect(graph.ops).toHaveLength(200);
    const timed = tp.schedule(graph, { timeLimitSeconds: 10 });
    const worked = tp.schedule(graph, { workLimit: 100_000 });
    for (const result of [timed, worked]) {
      expect(result.provedOptimal).toBe(true);
      expect(result.lowerBoundBytes).toBe(result.peakBytes);
      expect(result.gap).toBe(0);
    }
    expect(worked.peakBytes).toBe(timed.peakBytes);
    expect(timed.peakBytes).toBe(tp.liveness(graph, timed.order).peakBytes);
    // Without the search (baselines only) the bounds do not prove it.
    const unsearched = tp.schedule(graph, { timeLimitSeconds: 0 });
    expect(unsearched.provedOptimal).toBe(false);
    expect(unsearched.lowerBoundBytes).toBeLessThan(timed.peakBytes);
    expect(unsearched.gap).toBeGreaterThan(0);
  });

  it('reports the gap to the lower bound: peak / bound - 1, and 0 when proved', () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 2, maxLength: 30 }),
      fc.array(fc.nat(), { minLength: 4, maxLength: 60 }),
      fc.constantFrom('given', 'inductor-lpmf', 'xla-best', 'ours'),
      (sizes, picks, method) => {
        const tensors = [{ name: 'in', bytes: 4096 }];
        const ops = sizes.map((k, i) => {
          tensors.push({ name: `t${i}`, bytes: 256 * k });
          const pick = (j: number) => { const a = picks[(2 * i + j) % picks.length] % (i + 1); return a === 0 ? 'in' : `t${a - 1}`; };
          return { name: `op${i}`, op: 'f', inputs: [...new Set([pick(0), pick(1)])], outputs: [`t${i}`] };
        });
        const graph: GraphDocument = { format: 'tensorplan.graph', version: 1, tensors, ops, inputs: ['in'], outputs: [`t${sizes.length - 1}`] };
        const result = tp.schedule(graph, { method, workLimit: 20_000 });
        expect(result.gap).toBeGreaterThanOrEqual(0);
        expect(result.gap).toBeCloseTo(result.peakBytes / result.lowerBoundBytes - 1, 12);
        if (result.provedOptimal) expect(result.gap).toBe(0);
        else expect(result.gap).toBeGreaterThan(0);
      },
    ), { numRuns: 40 });
  });
});
