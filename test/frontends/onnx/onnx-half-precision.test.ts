// FLOAT16 and BFLOAT16 rounding (src/frontends/onnx/fold/half-precision.ts) against direct
// definitions: the nearest of all 2^16 bit patterns decoded (ties to the even pattern), the
// bias-and-truncate definition of BFLOAT16 from FLOAT bits, known values, and numpy / ml_dtypes
// where python has them. Then the evaluator: each op on 16-bit floats rounds its result, and Cast
// to them goes through FLOAT as onnxruntime's Cast does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BFLOAT16, FLOAT16, castScalar } from '../../../src/frontends/onnx/fold/elements';
import type { Known } from '../../../src/frontends/onnx/fold/evaluate';
import { roundBfloat16, roundHalf, roundHalfImpl } from '../../../src/frontends/onnx/fold/half-precision';
import { inferNode } from '../../../src/frontends/onnx/onnx-infer';
import { findPython, fromHex, hexOf, node, python, run } from './fold-support';

/** The value of FLOAT16 bit pattern b (IEEE 754 binary16), decoded from its fields. */
function halfOf(b: number): number {
  const sign = b & 0x8000 ? -1 : 1, e = (b >> 10) & 0x1f, m = b & 0x3ff;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (e === 0 ? m * 2 ** -24 : (1024 + m) * 2 ** (e - 25));
}
/** The value of BFLOAT16 bit pattern b: the top 16 bits of a FLOAT. */
function bfloatOf(b: number): number {
  const d = new DataView(new ArrayBuffer(4));
  d.setUint32(0, b << 16 >>> 0);
  return d.getFloat32(0);
}
/** All finite non-negative values of a format, ascending, indexed by their bit pattern. */
const table = (decode: (b: number) => number, maxBits: number): Float64Array => Float64Array.from({ length: maxBits + 1 }, (_, b) => decode(b));
const HALVES = table(halfOf, 0x7bff);
const BFLOATS = table(bfloatOf, 0x7f7f);

/** Direct definition: the nearest table entry (ties to the even pattern); beyond max + ulp/2, infinity. */
function nearest(values: Float64Array, v: number): number {
  if (Number.isNaN(v)) return NaN;
  const a = Math.abs(v);
  const last = values.length - 1;
  const limit = values[last] + (values[last] - values[last - 1]) / 2;
  if (a >= limit) return Math.sign(v) * Infinity;
  let lo = 0, hi = last; // values[lo] <= a < values[hi] after the search
  if (a >= values[last]) { lo = last; hi = last; }
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (values[mid] <= a) lo = mid; else hi = mid; }
  const dl = a - values[lo], dh = values[hi] - a;
  const r = dl < dh || (dl === dh && lo % 2 === 0) ? values[lo] : values[hi];
  return v < 0 || Object.is(v, -0) ? -r : r;
}

/** Doubles of every magnitude the formats cover, and beyond. */
const anyDouble = fc.oneof(
  fc.double({ noNaN: true }),
  fc.tuple(fc.double({ min: 1, max: 2, noNaN: true }), fc.integer({ min: -140, max: 130 }), fc.boolean()).map(([m, e, neg]) => (neg ? -1 : 1) * m * 2 ** e),
);
/** Values exactly halfway between two FLOAT16 values (the ties). */
const halfTies = fc.integer({ min: 0, max: 0x7bfe }).map((b) => (halfOf(b) + halfOf(b + 1)) / 2);

describe('FLOAT16 and BFLOAT16 rounding', () => {
  it('FLOAT16: the nearest binary16 value, ties to even, overflow to infinity (all magnitudes and every tie)', () => {
    fc.assert(fc.property(fc.oneof(anyDouble, halfTies), (v) => {
      expect(Object.is(roundHalfImpl(v), nearest(HALVES, v))).toBe(true);
      expect(Object.is(roundHalf(v), roundHalfImpl(v))).toBe(true);
    }), { numRuns: 3000 });
  });

  it('BFLOAT16: the nearest value; on FLOAT values, the top 16 bits after adding 0x7fff + the lowest kept bit', () => {
    fc.assert(fc.property(anyDouble, (v) => { expect(Object.is(roundBfloat16(v), nearest(BFLOATS, v))).toBe(true); }), { numRuns: 3000 });
    fc.assert(fc.property(fc.float({ noNaN: true }), (f) => {
      const d = new DataView(new ArrayBuffer(4));
      d.setFloat32(0, f);
      const bits = d.getUint32(0);
      const rounded = ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
      expect(Object.is(roundBfloat16(f), bfloatOf(rounded))).toBe(true);
    }), { numRuns: 3000 });
  });

  it('is idempotent, monotone and exact on representable values (every bit pattern)', () => {
    for (const [round, decode, count] of [[roundHalfImpl, halfOf, 0x10000], [roundBfloat16, bfloatOf, 0x10000]] as const) {
      for (let b = 0; b < count; ++b) {
        const v = decode(b);
        if (Number.isNaN(v)) expect(round(v)).toBeNaN();
        else expect(Object.is(round(v), v)).toBe(true);
      }
    }
    fc.assert(fc.property(anyDouble, anyDouble, (a, b) => {
      for (const round of [roundHalfImpl, roundBfloat16]) {
        expect(Object.is(round(round(a)), round(a))).toBe(true);
        if (a <= b) expect(round(a) <= round(b)).toBe(true);
      }
    }), { numRuns: 2000 });
  });

  it('gives the known values', () => {
    expect(roundHalfImpl(65504)).toBe(65504); // 0x7bff, the largest finite
    expect(roundHalfImpl(65519.99)).toBe(65504);
    expect(roundHalfImpl(65520)).toBe(Infinity); // halfway to 2^16: ties to even = overflow
    expect(roundHalfImpl(-1e6)).toBe(-Infinity);
    expect(roundHalfImpl(6.1035e-5)).toBe(2 ** -14); // 0x0400, the least normal
    expect(roundHalfImpl(2 ** -24)).toBe(2 ** -24); // 0x0001, the least subnormal
    expect(roundHalfImpl(2 ** -25)).toBe(0); // halfway to 0x0001: ties to even
    expect(roundHalfImpl(3 * 2 ** -25)).toBe(2 ** -23); // halfway between 0x0001 and 0x0002
    expect(Object.is(roundHalfImpl(-(2 ** -26)), -0)).toBe(true);
    expect(roundHalfImpl(1 / 3)).toBe(halfOf(0x3555)); // 0.333251953125
    expect(roundHalfImpl(2049)).toBe(2048); // ulp 2 above 2048, tie to even
    expect(roundBfloat16(1 / 3)).toBe(bfloatOf(0x3eab)); // 0.333984375
    expect(roundBfloat16(257)).toBe(256);
    expect(roundBfloat16(3.4e38)).toBe(Infinity); // above (2 - 2^-8) * 2^127
    expect(roundBfloat16(bfloatOf(0x7f7f))).toBe(bfloatOf(0x7f7f));
    expect(roundBfloat16(2 ** -133)).toBe(2 ** -133); // 0x0001
    expect(roundHalfImpl(NaN)).toBeNaN();
  });
});

const py = findPython(['numpy']);
const ml = findPython(['numpy', 'ml_dtypes']);

// numpy's float64 -> float16 conversion rounds directly to nearest even (npy_double_to_half);
// ml_dtypes' bfloat16 from float32 is round to nearest even of the FLOAT bits.
describe.skipIf(!py.python)(`FLOAT16 rounding against numpy (${py.why})`, () => {
  it('agrees on 4000 random doubles and ties, directly and through FLOAT (Cast)', () => {
    const values = fc.sample(fc.oneof(anyDouble, halfTies), { numRuns: 4000, seed: 16 });
    const out = python<{ direct: string[]; viaFloat: string[] }>(py.python!, `
import json, struct, sys, numpy as np
xs = np.array([struct.unpack('>d', bytes.fromhex(h))[0] for h in json.load(sys.stdin)], dtype=np.float64)
with np.errstate(over='ignore'):
    d = xs.astype(np.float16).astype(np.float64); f = xs.astype(np.float32).astype(np.float16).astype(np.float64)
hexes = lambda a: [struct.pack('>d', float(v)).hex() for v in a]
print(json.dumps({'direct': hexes(d), 'viaFloat': hexes(f)}))
`, values.map(hexOf));
    const mismatch = values.filter((v, i) => !Object.is(roundHalfImpl(v), fromHex(out.direct[i])));
    expect(mismatch).toEqual([]);
    const castMismatch = values.filter((v, i) => !Object.is(castScalar(v, FLOAT16), fromHex(out.viaFloat[i])));
    expect(castMismatch).toEqual([]);
  });
});

describe.skipIf(!ml.python)(`BFLOAT16 rounding against ml_dtypes (${ml.why})`, () => {
  it('agrees on 4000 random FLOAT values', () => {
    const values = fc.sample(anyDouble, { numRuns: 4000, seed: 17 }).map(Math.fround);
    const out = python<string[]>(ml.python!, `
import json, struct, sys, numpy as np, ml_dtypes
xs = np.array([struct.unpack('>d', bytes.fromhex(h))[0] for h in json.load(sys.stdin)], dtype=np.float64).astype(np.float32)
print(json.dumps([struct.pack('>d', float(v)).hex() for v in xs.astype(ml_dtypes.bfloat16).astype(np.float64)]))
`, values.map(hexOf));
    expect(values.filter((v, i) => !Object.is(roundBfloat16(v), fromHex(out[i])))).toEqual([]);
  });
});

const scalar = (v: number, elemType: number): Known => ({ shape: [], elemType, data: [v] });

describe('the evaluator computes FLOAT16 and BFLOAT16 in their precision', () => {
  it('rounds each op\'s result to the type', () => {
    const h = (v: number) => scalar(v, FLOAT16);
    expect(run('Add', [h(2048), h(1)])[0].data).toEqual([2048]);
    expect(run('Add', [h(2048), h(3)])[0].data).toEqual([2052]);
    expect(run('Div', [h(1), h(3)])[0].data).toEqual([halfOf(0x3555)]);
    expect(run('Mul', [h(300), h(300)])[0].data).toEqual([Infinity]);
    expect(run('Sqrt', [h(2)])[0].data).toEqual([roundHalfImpl(Math.SQRT2)]);
    const b = (v: number) => scalar(v, BFLOAT16);
    expect(run('Add', [b(256), b(1)])[0].data).toEqual([256]);
    expect(run('Div', [b(1), b(3)])[0].data).toEqual([bfloatOf(0x3eab)]);
    expect(run('ReduceMean', [{ shape: [3], elemType: FLOAT16, data: [1, 1, 2] }], { keepdims: 0 })[0].data).toEqual([roundHalfImpl(4 / 3)]);
  });

  it('Cast rounds to 16-bit floats (through FLOAT, as onnxruntime does) and converts back exactly', () => {
    fc.assert(fc.property(anyDouble, (v) => {
      const [h] = run('Cast', [scalar(v, 11)], { to: FLOAT16 });
      expect(Object.is(h.data[0], roundHalfImpl(Math.fround(v)))).toBe(true);
      const [back] = run('Cast', [h], { to: 1 });
      expect(Object.is(back.data[0], h.data[0])).toBe(true);
      const [bf] = run('Cast', [scalar(v, 11)], { to: BFLOAT16 });
      expect(Object.is(bf.data[0], roundBfloat16(Math.fround(v)))).toBe(true);
    }));
    // A DOUBLE just above a FLOAT16 tie that rounds onto the tie in FLOAT: onnxruntime 1.30 gives
    // the even neighbour (measured), direct rounding would give the upper one.
    const v = 2049 + 2 ** -20;
    expect(roundHalfImpl(v)).toBe(2050);
    expect(run('Cast', [scalar(v, 11)], { to: FLOAT16 })[0].data).toEqual([2048]);
    // Integers stay exact: int64 is bigint, never rounded.
    expect(run('Cast', [scalar(2 ** 60 + 1, 11)], { to: 7 })[0].data).toEqual([2n ** 60n]);
    expect(run('Add', [{ shape: [], elemType: 7, data: [2n ** 62n + 1n] }, { shape: [], elemType: 7, data: [1n] }])[0].data).toEqual([2n ** 62n + 2n]);
  });
});

describe('ConstantOfShape with a 16-bit float fill', () => {
  it('leaves the value unknown (the importer does not decode FLOAT16 tensors), never fills 0', () => {
    const n = node('ConstantOfShape', 1);
    n.attributes.set('value', { name: 'value', type: 4, ints: [], floats: [], exactInts: [], t: { name: '', dims: [1], dataType: FLOAT16 } });
    const [y] = inferNode({ node: n, inputs: [{ shape: [1], elemType: 7, data: [3n] }], opset: 18 });
    expect(y.shape).toEqual([3]);
    expect(y.elemType).toBe(FLOAT16);
    expect(y.data).toBeUndefined();
    // A FLOAT fill is decoded and used.
    n.attributes.set('value', { name: 'value', type: 4, ints: [], floats: [], exactInts: [], t: { name: '', dims: [1], dataType: 1, values: [0.5] } });
    expect(inferNode({ node: n, inputs: [{ shape: [1], elemType: 7, data: [2n] }], opset: 18 })[0].data).toEqual([0.5, 0.5]);
  });
});
