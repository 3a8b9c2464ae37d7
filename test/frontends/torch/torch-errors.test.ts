// What the torch.export importer refuses, and that each error names the field and the value.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { TensorplanError, importTorchExport } from '../../../dist/index.mjs';
import { archive, meta as tensorMeta, programJson } from './torch-support';
import type { ProgramSpec } from './torch-support';

const FIXTURE = new URL('../../fixtures/torch/conv_bn_joint.pt2', import.meta.url).pathname;

const relu = (x = tensorMeta([4, 8])): ProgramSpec => ({
  inputs: [{ name: 'x', kind: 'user_input' }],
  nodes: [{ target: 'torch.ops.aten.relu.default', inputs: { self: 'x' }, outputs: ['y'] }],
  tensors: { x, y: tensorMeta([4, 8]) },
  outputs: [{ name: 'y' }],
});
const fails = (bytes: Uint8Array, options: Record<string, unknown> = {}) => {
  try {
    importTorchExport(bytes, { source: 'm.pt2', ...options });
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected an error');
};

describe('importTorchExport refuses', () => {
  it('bytes that are no zip, and a zip without models/model.json', () => {
    expect(fails(new Uint8Array([1, 2, 3, 4, 5, 6]))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^m\.pt2: not a readable \.pt2 archive/) });
    const other = zipSync({ 'archive/archive_format': strToU8('pt2') });
    expect(fails(other).message).toMatch(/m\.pt2: the archive has no <name>\/models\/model\.json/);
  });

  it('model.json that is not JSON', () => {
    expect(fails(archive('{"graph_module": ')).message).toMatch(/m\.pt2: archive\/models\/model\.json: not JSON/);
  });

  it('another schema major, naming it', () => {
    const e = fails(archive(programJson({ ...relu(), major: 9 })));
    expect(e.code).toBe('UNSUPPORTED');
    expect(e.message).toMatch(/schema_version\.major = 9 .*reads torch\.export schema major 8/);
  });

  it('an unknown ScalarType, naming the tensor, the field and the value', () => {
    const e = fails(archive(programJson(relu(tensorMeta([4, 8], { dtype: 99 })))));
    expect(e.message).toMatch(/m\.pt2: graph\.tensor_values\.x\.dtype = 99: not a ScalarType this importer knows/);
    expect(fails(archive(programJson(relu(tensorMeta([4, 8], { dtype: 0 }))))).message).toMatch(/dtype = 0/);
  });

  it('a symbol with no value and no hint, saying how to bind it', () => {
    const x = tensorMeta([{ expr: "Symbol('s0', positive=True, integer=True)" }, 8], { strides: [8, 1] });
    const p = relu(x);
    p.tensors.y = tensorMeta([{ expr: "Symbol('s0', positive=True, integer=True)" }, 8], { strides: [8, 1] });
    const e = fails(archive(programJson(p)));
    expect(e.message).toMatch(/graph\.tensor_values\.x\.sizes\[0\] = Symbol\('s0'.*symbol s0 has no value.*--input s0=N/);
    // Bound, it imports.
    expect(importTorchExport(archive(programJson(p)), { dims: { s0: 3 } }).graph.tensors.find((t) => t.name === 'x')?.shape).toEqual([3, 8]);
  });

  it('a bound value outside range_constraints', () => {
    const p = relu(tensorMeta([{ expr: "Symbol('s0', positive=True, integer=True)", hint: 4 }, 8], { strides: [8, 1] }));
    p.tensors.y = p.tensors.x;
    p.ranges = { s0: { min_val: 2, max_val: 64 } };
    expect(fails(archive(programJson(p)), { dims: { s0: 100 } }).message).toMatch(/--input s0=100: range_constraints\.s0 allows 2\.\.64/);
    expect(importTorchExport(archive(programJson(p)), { dims: { s0: 64 } }).bound).toEqual({ s0: 64 });
  });

  it('sparse layouts, higher-order ops and an unknown input kind', () => {
    const sparse = relu({ ...tensorMeta([4, 8]), layout: 1 });
    expect(fails(archive(programJson(sparse)))).toMatchObject({ code: 'UNSUPPORTED', message: expect.stringMatching(/graph\.tensor_values\.x\.layout = 1: only strided tensors/) });
    const hop = relu();
    hop.nodes = [{ target: 'torch.ops.higher_order.cond', inputs: { pred: 'x', true_fn: { as_graph: { name: 'g', graph: {} } } }, outputs: ['y'] }];
    expect(fails(archive(programJson(hop)))).toMatchObject({ code: 'UNSUPPORTED', message: expect.stringMatching(/graph\.nodes\[0\] \(torch\.ops\.higher_order\.cond\): a higher-order op/) });
  });

  it('bad options, naming the field', () => {
    const bytes = archive(programJson(relu()));
    expect(fails(bytes, { alignment: 3 }).message).toMatch(/options\.alignment = 3: must be a power of two/);
    expect(fails(bytes, { dims: { s0: -1 } }).message).toMatch(/options\.dims\.s0 = -1/);
    expect(fails(bytes, { customOps: { 'a.b.c': { kind: 'alias' } } }).message).toMatch(/options\.customOps\.a\.b\.c\.kind = "alias"/);
    expect(fails(bytes, { bindings: { x: [4, 9] } }).message).toMatch(/--input x=4x9: size 1 of user input "x" is 8/);
    expect(fails(bytes, { bindings: { nope: [4] } }).message).toMatch(/--input nope=4: the program has no user input or size symbol "nope"/);
  });
});

describe('damaged archives', () => {
  const fixture = new Uint8Array(readFileSync(FIXTURE));
  const entries = unzipSync(fixture, { filter: (f) => f.name.endsWith('models/model.json') });
  const model = JSON.parse(strFromU8(Object.values(entries)[0])) as Record<string, unknown>;
  const isTensorplanError = (run: () => unknown) => {
    try {
      run();
      return true;
    } catch (error) {
      return error instanceof TensorplanError && /\S/.test((error as Error).message);
    }
  };

  it('import or fail with a TensorplanError whatever bytes are flipped (property)', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 8 }), (flips) => {
      const bytes = fixture.slice();
      for (const [at, x] of flips) bytes[at % bytes.length] ^= x;
      expect(isTensorplanError(() => importTorchExport(bytes))).toBe(true);
    }), { numRuns: 60 });
  });

  it('import or fail with a TensorplanError whatever value a field of model.json takes (property)', () => {
    const slots: [Record<string, unknown>, string][] = [];
    const walk = (v: unknown) => {
      if (v === null || typeof v !== 'object') return;
      for (const key of Object.keys(v)) { slots.push([v as Record<string, unknown>, key]); walk((v as Record<string, unknown>)[key]); }
    };
    walk(model);
    const weird = fc.constantFrom<unknown>(null, -1, 0.5, 'x', [], {}, true, 2 ** 60, [null], { as_int: -3 }, { as_expr: { expr_str: 'Foo(1)' } });
    fc.assert(fc.property(fc.nat(slots.length - 1), weird, (index, value) => {
      const [parent, key] = slots[index];
      const saved = parent[key];
      parent[key] = value;
      try {
        expect(isTensorplanError(() => importTorchExport(archive(model)))).toBe(true);
      } finally {
        parent[key] = saved;
      }
    }), { numRuns: 300 });
  });
});
