// Issue #18: schedules proved beyond 64 ops by cutting the order where every
// order must pass (core-cpp/src/schedule/schedule_cuts.h), and the gap to the
// lower bound when not proved, through the public API on every backend.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';

// `blocks` blocks in a row; in each, one op fans out to three chains
// p -> big -> q whose big tensors differ in size, and one op joins them. The
// chains of a block can interleave in many ways (holding several big tensors
// at once), so each block needs a search; the joins are forced cuts.
function chainedBlocks(blocks: number): GraphDocument {
  const tensors = [{ name: 'x0', bytes: 4096 }];
  const ops = [];
  for (let b = 0; b < blocks; b++) {
    const ends = [];
    for (let c = 0; c < 3; c++) {
      const big = `b${b}.big${c}`, mid = `b${b}.mid${c}`, end = `b${b}.end${c}`;
      tensors.push({ name: big, bytes: 65536 * (1 + ((b + c) % 3)) }, { name: mid, bytes: 8192 * (1 + c) }, { name: end, bytes: 1024 });
      ops.push({ name: `b${b}.p${c}`, op: 'f', inputs: [`x${b}`], outputs: [big] });
      ops.push({ name: `b${b}.q${c}`, op: 'g', inputs: [big], outputs: [mid] });
      ops.push({ name: `b${b}.r${c}`, op: 'h', inputs: [mid, `x${b}`], outputs: [end] });
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
    const graph = chainedBlocks(20);
    expect(graph.ops).toHaveLength(200);
    const timed = tp.schedule(graph, { timeLimitSeconds: 10 });
    const worked = tp.schedule(graph, { workLimit: 100_000 });
    for (const result of [timed, worked]) {
      expect(result.provedOptimal).toBe(true);
      expect(result.lowerBoundBytes).toBe(result.peakBytes);
      expect(result.gap).toBe(0);
    }
    expect(worked.peakBytes).toBe(timed.peakBytes);
    // Every baseline interleaves some block's chains: the proof is not the baselines'.
    const best = Math.min(...Object.values(timed.baselines).map((f) => f!.peakBytes));
    expect(timed.peakBytes).toBeLessThan(best);
    // No order is better: one chain at a time holds the largest big tensor of
    // a block with the other chains' ends, the inputs and nothing else.
    expect(timed.peakBytes).toBe(tp.liveness(graph, timed.order).peakBytes);
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
