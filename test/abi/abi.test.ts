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

  it('every operation returns exactly its declared result fields', async () => {
    const seen = new Map<string, CoreArray[]>();
    const recording: Core = {
      abiVersion: core.abiVersion, coreVersion: core.coreVersion,
      call(operation, args) {
        const arrays = core.call(operation, args);
        seen.set(operation, arrays);
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
    rec.verifyTrace(GRAPH, undefined, []);
    rec.place([{ lower: 0, upper: 2, size: 8 }, { lower: 1, upper: 3, size: 8 }]);
    const plan = rec.plan(GRAPH);
    rec.validate(plan, GRAPH);
    await rec.execute(plan, { x: new Uint8Array(64), w: new Uint8Array(64) }, { executor: 'reference' } as never);
    // Operations the facade does not call: directly, on an empty graph.
    recording.call('tp_graph_validate', [Int32Array.from([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 13, Float64Array.from([0]), 1,
      new Uint8Array(0), 0, new Int32Array(0), 0]);
    recording.call('tp_code_table', [0]);
    recording.call('tp_graph_in_place', [Int32Array.from([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 13, Float64Array.from([0]), 1,
      new Uint8Array(0), 0, new Int32Array(0), 0, new Uint8Array(0), 0, new Int32Array(0), 0, new Int32Array(0), 0,
      Int32Array.from([0]), 1, new Float64Array(0), 0]);
    recording.call('tp_recipe_facts', [RECIPE_CODE.mxfp8]);
    recording.call('tp_dtype_facts', [DTYPE_CODE.bf16]);

    for (const [operation, { fields }] of Object.entries(OPERATIONS)) {
      const arrays = seen.get(operation);
      expect(arrays, `${operation} was not exercised`).toBeDefined();
      expect(arrays!.length, operation).toBe(fields.length);
      fields.forEach(([field, type], i) => {
        expect(arrays![i], `${operation}.${field}`).toBeInstanceOf(CLASSES[type]);
      });
    }
  });
});
