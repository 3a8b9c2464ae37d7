// Symbolic sizes: sympy srepr text evaluated with the caller's bindings or the export's hints,
// checked against range_constraints; and PyTorch's reshape rule (computeStride) as a property.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importTorchExport } from '../../../dist/index.mjs';
import { computeStride } from '../../../src/frontends/torch/compute-stride';
import { evalSymExpr, parseSymExpr } from '../../../src/frontends/torch/sym-expr';
import { archive, meta, programJson } from './torch-support';
import type { ProgramSpec } from './torch-support';

const S = (name: string) => `Symbol('${name}', positive=True, integer=True)`;
const batch = { expr: S('s77'), hint: 4 };
const program: ProgramSpec = {
  inputs: [{ name: 'x', kind: 'user_input' }, { name: 'w', kind: 'parameter' }],
  nodes: [
    { target: 'torch.ops.aten.mm.default', inputs: { self: 'x', mat2: 'w' }, outputs: ['y'] },
    { target: 'torch.ops.aten.view.default', inputs: { self: 'y', size: { as_ints: [-1] } }, outputs: ['flat'] },
    { target: 'torch.ops.aten.cat.default', inputs: { tensors: ['flat', 'flat'] }, outputs: ['both'] },
  ],
  tensors: {
    x: meta([batch, 8], { strides: [8, 1] }),
    w: meta([8, 16]),
    y: meta([batch, 16], { strides: [16, 1] }),
    flat: meta([{ expr: `Mul(Integer(16), ${S('s77')})`, hint: 64 }], { strides: [1] }),
    both: meta([{ expr: `Mul(Integer(32), ${S('s77')})`, hint: 128 }], { strides: [1] }),
  },
  outputs: [{ name: 'both' }],
  ranges: { s77: { min_val: 2, max_val: null } },
};
const bytes = archive(programJson(program));
const shapeOf = (r: ReturnType<typeof importTorchExport>, name: string) => r.graph.tensors.find((t) => t.name === name)?.shape ?? r.graph.tensors.find((t) => t.name === name)?.bytes;

describe('symbolic sizes', () => {
  it('take the export\'s hints when unbound, and say so', () => {
    const r = importTorchExport(bytes);
    expect(r.defaulted).toEqual({ s77: 4 });
    expect(r.warnings.join()).toMatch(/symbolic sizes took the export's hints: s77=4; bind them with --input NAME=N/);
    expect(shapeOf(r, 'both')).toEqual([128]);
  });

  it('evaluate expressions with a bound symbol (dims, or --input s77=N)', () => {
    for (const options of [{ dims: { s77: 10 } }, { bindings: { s77: [10] } }, { bindings: { x: [10, 8] } }]) {
      const r = importTorchExport(bytes, options);
      expect(r.defaulted).toEqual({});
      expect(r.bound).toEqual({ s77: 10 });
      expect(shapeOf(r, 'x')).toEqual([10, 8]);
      expect(shapeOf(r, 'both')).toEqual([320]);
    }
  });

  it('refuse values outside range_constraints', () => {
    expect(() => importTorchExport(bytes, { dims: { s77: 1 } })).toThrow(/range_constraints\.s77 allows 2\.\.inf/);
  });

  it('parse and evaluate sympy srepr expressions as Python would (property)', () => {
    type E = { text: string; value: (v: Record<string, number>) => number };
    const leaf: fc.Arbitrary<E> = fc.oneof(
      fc.integer({ min: -20, max: 20 }).map((n) => ({ text: `Integer(${n})`, value: () => n })),
      fc.constantFrom('s0', 's1', 's77').map((s) => ({ text: S(s), value: (v: Record<string, number>) => v[s] })),
    );
    const tree = fc.letrec<{ e: E }>((tie) => ({
      e: fc.oneof({ depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.tuple(fc.constantFrom('Add', 'Mul', 'Max', 'Min'), tie('e'), tie('e')).map(([fn, a, b]) => ({
          text: `${fn}(${a.text}, ${b.text})`,
          value: (v: Record<string, number>) => ({ Add: (x: number, y: number) => x + y, Mul: (x: number, y: number) => x * y, Max: Math.max, Min: Math.min }[fn]!(a.value(v), b.value(v))),
        })),
        // Python's floor division and modulo: the result takes the divisor's sign.
        fc.tuple(fc.constantFrom('FloorDiv', 'PythonMod'), tie('e'), fc.integer({ min: 1, max: 9 })).map(([fn, a, d]) => ({
          text: `${fn}(${a.text}, Integer(${d}))`,
          value: (v: Record<string, number>) => (fn === 'FloorDiv' ? Math.floor(a.value(v) / d) : ((a.value(v) % d) + d) % d),
        })),
      ),
    }));
    fc.assert(fc.property(tree.e, fc.record({ s0: fc.integer({ min: 1, max: 64 }), s1: fc.integer({ min: 1, max: 64 }), s77: fc.integer({ min: 1, max: 64 }) }), (e, values) => {
      expect(evalSymExpr(parseSymExpr(e.text, 'e'), values, 'e')).toBe(e.value(values));
    }));
  });

  it('reshape views a contiguous tensor to any shape of the same size, and a transposed one only when it keeps the order (property)', () => {
    const dims = fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 });
    fc.assert(fc.property(dims, fc.integer({ min: 0, max: 3 }), (shape, cut) => {
      const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
      const n = shape.reduce((a, b) => a * b, 1);
      // Any split of the elements into [n / k, k] for a divisor k views.
      const k = [1, 2, 3, 4, 5, n].filter((d) => n % d === 0)[cut % 2];
      expect(computeStride(shape, strides, [n / k, k])).toBeDefined();
      expect(computeStride(shape, strides, [n])).toEqual([1]);
    }));
    // A transpose of [a, b] (a, b > 1) flattens only by copying.
    expect(computeStride([3, 2], [1, 3], [6])).toBeUndefined();
    expect(computeStride([3, 1], [1, 3], [3])).toEqual([1]);
  });
});
