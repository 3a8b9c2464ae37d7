// The generated ABI module against the loaded cores, on every backend: every
// entry of every code table is what the core says (tp_code_table), and every
// operation's result has exactly the fields c_api.h declares for it (count,
// order, types), exercised through the public API with a recording binding.
import { describe, expect, it } from 'vitest';
import { DTYPES, OP_SET_V1, RECIPES, SCHEDULE_METHODS, Tensorplan } from '../../dist/index.mjs';
import type { GraphDocument } from '../../dist/index.mjs';
import { CODE_TABLES, OPERATIONS } from '../../src/abi/c-api.generated';
import { DTYPE_CODE, RECIPE_CODE } from '../../src/abi/c-api-tables.generated';
import { BACKENDS, session } from '../support/backends';

type CoreArray = Float64Array | Float32Array | Int32Array | Uint8Array | Uint16Array;
interface Core { abiVersion: number; coreVersion: string; call(operation: string, args: readonly unknown[]): CoreArray[] }

const CLASSES = { F64: Float64Array, I32: Int32Array, U8: Uint8Array, F32: Float32Array, U16: Uint16Array } as const;

function coreOf(tp: Tensorplan): Core {
  return (tp as unknown as { core: Core }).core;
}

function readTable(core: Core, id: number): { codes: number[]; names: string[] } {
  const [codes, blob, offsets] = core.call('tp_code_table', [id]);
  const decoder = new TextDecoder();
  const names = Array.from(codes, (_, i) => decoder.decode(blob.subarray(offsets[i], offsets[i + 1])));
  return { codes: Array.from(codes), names };
}

const GRAPH: GraphDocument = {
  format: 'tensorplan.graph', version: 1,
  tensors: [
    { name: 'x', shape: [4, 4], dtype: 'fp32' }, { name: 'w', shape: [4, 4], dtype: 'fp32' },
    { name: 'h', shape: [4, 4], dtype: 'fp32' }, { name: 'y', shape: [4, 4], dtype: 'fp32' },
  ],
  ops: [
    { name: 'mm', op: 'matmul', inputs: ['x', 'w'], outputs: ['h'] },
    { name: 'act', op: 'relu', inputs: ['h'], outputs: ['y'] },
  ],
  inputs: ['x', 'w'], outputs: ['y'],
};

/** One call of every operation of c_api.h, through the public API where it calls it: the arguments it passed and what came back. */
async function exercise(backend: string, core: Core): Promise<Map<string, { args: readonly unknown[]; arrays: CoreArray[] }>> {
  const seen = new Map<string, { args: readonly unknown[]; arrays: CoreArray[] }>();
  const recording: Core = {
    abiVersion: core.abiVersion, coreVersion: core.coreVersion,
    call(operation, args) {
      const arrays = core.call(operation, args);
      seen.set(operation, { args, arrays });
      return arrays;
    },
  };
  const rec = new (Tensorplan as unknown as new (loaded: object) => Tensorplan)({ name: backend, source: 'test', core: recording, addon: undefined });
  rec.bulkLayout([{ shape: [2, 3], dtype: 'bf16' }]);
  const format = { shape: [128, 128], dtype: 'bf16', recipe: 'mxfp8' } as const;
  const spec = rec.tensorSpecBuffers(format);
  rec.updateUsage(format, { columnwise: false });
  rec.checkBuffers(format, spec.buffers.map((b) => ({ name: b.name, shape: b.shape, dtype: b.dtype, bytes: b.bytes })));
  rec.splitQuantizeLayout([[128, 128]], { dtype: 'bf16', recipe: 'mxfp8' }, 'rowwise');
  rec.groupedLayout([[128, 128], [128, 128]], { dtype: 'bf16', recipe: 'mxfp8' });
  const q = rec.quantize(format, new Uint8Array(128 * 128 * 2));
  rec.dequantize(format, q.buffers.map((b) => b.bytes));
  rec.swizzleScales(new Uint8Array(128 * 4), 128, 4);
  rec.delayedScalingUpdate([1, 2], 2, [1]);
  rec.schedule(GRAPH, { method: 'given' });
  rec.liveness(GRAPH);
  rec.checkFusion(GRAPH, ['mm', 'act'], { method: 'given' });
  rec.verifyTrace(GRAPH, undefined, [{ step: 0, tensor: 'h', event: 'alloc' }]);
  rec.place([{ lower: 0, upper: 2, size: 8 }, { lower: 1, upper: 3, size: 8 }]);
  const plan = rec.plan(GRAPH);
  rec.plan(GRAPH, { joint: true });  // tp_graph_compact_order
  rec.validate(plan, GRAPH);
  await rec.execute(plan, { x: new Uint8Array(64), w: new Uint8Array(64) }, { executor: 'reference' } as never);
  // Operations the facade does not call: directly. tp_graph_in_place on a
  // one-op graph (x -> relu -> y, names given), every array non-empty.
  recording.call('tp_graph_validate', [Int32Array.from([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 13, Float64Array.from([0]), 1,
    new Uint8Array(0), 0, new Int32Array(0), 0]);
  // A graph x -> relu -> y as c_api.h lays it out: header {format, T, N, I, O, P, V, Q, G}, then
  // op input/output/control CSRs, inputs, outputs, group offsets; f64: bytes, alignments,
  // workspace, default alignment; names x, y, op "r" of type "relu".
  const names = new TextEncoder().encode('xyrrelu');
  const graph = [Int32Array.from([1, 2, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0]), 20,
    Float64Array.from([16, 16, 0, 0, 0, 0]), 6, names, names.length, Int32Array.from([0, 1, 2, 3, 7]), 5];
  recording.call('tp_graph_validate', graph);
  recording.call('tp_code_table', [0]);
  recording.call('tp_graph_in_place', [...graph,
    Uint8Array.from([1]), 1, Int32Array.from([0]), 1, Int32Array.from([0, 0]), 2, Int32Array.from([0, 1, 2]), 3, Float64Array.from([4, 4]), 2]);
  recording.call('tp_recipe_facts', [RECIPE_CODE.mxfp8]);
  recording.call('tp_dtype_facts', [DTYPE_CODE.bf16]);
  return seen;
}

/** The example's plan: a session that still answers it after a refused call is healthy (test/house/public-fuzz.test.ts). */
function probe(tp: Tensorplan): string {
  const plan = tp.plan(GRAPH);
  return JSON.stringify({ arena: plan.arenaBytes, schedule: plan.schedule, storages: plan.storages });
}

/** Code and message of what `f` throws. */
function caught(f: () => unknown): { name: string; code: string; message: string } {
  try {
    f();
  } catch (error) {
    const e = error as { name: string; code: string; message: string };
    return { name: e.name, code: e.code, message: e.message };
  }
  throw new Error('expected a throw');
}

type Operation = (typeof OPERATIONS)[keyof typeof OPERATIONS];
type Named = Record<string, unknown>;

/** The recorded positional arguments of `operation` by parameter name. */
function named(operation: string, args: readonly unknown[]): Named {
  const op = OPERATIONS[operation as keyof typeof OPERATIONS] as Operation;
  return Object.fromEntries(op.params.map((name, i) => [name, args[i]]));
}

/** Calls `operation` with named arguments through its generated encoder (the path every public function takes). */
function viaEncoder(core: Core, operation: string, args: Named): CoreArray[] {
  const op = OPERATIONS[operation as keyof typeof OPERATIONS] as Operation;
  return core.call(operation, (op.encode as (a: never) => unknown[])(args as never));
}

/** Calls `operation` with named arguments straight to the backend, past the encoder (native: the addon's own checks). */
function direct(core: Core, operation: string, args: Named): CoreArray[] {
  const op = OPERATIONS[operation as keyof typeof OPERATIONS] as Operation;
  return core.call(operation, op.params.map((name) => args[name]));
}

/**
 * Every (operation, array parameter) with the recorded arguments of the
 * operation: the array made exactly as long as c_api.h states (a NULL-allowed
 * one given as zeros: "default" for every such parameter), and that length.
 */
interface ArrayCase { operation: string; param: string; cName: string; kind: keyof typeof CLASSES; expression: string; nullable: boolean; args: Named; length: number }

function arrayCases(seen: Map<string, { args: readonly unknown[] }>): ArrayCase[] {
  const cases: ArrayCase[] = [];
  for (const [operation, op] of Object.entries(OPERATIONS)) {
    const args = named(operation, seen.get(operation)!.args);
    for (const [param, cName, kind, expression, required, nullable] of op.arrays as readonly (readonly [string, string, keyof typeof CLASSES, string, (a: never) => number, boolean])[]) {
      const length = required(args as never);
      const array = (args[param] ?? new CLASSES[kind](Math.max(length, 0))) as CoreArray;
      cases.push({ operation, param, cName, kind, expression, nullable, args: { ...args, [param]: array.subarray(0, length) }, length });
    }
  }
  return cases;
}

describe.each(BACKENDS)('generated ABI on %s', (backend) => {
  const tp = session(backend);
  const core = coreOf(tp);

  it('every entry of every code table has the core\'s code and name', () => {
    for (const [name, table] of Object.entries(CODE_TABLES)) {
      const fromCore = readTable(core, table.id);
      expect(fromCore.codes, name).toEqual([...table.codes]);
      expect(fromCore.names, name).toEqual([...table.names]);
    }
  });

  it('the public tables are the generated ones, entry by entry', () => {
    expect(DTYPES).toEqual(readTable(core, CODE_TABLES.dtype.id).names);
    expect(RECIPES).toEqual(readTable(core, CODE_TABLES.recipe.id).names);
    expect(SCHEDULE_METHODS).toEqual(readTable(core, CODE_TABLES.schedule_method.id).names);
    expect(OP_SET_V1).toEqual(readTable(core, CODE_TABLES.op.id).names);
    expect(readTable(core, CODE_TABLES.place_method.id).names[5]).toBe('constructive');
  });

  // What c_api.h states for each argument (its
  // length, finite doubles) is checked before any backend reads it, with the
  // same error on every backend and on the native addon called by itself.
  const healthy = probe(tp);
  let exercised: ReturnType<typeof exercise> | undefined;
  const recorded = (): ReturnType<typeof exercise> => (exercised ??= exercise(backend, core));

  it('every array one element shorter than c_api.h states, or NULL where it may not be, is refused naming it', async () => {
    const cases = arrayCases(await recorded());
    expect(cases.length).toBe(Object.values(OPERATIONS).reduce((n, op) => n + op.arrays.length, 0));
    for (const { operation, param, cName, kind, expression, nullable, args, length } of cases) {
      const where = `${operation}.${cName}`;
      expect(length, `${where}: the example call must read at least one element`).toBeGreaterThan(0);
      expect(() => viaEncoder(core, operation, args), `${where} at its stated length`).not.toThrow();
      const short = { ...args, [param]: (args[param] as CoreArray).subarray(0, length - 1) };
      const message = `${operation}: ${cName} = ${CLASSES[kind].name}(${length - 1}): must be of length >= ${expression} = ${length}`;
      const refused = { name: 'TensorplanError', code: 'INVALID_ARGUMENT', message };
      expect(caught(() => viaEncoder(core, operation, short)), where).toEqual(refused);
      // The native addon refuses it by itself, with the same error (defence in depth).
      if (backend === 'native') expect(caught(() => direct(core, operation, short)), `${where} (addon)`).toEqual(refused);
      if (!nullable) {
        const none = { ...refused, message: `${operation}: ${cName} = null: must be of length >= ${expression} = ${length}` };
        expect(caught(() => viaEncoder(core, operation, { ...args, [param]: null })), where).toEqual(none);
        if (backend === 'native') expect(caught(() => direct(core, operation, { ...args, [param]: null })), `${where} (addon)`).toEqual(none);
      }
    }
    expect(probe(tp)).toBe(healthy);
  });

  it('every double c_api.h marks finite is refused as NaN or Infinity naming it', async () => {
    const seen = await recorded();
    let checked = 0;
    for (const [operation, op] of Object.entries(OPERATIONS)) {
      const args = named(operation, seen.get(operation)!.args);
      for (const [param, cName] of op.finite as readonly (readonly [string, string])[]) {
        for (const value of [Number.NaN, Infinity, -Infinity]) {
          const message = `${operation}: ${cName} = ${value}: must be a finite number`;
          expect(caught(() => viaEncoder(core, operation, { ...args, [param]: value }))).toEqual({ name: 'TensorplanError', code: 'INVALID_ARGUMENT', message });
          // Past the generated layers: the addon's own check, and on WASM the core's (it refuses every one by name too).
          let e = { name: '', code: '', message: 'accepted' };
          try {
            direct(core, operation, { ...args, [param]: value });
          } catch (error) {
            e = error as typeof e;
          }
          if (backend === 'native') expect({ name: e.name, code: e.code, message: e.message }).toEqual({ name: 'TensorplanError', code: 'INVALID_ARGUMENT', message });
          else expect(e.message, `${operation}.${cName} = ${value} (core)`).toContain(cName);
          checked++;
        }
      }
    }
    expect(checked).toBe(3 * Object.values(OPERATIONS).reduce((n, op) => n + op.finite.length, 0));
    expect(checked).toBeGreaterThan(0);
    expect(probe(tp)).toBe(healthy);
  });

  it('every operation returns exactly its declared result fields', async () => {
    const seen = await exercise(backend, core);
    for (const [operation, { fields }] of Object.entries(OPERATIONS)) {
      const arrays = seen.get(operation)?.arrays;
      expect(arrays, `${operation} was not exercised`).toBeDefined();
      expect(arrays!.length, operation).toBe(fields.length);
      fields.forEach(([field, type], i) => {
        expect(arrays![i], `${operation}.${field}`).toBeInstanceOf(CLASSES[type]);
      });
    }
  });
});
