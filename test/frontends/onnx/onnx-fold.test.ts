// The constant-folding evaluator (src/frontends/onnx/fold) against direct definitions of each op
// on random small tensors, and against the importer's shape rules (both run in inferNode, which
// fails on any disagreement).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT64, castScalar, wrapInt } from '../../../src/frontends/onnx/fold/elements';
import { evaluateNode } from '../../../src/frontends/onnx/fold/evaluate';
import type { Known } from '../../../src/frontends/onnx/fold/evaluate';
import { inferNode } from '../../../src/frontends/onnx/onnx-infer';
import type { OnnxAttribute, OnnxNode } from '../../../src/frontends/onnx/onnx-model';

const numel = (s: number[]) => s.reduce((a, b) => a * b, 1);
const ints = (values: number[]): Known => ({ shape: [values.length], elemType: INT64, data: values.map(BigInt) });
const node = (opType: string, arity: number, attrs: Record<string, number | number[]> = {}): OnnxNode => ({
  name: opType.toLowerCase(), opType, domain: '', inputs: Array.from({ length: arity }, (_, k) => `in${k}`), outputs: ['out'],
  attributes: new Map(Object.entries(attrs).map(([name, v]): [string, OnnxAttribute] => [name, Array.isArray(v)
    ? { name, type: 7, ints: v, floats: [], exactInts: v.map(BigInt) }
    : { name, type: 2, i: v, ints: [], floats: [], exactInts: [] }])),
});
/** Runs the importer's inference (shape rule + evaluator, which must agree) on known inputs. */
const run = (opType: string, inputs: (Known | undefined)[], attrs: Record<string, number | number[]> = {}): Known[] =>
  inferNode({ node: node(opType, inputs.length, attrs), inputs, opset: 18 }) as Known[];

/** A random int64 tensor of rank 1..4 (dims 1..4), elements distinct (their flat index). */
const tensorArb = fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }).map((shape): Known => ({
  shape, elemType: INT64, data: Array.from({ length: numel(shape) }, (_, i) => BigInt(i)),
}));
/** Element at coordinates (direct row-major indexing). */
const at = (x: Known, coord: number[]) => x.data[coord.reduce((acc, c, k) => acc * x.shape[k] + c, 0)];
/** All coordinates of a shape, row-major. */
const coords = (shape: number[]): number[][] => shape.reduce<number[][]>((acc, d) => acc.flatMap((c) => Array.from({ length: d }, (_, i) => [...c, i])), [[]]);

describe('ONNX constant folding: the evaluator against direct definitions', () => {
  it('Transpose: out[c] = x[c permuted back], and the inverse perm restores x', () => {
    const arb = tensorArb.chain((x) => fc.shuffledSubarray([...x.shape.keys()], { minLength: x.shape.length, maxLength: x.shape.length }).map((perm) => ({ x, perm })));
    fc.assert(fc.property(arb, ({ x, perm }) => {
      const [y] = run('Transpose', [x], { perm });
      expect(y.shape).toEqual(perm.map((p) => x.shape[p]));
      coords(y.shape).forEach((c, i) => {
        const src: number[] = [];
        perm.forEach((p, k) => { src[p] = c[k]; });
        expect(y.data[i]).toBe(at(x, src));
      });
      const inverse = perm.map((_, k) => perm.indexOf(k));
      expect(run('Transpose', [y], { perm: inverse })[0]).toEqual(x);
    }));
  });

  it('Slice with any starts, ends and steps (negative, beyond the ends, INT64 extremes) picks range(start, end, step) per axis', () => {
    const bound = fc.oneof(fc.integer({ min: -7, max: 7 }), fc.constantFrom(2 ** 53 + 10, -(2 ** 53) - 10));
    const arb = tensorArb.chain((x) => fc.record({
      x: fc.constant(x),
      axes: fc.shuffledSubarray([...x.shape.keys()], { minLength: 1 }),
      starts: fc.array(bound, { minLength: 4, maxLength: 4 }),
      ends: fc.array(bound, { minLength: 4, maxLength: 4 }),
      steps: fc.array(fc.integer({ min: -3, max: 3 }).filter((s) => s !== 0), { minLength: 4, maxLength: 4 }),
    }));
    fc.assert(fc.property(arb, ({ x, axes, starts, ends, steps }) => {
      const n = axes.length;
      const big = (v: number) => (Math.abs(v) > 2 ** 53 ? (v > 0 ? 2n ** 63n - 1n : -(2n ** 63n)) : BigInt(v));
      const asInts = (v: number[]): Known => ({ shape: [n], elemType: INT64, data: v.slice(0, n).map(big) });
      const [y] = run('Slice', [x, asInts(starts), asInts(ends), ints(axes), ints(steps.slice(0, n))]);
      // Direct definition (ONNX Slice spec): clamp, then walk from start toward end by step.
      const picks = x.shape.map((d, a) => {
        const k = axes.indexOf(a);
        if (k < 0) return [...Array(d).keys()];
        const s = steps[k];
        const norm = (v: number) => (v < 0 ? v + d : v);
        let b = norm(Math.max(-(2 ** 53), Math.min(2 ** 53, starts[k]))), e = norm(Math.max(-(2 ** 53), Math.min(2 ** 53, ends[k])));
        if (s > 0) { b = Math.min(Math.max(b, 0), d); e = Math.min(Math.max(e, 0), d); } else { b = Math.min(Math.max(b, 0), d - 1); e = Math.min(Math.max(e, -1), d - 1); }
        const out: number[] = [];
        for (let i = b; s > 0 ? i < e : i > e; i += s) out.push(i);
        return out;
      });
      expect(y.shape).toEqual(picks.map((p) => p.length));
      coords(y.shape).forEach((c, i) => expect(y.data[i]).toBe(at(x, c.map((j, a) => picks[a][j]))));
    }), { numRuns: 300 });
  });

  it('Gather and GatherElements read the indexed elements (negative indices from the end)', () => {
    const arb = tensorArb.chain((x) => fc.record({
      x: fc.constant(x), axis: fc.integer({ min: 0, max: x.shape.length - 1 }),
      idx: fc.array(fc.integer({ min: -4, max: 3 }), { minLength: 1, maxLength: 5 }),
    }));
    fc.assert(fc.property(arb, ({ x, axis, idx }) => {
      const d = x.shape[axis];
      const indices = idx.map((i) => ((i % d) + d) % d - (i < 0 ? d : 0));
      const [y] = run('Gather', [x, ints(indices)], { axis });
      expect(y.shape).toEqual([...x.shape.slice(0, axis), indices.length, ...x.shape.slice(axis + 1)]);
      coords(y.shape).forEach((c, i) => {
        const j = indices[c[axis]];
        expect(y.data[i]).toBe(at(x, c.map((v, k) => (k === axis ? (j < 0 ? j + d : j) : v))));
      });
      // GatherElements with indices of x's shape along `axis`: a permutation of each line.
      const table: Known = { shape: x.shape, elemType: INT64, data: coords(x.shape).map((c) => BigInt((c[axis] + 1) % d)) };
      const [z] = run('GatherElements', [x, table], { axis });
      coords(x.shape).forEach((c, i) => expect(z.data[i]).toBe(at(x, c.map((v, k) => (k === axis ? (v + 1) % d : v)))));
    }));
  });

  it('Concat then Slice gives the parts back; Tile equals Expand where both apply', () => {
    const arb = tensorArb.chain((x) => fc.record({ x: fc.constant(x), axis: fc.integer({ min: 0, max: x.shape.length - 1 }), reps: fc.integer({ min: 1, max: 3 }) }));
    fc.assert(fc.property(arb, ({ x, axis, reps }) => {
      const neg: Known = { ...x, data: x.data.map((v) => -(v as bigint)) };
      const [c] = run('Concat', [x, neg], { axis });
      const d = x.shape[axis];
      expect(run('Slice', [c, ints([0]), ints([d]), ints([axis])])[0]).toEqual(x);
      expect(run('Slice', [c, ints([d]), ints([2 * d]), ints([axis])])[0]).toEqual(neg);
      // A size-1 axis tiled `reps` times = expanded to `reps`.
      const one = run('Slice', [x, ints([0]), ints([1]), ints([axis])])[0];
      const repeats = x.shape.map((_, k) => (k === axis ? reps : 1));
      const target = x.shape.map((dd, k) => (k === axis ? reps : dd));
      expect(run('Tile', [one, ints(repeats)])[0]).toEqual(run('Expand', [one, ints(target)])[0]);
    }));
  });

  it('int64 arithmetic is exact and wraps like two\'s complement; Div truncates, Mod follows fmod', () => {
    const big = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    fc.assert(fc.property(big, big, (a, b) => {
      const x: Known = { shape: [], elemType: INT64, data: [a] }, y: Known = { shape: [], elemType: INT64, data: [b] };
      expect(run('Add', [x, y])[0].data).toEqual([BigInt.asIntN(64, a + b)]);
      expect(run('Mul', [x, y])[0].data).toEqual([BigInt.asIntN(64, a * b)]);
      if (b !== 0n) {
        expect(run('Div', [x, y])[0].data).toEqual([BigInt.asIntN(64, a / b)]);
        const r = run('Mod', [x, y])[0].data[0] as bigint;
        expect(r === 0n || (r < 0n) === (b < 0n)).toBe(true);
        expect(run('Mod', [x, y], { fmod: 1 })[0].data).toEqual([a % b]);
      }
      expect(run('Less', [x, y])[0].data).toEqual([a < b ? 1n : 0n]);
      expect(castScalar(a, 6)).toBe(wrapInt(6, a));
    }));
  });

  it('broadcast Add and ReduceSum agree with a direct sum', () => {
    const arb = tensorArb.chain((x) => fc.record({ x: fc.constant(x), keep: fc.boolean(), axes: fc.subarray([...x.shape.keys()]) }));
    fc.assert(fc.property(arb, ({ x, keep, axes }) => {
      const row: Known = { shape: [x.shape[x.shape.length - 1]], elemType: INT64, data: Array.from({ length: x.shape[x.shape.length - 1] }, (_, i) => BigInt(100 * i)) };
      const [s] = run('Add', [x, row]);
      coords(x.shape).forEach((c, i) => expect(s.data[i]).toBe((at(x, c) as bigint) + BigInt(100 * c[c.length - 1])));
      // Where with a broadcast condition over the last axis: even columns from x, odd from -x.
      const cond: Known = { shape: row.shape, elemType: 9, data: row.data.map((_, i) => (i % 2 === 0 ? 1n : 0n)) };
      const [w] = run('Where', [cond, x, { ...x, data: x.data.map((v) => -(v as bigint)) }]);
      coords(x.shape).forEach((c, i) => expect(w.data[i]).toBe(c[c.length - 1] % 2 === 0 ? at(x, c) : -(at(x, c) as bigint)));
      const [r] = run('ReduceSum', axes.length ? [x, ints(axes)] : [x], { keepdims: keep ? 1 : 0 });
      const reduced = axes.length ? axes : [...x.shape.keys()];
      const total = x.data.reduce((a, b) => (a as bigint) + (b as bigint), 0n);
      expect(r.data.reduce((a, b) => (a as bigint) + (b as bigint), 0n)).toBe(total);
      expect(numel(r.shape)).toBe(numel(x.shape.filter((_, k) => !reduced.includes(k))));
    }));
  });

  it('refuses what it must not compute: beyond the element bound, unknown ops, invalid indices', () => {
    const huge = { shape: [2 ** 21], elemType: INT64, data: [] };
    expect(evaluateNode({ node: node('Neg', 1), inputs: [huge], opset: 18 }, [[2 ** 21]])).toBeUndefined();
    expect(evaluateNode({ node: node('Softmax', 1), inputs: [ints([1])], opset: 18 }, [[1]])).toBeUndefined();
    expect(() => run('Gather', [ints([1, 2]), ints([5])])).toThrow(/index 5 is out of range for an axis of size 2/);
    expect(() => run('Div', [ints([1]), ints([0])])).toThrow(/integer division by zero/);
  });
});
