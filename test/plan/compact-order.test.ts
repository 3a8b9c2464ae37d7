// Compacted orders (tp_graph_compact_order, core-cpp/src/schedule/compact_order.h):
// an order with the same peak and less bytes alive summed over its steps,
// which a joint plan places beside the schedule method's own order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GraphDocument, Tensorplan } from '../../dist/index.mjs';
import { callGraphCompactOrder } from '../../src/abi/c-api.generated';
import { encodeGraph } from '../../src/graph/encode-graph';
import { BACKENDS, BOTH_BACKENDS, session } from '../support/backends';

type Core = Parameters<typeof callGraphCompactOrder>[0];
const coreOf = (tp: Tensorplan): Core => (tp as unknown as { core: Core }).core;

/** bench/plan.bench.mjs's random layered graph: op i reads 1-3 of the 30 latest tensors. */
function layered(ops: number, seed: number): GraphDocument {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const tensors = [{ name: 'in', bytes: 4096 }];
  const list = [];
  for (let i = 0; i < ops; i++) {
    const reads = new Set<string>();
    for (let k = 0; k < 1 + Math.floor(random() * 3); k++) reads.add(tensors[Math.max(0, tensors.length - 1 - Math.floor(random() * 30))].name);
    tensors.push({ name: `t${i}`, bytes: 256 * (1 + Math.floor(random() * 1000)) });
    list.push({ name: `op${i}`, op: 'x', inputs: [...reads], outputs: [`t${i}`], workspaceBytes: random() < 0.2 ? 65536 : 0 });
  }
  return { format: 'tensorplan.graph', version: 1, name: `layered ${ops}`, tensors, ops: list, inputs: ['in'], outputs: [`t${ops - 1}`] };
}

/** Compacts `order` (op names) of `graph` on `tp`'s core; returns op names and the stats. */
function compact(tp: Tensorplan, graph: GraphDocument, order: readonly string[], moves: number, seed: number) {
  const encoded = encodeGraph(coreOf(tp) as never, graph);
  const steps = Int32Array.from(order, (name) => encoded.opIndex.get(name)!);
  const result = callGraphCompactOrder(coreOf(tp), { ...encoded.graph, order: steps, orderCount: steps.length, moves, seed });
  const [peak, areaBefore, areaAfter, tried, kept] = result.stats;
  return { order: Array.from(result.order, (i) => encoded.doc.ops[i].name), peak, areaBefore, areaAfter, tried, kept };
}

const graphArbitrary = fc.tuple(fc.integer({ min: 2, max: 80 }), fc.integer({ min: 1, max: 10_000 })).map(([ops, seed]) => layered(ops, seed));

describe.each(BACKENDS)('compacted orders on %s', (backend) => {
  const tp = session(backend);

  it('keep the peak, never grow the area, and are orders of every op', () => {
    fc.assert(fc.property(graphArbitrary, fc.integer({ min: 0, max: 1000 }), (graph, seed) => {
      const given = tp.schedule(graph, { method: 'inductor-lpmf' });
      const out = compact(tp, graph, given.order, 1000, seed);
      expect([...out.order].sort()).toEqual([...given.order].sort());
      // liveness refuses an order that breaks a dependency. A move may lower
      // the peak, never raise it.
      expect(tp.liveness(graph, out.order).peakBytes).toBeLessThanOrEqual(tp.liveness(graph, given.order).peakBytes);
      expect(out.peak).toBe(given.peakBytes);
      expect(out.areaAfter).toBeLessThanOrEqual(out.areaBefore);
      expect(out.kept).toBeLessThanOrEqual(out.tried);
      // The same seed gives the same order.
      expect(compact(tp, graph, given.order, 1000, seed).order).toEqual(out.order);
    }), { numRuns: 30, seed: 31 });
  });

  it('shrink the area of a layered graph, and its joint plan keeps a compacted order that places smaller', () => {
    const graph = layered(300, 3);
    const plain = tp.plan(graph);
    const out = compact(tp, graph, plain.schedule, 8000, 1);
    expect(out.areaAfter).toBeLessThan(0.97 * out.areaBefore);
    expect(out.kept).toBeGreaterThan(0);
    const joint = tp.plan(graph, { joint: true });
    expect(joint.statistics.joint!.order).toMatch(/^ours, compacted \(seed \d\)$/);
    expect(joint.statistics.peakBytes).toBe(plain.statistics.peakBytes);
    expect(joint.arenaBytes).toBeLessThan(plain.arenaBytes);
    expect(tp.validate(joint)).toEqual([]);
  });

  it('leave an order alone when no move is allowed', () => {
    const graph = layered(40, 5);
    const given = tp.schedule(graph, { method: 'inductor-lpmf' });
    const out = compact(tp, graph, given.order, 0, 7);
    expect(out.order).toEqual(given.order);
    expect(out.tried).toBe(0);
    expect(out.areaAfter).toBe(out.areaBefore);
  });

  it.each([
    ['an order that breaks a dependency', (order: string[]) => [...order].reverse(), 100, 1, /order/],
    ['a negative move count', (order: string[]) => order, -1, 1, /^moves = -1: must be >= 0$/],
    ['a negative seed', (order: string[]) => order, 100, -1, /^seed = -1: must be >= 0$/],
    ['a fractional move count', (order: string[]) => order, 2.5, 1, /moves = 2\.5/],
  ])('refuse %s, naming it', (_, change, moves, seed, message) => {
    const graph = layered(20, 2);
    const given = tp.schedule(graph, { method: 'given' });
    expect(() => compact(tp, graph, change([...given.order]), moves, seed)).toThrow(message);
    // The session stays usable after the error.
    expect(compact(tp, graph, given.order, 100, 1).peak).toBe(given.peakBytes);
  });
});

describe.runIf(BOTH_BACKENDS)('compacted orders on wasm and native', () => {
  it('are the same order for the same seed', () => {
    const graph = layered(200, 9);
    const order = session('native').schedule(graph, { method: 'inductor-lpmf' }).order;
    expect(compact(session('wasm'), graph, order, 3000, 3).order).toEqual(compact(session('native'), graph, order, 3000, 3).order);
  });
});
