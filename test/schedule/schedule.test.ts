// Graph planning (PLANNING.md §1-§3, §6) through the public API, on every backend.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SCHEDULE_METHODS } from '../../dist/index.mjs';
import type { GraphDocument } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';
import { errorOf } from '../support/errors';

const MiB = 1 << 20;

function graphOf(partial: Omit<GraphDocument, 'format' | 'version'>): GraphDocument {
  return { format: 'tensorplan.graph', version: 1, ...partial };
}

// x -a-> y -b-> z with 1000 B of workspace in a (PLANNING.md §2 step rule).
const chain = (): GraphDocument => graphOf({
  tensors: [{ name: 'x', bytes: 1024 }, { name: 'y', bytes: 2048 }, { name: 'z', bytes: 512 }],
  ops: [
    { name: 'a', op: 'matmul', inputs: ['x'], outputs: ['y'], workspaceBytes: 1000 },
    { name: 'b', op: 'relu', inputs: ['y'], outputs: ['z'] },
  ],
  inputs: ['x'],
  outputs: ['z'],
});

// Two independent chains p_i -> big_i -> c_i: interleaving holds both big tensors.
const twoChains = (): GraphDocument => graphOf({
  tensors: [
    { name: 'x', bytes: 256 },
    { name: 'big1', bytes: MiB }, { name: 'big2', bytes: MiB },
    { name: 's1', bytes: 256 }, { name: 's2', bytes: 256 },
  ],
  ops: [
    { name: 'p1', op: 'f', inputs: ['x'], outputs: ['big1'] },
    { name: 'p2', op: 'f', inputs: ['x'], outputs: ['big2'] },
    { name: 'c1', op: 'g', inputs: ['big1'], outputs: ['s1'] },
    { name: 'c2', op: 'g', inputs: ['big2'], outputs: ['s2'] },
  ],
  inputs: ['x'],
  outputs: ['s1', 's2'],
});

// total = total + x_i, n times.
function accumulation(n: number): GraphDocument {
  const tensors = [{ name: 'seed', bytes: 256 }, { name: 'total0', bytes: MiB }];
  const ops = [{ name: 'init', op: 'zeros', inputs: ['seed'], outputs: ['total0'] }];
  for (let i = 1; i <= n; i++) {
    tensors.push({ name: `x${i}`, bytes: MiB }, { name: `total${i}`, bytes: MiB });
    ops.push({ name: `p${i}`, op: 'f', inputs: ['seed'], outputs: [`x${i}`] });
    ops.push({ name: `add${i}`, op: 'add', inputs: [`total${i - 1}`, `x${i}`], outputs: [`total${i}`] });
  }
  return graphOf({ tensors, ops, inputs: ['seed'], outputs: [`total${n}`] });
}

function randomGraph(sizes: number[], picks: number[]): GraphDocument {
  const tensors = [{ name: 'in', bytes: 4096 }];
  const ops = sizes.map((bytes, i) => {
    tensors.push({ name: `t${i}`, bytes });
    const a = picks[(2 * i) % picks.length] % (i + 1);
    const b = picks[(2 * i + 1) % picks.length] % (i + 1);
    const name = (k: number) => (k === 0 ? 'in' : `t${k - 1}`);
    return { name: `op${i}`, op: 'f', inputs: [...new Set([name(a), name(b)])], outputs: [`t${i}`] };
  });
  return graphOf({ tensors, ops, inputs: ['in'], outputs: [`t${sizes.length - 1}`] });
}


describe.each(BACKENDS)('graph planning on %s', (backend) => {
  const tp = session(backend);

  it('liveness follows allocate / run / free with aligned sizes and attributes the peak', () => {
    const live = tp.liveness(chain());
    expect(live.liveBytes).toEqual([1024 + 2048 + 1024, 2048 + 512]);
    expect(live.peakBytes).toBe(4096);
    expect(live.peakStep).toBe(0);
    expect(live.peakOp).toBe('a');
    expect(live.peakWorkspaceBytes).toBe(1024);
    expect(live.peakContributors).toEqual([
      { owner: 'y', bytes: 2048, producer: 'a', lastUse: 'b' },
      { owner: 'x', bytes: 1024, producer: null, lastUse: 'a' },
    ]);
    const z = live.storages[live.tensorStorage[2]];
    expect(z.graphOutput).toBe(true);
    expect(z.death).toBe(2);
  });

  it('computes bytes of shape/dtype tensors in the core and shares storage across aliases', () => {
    const graph = graphOf({
      tensors: [
        { name: 'x', shape: [64, 64], dtype: 'bf16' },
        { name: 'y', shape: [64, 64], dtype: 'bf16' },
        { name: 'v', bytes: 4096 },
        { name: 'out', shape: [3], dtype: 'fp4_e2m1' },
      ],
      ops: [
        { name: 'relu_', op: 'relu', inputs: ['x'], outputs: ['y'] },
        { name: 'slice', op: 'view', inputs: ['y'], outputs: ['v'] },
        { name: 'quant', op: 'q', inputs: ['v'], outputs: ['out'] },
      ],
      aliases: [{ kind: 'inPlace', output: 'y', input: 'x' }, { kind: 'view', tensor: 'v', base: 'y', offset: 4096 }],
      inputs: ['x'],
      outputs: ['out'],
    });
    const live = tp.liveness(graph);
    expect(live.tensorStorage[0]).toBe(live.tensorStorage[1]);
    expect(live.tensorStorage[2]).toBe(live.tensorStorage[0]);
    expect(live.tensorOffset[2]).toBe(4096);
    const shared = live.storages[live.tensorStorage[0]];
    expect(shared.owner).toBe('x');
    expect(shared.tensors).toEqual(['x', 'y', 'v']);
    expect(shared.bytes).toBe(8192);
    expect(live.storages[live.tensorStorage[3]].bytes).toBe(256);  // 2 bytes rounded to 256
    expect(live.peakBytes).toBe(8192 + 256);
  });

  it('reports every baseline and ours, which avoids holding both big tensors', () => {
    const s = tp.schedule(twoChains());
    expect(s.method).toBe('ours');
    expect(Object.keys(s.baselines).sort()).toEqual(SCHEDULE_METHODS.slice(0, 7).slice().sort());
    expect(s.baselines.given!.peakBytes).toBe(256 + 2 * MiB);
    expect(s.peakBytes).toBe(MiB + 512);
    expect(s.provedOptimal).toBe(true);
    expect(tp.liveness(twoChains(), s.order).peakBytes).toBe(s.peakBytes);
    const given = tp.schedule(twoChains(), { method: 'given' });
    expect(given.order).toEqual(['p1', 'p2', 'c1', 'c2']);
    expect(Object.keys(given.baselines)).toEqual(['given']);
  });

  it('ours is never worse than any baseline and its order is valid (property)', () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: 1, max: 1 << 16 }), { minLength: 1, maxLength: 14 }),
      fc.array(fc.nat(), { minLength: 2, maxLength: 28 }),
      (sizes, picks) => {
        const graph = randomGraph(sizes, picks);
        const s = tp.schedule(graph, { timeLimitSeconds: 1 });
        for (const figure of Object.values(s.baselines)) expect(s.peakBytes).toBeLessThanOrEqual(figure!.peakBytes);
        expect(s.lowerBoundBytes).toBeLessThanOrEqual(s.peakBytes);
        expect(tp.liveness(graph, s.order).peakBytes).toBe(s.peakBytes);
      },
    ), { numRuns: 40 });
  });

  it('a time limit below the cost of reading the graph still gives a valid order no worse than given', () => {
    // 5000 ops read one input: decoding them alone takes far longer than
    // 0.1 ms, so every baseline after given is cut or never starts.
    const n = 5000;
    const graph = graphOf({
      tensors: [{ name: 'x', bytes: 256 }, ...Array.from({ length: n }, (_, i) => ({ name: `t${i}`, bytes: 64 + (i % 7) * 32 }))],
      ops: Array.from({ length: n }, (_, i) => ({ name: `o${i}`, op: 'f', inputs: ['x'], outputs: [`t${i}`] })),
      inputs: ['x'],
      outputs: Array.from({ length: n }, (_, i) => `t${i}`),
    });
    const s = tp.schedule(graph, { timeLimitSeconds: 1e-4 });
    expect(new Set(s.order).size).toBe(n);
    expect(tp.liveness(graph, s.order).peakBytes).toBe(s.peakBytes);
    expect(s.baselines.given).toBeDefined();
    expect(s.peakBytes).toBeLessThanOrEqual(s.baselines.given!.peakBytes);
    expect(Object.keys(s.baselines).length).toBeLessThan(7);
    // Without a limit (0: baselines only) every baseline runs.
    expect(Object.keys(tp.schedule(graph, { timeLimitSeconds: 0 }).baselines)).toHaveLength(7);
  });

  it('a trace built from the liveness verifies clean, and dropping any event is reported (property)', () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: 1, max: 1 << 16 }), { minLength: 1, maxLength: 12 }),
      fc.array(fc.nat(), { minLength: 2, maxLength: 24 }),
      fc.nat(),
      (sizes, picks, drop) => {
        const graph = randomGraph(sizes, picks);
        const order = tp.schedule(graph, { method: 'xla-list' }).order;
        const live = tp.liveness(graph, order);
        const trace: { step: number; tensor: string; event: 'alloc' | 'free' }[] = [];
        for (const s of live.storages) {
          if (s.birth < 0 || s.persistent) continue;
          if (!s.graphInput) trace.push({ step: s.birth, tensor: s.owner, event: 'alloc' });
          if (!s.graphOutput) trace.push({ step: s.death, tensor: s.owner, event: 'free' });
        }
        expect(tp.verifyTrace(graph, order, trace)).toEqual([]);
        const dropped = trace[drop % trace.length];
        const issues = tp.verifyTrace(graph, order, trace.filter((e) => e !== dropped));
        expect(issues).toHaveLength(1);
        expect(issues[0].kind).toBe(dropped.event === 'alloc' ? 'missing-birth' : 'missing-death');
        expect(issues[0].step).toBe(dropped.step);
        expect(issues[0].tensor).toBe(dropped.tensor);
      },
    ), { numRuns: 40 });
  });

  it('bad graphs get clear errors', () => {
    const cycle = graphOf({
      tensors: [{ name: 'p', bytes: 8 }, { name: 'q', bytes: 8 }],
      ops: [
        { name: 'left', op: 'f', inputs: ['q'], outputs: ['p'] },
        { name: 'right', op: 'f', inputs: ['p'], outputs: ['q'] },
      ],
    });
    const e = errorOf(() => tp.schedule(cycle));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).toMatch(/cycle: "(left|right)" -> "(left|right)" -> "(left|right)"/);
    const twice = chain();
    twice.ops[1].outputs = ['y'];
    expect(errorOf(() => tp.liveness(twice)).message).toContain('"y" is written by "a" and by "b"');
    const beyond = chain();
    beyond.aliases = [{ kind: 'view', tensor: 'z', base: 'y', offset: 2000 }];
    expect(errorOf(() => tp.liveness(beyond)).message).toContain('has only 2048 bytes');
    const unknown = chain();
    unknown.ops[0].inputs = ['nope'];
    expect(errorOf(() => tp.schedule(unknown)).message).toContain('unknown tensor');
    expect(errorOf(() => tp.schedule(chain(), { method: 'magic' as never })).message).toContain('method = "magic"');
    expect(errorOf(() => tp.liveness(chain(), ['b', 'a'])).message).toContain('not topological');
    expect(errorOf(() => tp.liveness(chain(), ['a', 'zz'])).message).toContain('order[1] = "zz": unknown op');
  });

  it('an empty graph is valid and has zero peak', () => {
    const empty = graphOf({ tensors: [], ops: [] });
    const s = tp.schedule(empty);
    expect(s.order).toEqual([]);
    expect(s.peakBytes).toBe(0);
    expect(tp.liveness(empty).peakStep).toBe(-1);
  });

  it('rejects fusing total = total + x_i and accepts a producer/consumer pair', () => {
    const graph = accumulation(6);
    const adds = [1, 2, 3, 4, 5, 6].map((i) => `add${i}`);
    const bad = tp.checkFusion(graph, adds, { maxReadBytes: 4 * MiB });
    expect(bad.accepted).toBe(false);
    expect(bad.raisesPeak).toBe(true);
    expect(bad.readsTooLarge).toBe(true);
    expect(bad.readBytes).toBe(7 * MiB);
    expect(bad.peakBeforeBytes).toBe(3 * MiB + 256);
    expect(bad.peakAfterBytes).toBe(8 * MiB);
    const good = tp.checkFusion(graph, ['p1', 'add1'], { maxReadBytes: 4 * MiB });
    expect(good.accepted).toBe(true);
    expect(good.peakAfterBytes).toBeLessThanOrEqual(good.peakBeforeBytes);
    const cyclic = tp.checkFusion(graph, ['init', 'add2']);
    expect(cyclic.createsCycle).toBe(true);
    expect(cyclic.accepted).toBe(false);
  });

  it('verifies an execution trace against the plan', () => {
    const graph = chain();
    const perfect = [
      { step: 0, tensor: 'y', event: 'alloc' as const },
      { step: 0, tensor: 'x', event: 'free' as const },
      { step: 1, tensor: 'z', event: 'alloc' as const },
      { step: 1, tensor: 'y', event: 'free' as const },
    ];
    expect(tp.verifyTrace(graph, undefined, perfect)).toEqual([]);
    const broken = perfect.slice(0, 3).concat([{ step: 1, tensor: 'z', event: 'free' as const }]);
    expect(tp.verifyTrace(graph, ['a', 'b'], broken)).toEqual([
      { kind: 'missing-death', tensor: 'y', storage: 1, step: 1, message: 'missing death of "y" at step 1' },
      { kind: 'unexpected-death', tensor: 'z', storage: 2, step: 1, message: 'unexpected death of "z" at step 1' },
    ]);
    expect(errorOf(() => tp.verifyTrace(graph, undefined, [{ step: 0, tensor: 'q', event: 'alloc' }])).message)
      .toContain('trace[0].tensor = "q"');
    expect(errorOf(() => tp.verifyTrace(graph, undefined, [{ step: 5, tensor: 'x', event: 'alloc' }])).message)
      .toContain('trace[0].step = 5');
  });
});
