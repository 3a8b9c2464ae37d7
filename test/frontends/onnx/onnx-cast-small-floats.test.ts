// Cast to FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ and FLOAT4E2M1
// (src/frontends/onnx/fold/small-floats.ts) against the spec's tables (onnx 1.23.1 Operators.md
// "Cast", docs/docsgen/source/technical/float4.md), against every value each format holds, and,
// where python has onnx, onnxruntime and ml_dtypes, against ONNX Runtime's Cast (FLOAT8) and the
// reference implementation (FLOAT4E2M1, which ONNX Runtime 1.30 has no CPU kernel for). Where the
// two differ the evaluator claims no value (ValueUnknown); the test checks that it does so exactly
// there.
import { describe, expect, it } from 'vitest';
import { importOnnx } from '../../../dist/index.mjs';
import { castScalar } from '../../../src/frontends/onnx/fold/elements';
import { ValueUnknown } from '../../../src/frontends/onnx/fold/value-unknown';
import { findPython, fromHex, hexOf, python, run } from './fold-support';
import { T, onnxModel } from './onnx-models.mjs';

const E4M3FN = 17, E4M3FNUZ = 18, E5M2 = 19, E5M2FNUZ = 20, E2M1 = 23, FLOAT = 1, INT64 = 7;

/** The value of bit pattern b of a small float format with `e` exponent bits, `m` mantissa bits and exponent bias `bias` (no specials). */
function decode(b: number, e: number, m: number, bias: number): number {
  const sign = b >> (e + m) ? -1 : 1, ex = (b >> m) & ((1 << e) - 1), man = b & ((1 << m) - 1);
  return sign * (ex === 0 ? man * 2 ** (1 - bias - m) : (1 + man / 2 ** m) * 2 ** (ex - bias));
}
/** Every finite non-negative value of each format, ascending (the spec's bit layouts; NaN / Inf patterns left out). */
const FORMATS: Record<number, { values: number[]; max: number }> = {
  [E4M3FN]: { values: Array.from({ length: 0x7f }, (_, b) => decode(b, 4, 3, 7)), max: 448 }, // 0x7F is NaN
  [E4M3FNUZ]: { values: Array.from({ length: 0x80 }, (_, b) => decode(b, 4, 3, 8)), max: 240 }, // 0x80 is NaN
  [E5M2]: { values: Array.from({ length: 0x7c }, (_, b) => decode(b, 5, 2, 15)), max: 57344 }, // 0x7C Inf, above NaN
  [E5M2FNUZ]: { values: Array.from({ length: 0x80 }, (_, b) => decode(b, 5, 2, 16)), max: 57344 },
  [E2M1]: { values: Array.from({ length: 8 }, (_, b) => decode(b, 2, 1, 1)), max: 6 },
};
const cast = (x: number, to: number, saturate = true) => castScalar(x, to, saturate) as number;
/** The next FLOAT above a positive FLOAT value (its bit pattern plus one). */
function nextFloat32(x: number): number {
  const f = new Float32Array([x]);
  const bits = new Uint32Array(f.buffer);
  bits[0] += 1;
  return f[0];
}

describe('Cast to the FLOAT8 types and FLOAT4E2M1', () => {
  it('the formats hold the values the spec lists (float8.md, float4.md)', () => {
    expect(FORMATS[E4M3FN].values.at(-1)).toBe(448);
    expect(FORMATS[E4M3FNUZ].values.at(-1)).toBe(240);
    expect(FORMATS[E5M2].values.at(-1)).toBe(57344);
    expect(FORMATS[E5M2FNUZ].values.at(-1)).toBe(57344);
    expect(FORMATS[E2M1].values).toEqual([0, 0.5, 1, 1.5, 2, 3, 4, 6]);
  });

  it('every value of a format is kept, and every midpoint rounds to the even neighbour', () => {
    for (const [to, { values }] of Object.entries(FORMATS).map(([k, v]) => [Number(k), v] as const)) {
      values.forEach((v, b) => {
        expect(cast(v, to), `${v}`).toBe(v);
        expect(cast(-v, to), `${-v}`).toBe(v === 0 && (to === E4M3FNUZ || to === E5M2FNUZ) ? 0 : -v);
        if (b + 1 < values.length) {
          const mid = (v + values[b + 1]) / 2;
          // The even neighbour is the one with an even bit pattern (last mantissa bit 0).
          expect(cast(mid, to), `midpoint ${mid}`).toBe(b % 2 === 0 ? v : values[b + 1]);
          expect(cast(nextFloat32(mid), to), `just above ${mid}`).toBe(values[b + 1]);
        }
      });
    }
  });

  it('specials and out of range values follow the spec tables (saturate 1 and 0)', () => {
    // saturate = 1: Inf and [x] > FLT_MAX give +-FLT_MAX; NaN stays NaN.
    for (const to of [E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ]) {
      const max = FORMATS[to].max;
      expect(cast(Infinity, to)).toBe(max);
      expect(cast(-Infinity, to)).toBe(-max);
      expect(cast(1e9, to)).toBe(max);
      expect(cast(NaN, to)).toBeNaN();
    }
    // saturate = 0: E5M2 gives +-Inf, the others NaN.
    expect(cast(Infinity, E5M2, false)).toBe(Infinity);
    expect(cast(-1e9, E5M2, false)).toBe(-Infinity);
    for (const to of [E4M3FN, E4M3FNUZ, E5M2FNUZ]) {
      expect(cast(Infinity, to, false)).toBeNaN();
      expect(cast(1e9, to, false)).toBeNaN();
    }
    // -0: kept by E4M3FN and E5M2, +0 in the FNUZ types (one zero).
    expect(Object.is(cast(-0, E4M3FN), -0)).toBe(true);
    expect(Object.is(cast(-0, E4M3FNUZ), 0)).toBe(true);
    expect(Object.is(cast(-1e-9, E5M2FNUZ), 0)).toBe(true);
    // FLOAT4E2M1 (float4.md): beyond +-6 and +-Inf give +-6, whatever saturate says.
    expect([7, 100, Infinity, -Infinity].map((x) => cast(x, E2M1, false))).toEqual([6, 6, 6, -6]);
    expect([5, 0.25, 0.75, 2.5, -0.1].map((x) => cast(x, E2M1))).toEqual([4, 0, 1, 2, -0]);
  });

  it('claims no value where the spec and ONNX Runtime 1.30 differ, naming both', () => {
    // E4M3FN, saturate 0, |x| in [480, 496): the spec's [x] = 480 > 448 is NaN, ORT gives 448.
    expect(() => cast(480, E4M3FN, false)).toThrow(ValueUnknown);
    expect(() => cast(-495.9, E4M3FN, false)).toThrow(/spec gives NaN, ONNX Runtime 1.30 -448/);
    expect(cast(496, E4M3FN, false)).toBeNaN();
    expect(cast(479, E4M3FN, false)).toBeNaN(); // rounds to 480: NaN in both
    // E5M2, saturate 0, |x| in [61440, 65536): the spec's +-Inf, ORT NaN.
    expect(() => cast(61440, E5M2, false)).toThrow(/spec gives Infinity, ONNX Runtime 1.30 NaN/);
    expect(cast(65536, E5M2, false)).toBe(Infinity);
    // A DOUBLE rounded to FLOAT first (ORT's Cast) lands on a tie the spec's single rounding does not.
    expect(() => cast(1.0625 + 2 ** -40, E4M3FN)).toThrow(/rounded once \(the spec\) it is 1.125, through FLOAT \(ONNX Runtime's Cast\) 1/);
    // NaN to FLOAT4E2M1: float4.md gives 6, ml_dtypes -0.
    expect(() => cast(NaN, E2M1)).toThrow(/float4.md gives 6/);
  });

  it('Cast and CastLike evaluate with saturate, and types the evaluator does not compute stay unknown', () => {
    const x = { shape: [3], elemType: FLOAT, data: [17, 500, -1e6] };
    expect(run('Cast', [x], { to: E4M3FN }, 21)[0].data).toEqual([16, 448, -448]);
    expect(run('Cast', [x], { to: E5M2, saturate: 0 }, 21)[0].data).toEqual([16, 512, -Infinity]);
    const like = { shape: [1], elemType: E2M1, data: [0] };
    expect(run('CastLike', [x, like], {}, 21)[0].data).toEqual([6, 6, -6]);
    // INT4 and FLOAT8E8M0 values are not computed: the shape stands, the elements are unknown.
    for (const to of [22, 24]) {
      const [y] = inferOne('Cast', [x], { to });
      expect(y.shape).toEqual([3]);
      expect(y.data).toBeUndefined();
      expect(y.unknown).toMatch(/does not compute values of element type/);
    }
  });

  it('a float outside an integer type\'s range has no value ("fixed point: undefined if OOR")', () => {
    expect(castScalar(-7.9, 6)).toBe(-7n);
    expect(() => castScalar(1e10, 6)).toThrow(/Cast of 10000000000 to INT32: out of its range, which the spec leaves undefined/);
    expect(() => castScalar(-1, 2)).toThrow(/to UINT8/);
    expect(() => castScalar(NaN, 7)).toThrow(ValueUnknown);
    expect(castScalar(NaN, 9)).toBe(1n); // bool: all but +-0 is true
  });

  it('a folded Cast to FLOAT8 gives the rounded value downstream, or says why the value is unknown', () => {
    // Cast(17 -> E4M3FN) = 16, then to INT64: ConstantOfShape of it has 16 elements (17 unrounded).
    const model = (value: number, saturate: number) => onnxModel({
      nodes: [
        { op: 'Cast', inputs: ['x'], outputs: ['f8'], attrs: { to: E4M3FN, saturate } },
        { op: 'Cast', inputs: ['f8'], outputs: ['n'], attrs: { to: INT64 } },
        { op: 'ConstantOfShape', inputs: ['n'], outputs: ['y'] },
      ],
      initializers: [{ name: 'x', dims: [1], type: T.FLOAT, floats: [value] }],
      outputs: [{ name: 'y', type: T.FLOAT }],
    }, 21);
    const y = (m: Uint8Array) => importOnnx(m).graph.tensors.find((t: { name: string }) => t.name === 'y');
    expect(y(model(17, 1))).toMatchObject({ shape: [16] });
    expect(y(model(3.9, 1))).toMatchObject({ shape: [4] }); // 3.9 rounds to 4; unrounded it would truncate to 3
    expect(() => importOnnx(model(480, 0))).toThrow(/node "cast_0" \(Cast\), whose value the importer does not claim \(Cast of 480 to FLOAT8E4M3FN with saturate=0/);
  });

  const py = findPython(['onnx', 'onnxruntime', 'ml_dtypes', 'numpy']);
  it.skipIf(!py.python)(`FLOAT8: ONNX Runtime's Cast on FLOAT, DOUBLE and INT64 sources, saturate 1 and 0 (${py.why})`, () => {
    // Every FLOAT8 value, every midpoint and its neighbours, the ranges around each format's
    // largest value, specials; as FLOAT (exact), as DOUBLE and INT64 where they are.
    const xs = new Set<number>([0, NaN, Infinity, -Infinity, 1.0625 + 2 ** -40, 1e-50, 2 ** -10, 2 ** -17, 2 ** -18]);
    for (const to of [E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ]) {
      const v = FORMATS[to].values;
      v.forEach((a, b) => {
        xs.add(a);
        if (b + 1 < v.length) { const mid = (a + v[b + 1]) / 2; xs.add(mid); xs.add(Math.fround(mid * (1 + 2 ** -20))); xs.add(Math.fround(mid * (1 - 2 ** -20))); }
      });
      for (let k = 0; k < 64; ++k) xs.add(FORMATS[to].max * (1 + k / 32));
    }
    const values = [...xs].flatMap((x) => [x, -x]);
    const program = `
import json, sys, numpy as np, onnx, onnxruntime as ort
from onnx import helper, TensorProto as TP
req = json.load(sys.stdin)
def fromhex(h): return np.frombuffer(bytes.fromhex(h), dtype='>f8')[0]
def hexof(v): return np.array([v], dtype='>f8').tobytes().hex()
out = {}
for src in ['FLOAT', 'DOUBLE', 'INT64']:
  if src == 'INT64':
    xs = np.array([int(fromhex(h)) for h in req['x'] if np.isfinite(fromhex(h)) and fromhex(h) == int(fromhex(h)) and abs(fromhex(h)) < 2**62], dtype=np.int64)
  else:
    xs = np.array([fromhex(h) for h in req['x']], dtype=np.float32 if src == 'FLOAT' else np.float64)
  for to in [17, 18, 19, 20]:
    for sat in [1, 0]:
      x = helper.make_tensor_value_info('x', getattr(TP, src), [len(xs)])
      y = helper.make_tensor_value_info('y', TP.DOUBLE, [len(xs)])
      g = helper.make_graph([helper.make_node('Cast', ['x'], ['m'], to=to, saturate=sat), helper.make_node('Cast', ['m'], ['y'], to=TP.DOUBLE)], 'g', [x], [y])
      m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 21)]); m.ir_version = 10
      r = ort.InferenceSession(m.SerializeToString(), providers=['CPUExecutionProvider']).run(None, {'x': xs})[0]
      out[f'{src} {to} {sat}'] = [[hexof(a), hexof(b)] for a, b in zip(xs.astype(np.float64), r)]
print(json.dumps(out))`;
    const got = python<Record<string, [string, string][]>>(py.python!, program, { x: values.map(hexOf) });
    let compared = 0, unknown = 0;
    for (const [key, pairs] of Object.entries(got)) {
      const [src, to, sat] = key.split(' ');
      for (const [xh, yh] of pairs) {
        const x = fromHex(xh), ort = fromHex(yh);
        const input = src === 'INT64' ? BigInt(x) : src === 'FLOAT' ? Math.fround(x) : x;
        let mine: number | undefined;
        try { mine = castScalar(input, Number(to), sat === '1') as number; } catch (error) {
          if (!(error instanceof ValueUnknown)) throw error;
          unknown += 1;
          continue;
        }
        compared += 1;
        if (Number.isNaN(ort)) expect(mine, `${key} ${x}`).toBeNaN();
        else expect(Object.is(mine, ort), `${key} ${x}: ${mine} vs ORT ${ort}`).toBe(true);
      }
    }
    expect(compared).toBeGreaterThan(10000);
    expect(unknown).toBeGreaterThan(0);
  });

  it.skipIf(!py.python)(`FLOAT4E2M1: the reference implementation (ml_dtypes), ONNX Runtime 1.30 having no CPU kernel (${py.why})`, () => {
    const xs: number[] = [];
    for (let k = -800; k <= 800; ++k) xs.push(k / 100, k / 128);
    xs.push(1e30, -1e30, 2 ** -30, -(2 ** -30));
    const program = `
import json, sys, numpy as np, ml_dtypes
xs = np.array(json.load(sys.stdin), dtype=np.float32)
print(json.dumps(xs.astype(ml_dtypes.float4_e2m1fn).astype(np.float64).tolist()))`;
    const ref = python<number[]>(py.python!, program, xs);
    xs.forEach((x, i) => {
      expect(Object.is(cast(Math.fround(x), E2M1), ref[i]), `${x}: ${cast(Math.fround(x), E2M1)} vs ml_dtypes ${ref[i]}`).toBe(true);
    });
  });
});

/** inferNode on known inputs, keeping the Value fields (unknown) that run() drops from its type. */
function inferOne(op: string, inputs: Parameters<typeof run>[1], attrs: Record<string, number>) {
  return run(op, inputs, attrs, 21) as unknown as { shape: number[]; data?: unknown[]; unknown?: string }[];
}

