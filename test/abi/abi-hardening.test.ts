// No ABI call reads past the caller's buffer, and
// every argument is type-checked in one place (the generated encode<Op>Args)
// before a backend sees it, so wrong-typed calls give the same TensorplanError
// on every backend.
import { describe, expect, it } from 'vitest';
import { TensorplanError } from '../../dist/index.mjs';
import type { Tensorplan } from '../../dist/index.mjs';
import {
  callBulkLayout, callDelayedScalingUpdate, callPlace, callSplitQuantizeLayout, callSwizzleScales,
  OPERATIONS,
} from '../../src/abi/c-api.generated';
import { executeArgs } from '../../src/execute/execute';
import { BACKENDS, BOTH_BACKENDS, session } from '../support/backends';
import { parseOperations } from '../../scripts/abi/parse-c-api.mjs';

type Core = Parameters<typeof callSwizzleScales>[0];
const coreOf = (tp: Tensorplan): Core => (tp as unknown as { core: Core }).core;

/** Code and message of what `f` throws (the src and dist error classes differ: compare by name). */
function caught(f: () => unknown): { name: string; code: string; message: string } {
  try {
    f();
  } catch (error) {
    const e = error as TensorplanError;
    return { name: e.name, code: e.code, message: e.message };
  }
  throw new Error('expected a throw');
}

const WRONG_TYPED: [string, (core: Core) => unknown][] = [
  ['a string byte count', (core) => callPlace(core, {
    lower: new Float64Array([0]), upper: new Float64Array([1]), size: new Float64Array([8]), alignment: null, count: 1,
    algorithm: 0, capacity: '1024' as unknown as number, timeLimitSeconds: 0, minimize: 0, threads: 1,
  })],
  ['a fractional int32', (core) => callSwizzleScales(core, {
    source: new Uint8Array(4), sourceLength: 4, srcRows: 2, srcCols: 2, transpose: 0.5, validRows: 2, validCols: 2, inverse: 0,
  })],
  ['an int32 out of range', (core) => callSwizzleScales(core, {
    source: new Uint8Array(4), sourceLength: 2 ** 31, srcRows: 2, srcCols: 2, transpose: 0, validRows: 2, validCols: 2, inverse: 0,
  })],
  ['a plain array for a typed array', (core) => callSwizzleScales(core, {
    source: [1, 2, 3, 4] as unknown as Uint8Array, sourceLength: 4, srcRows: 2, srcCols: 2, transpose: 0, validRows: 2, validCols: 2, inverse: 0,
  })],
  ['the wrong typed-array class', (core) => callBulkLayout(core, {
    shapeOffsets: new Int32Array([0, 1]), dims: new Float32Array([4]) as unknown as Float64Array, dimsCount: 1,
    dtypes: new Int32Array([0]), alignments: null, count: 1,
  })],
  ['a BigInt scalar', (core) => callDelayedScalingUpdate(core, {
    amaxHistory: new Float64Array([1]), amaxHistoryCount: 1, historyLen: 1, scale: new Float64Array([1]), count: 1, algo: 0,
    fp8Max: 448n as unknown as number, margin: 0,
  })],
  ['a detached typed array', (core) => {
    // Node 20 has no ArrayBuffer.prototype.detached: the check must not depend on it.
    const source = new Uint8Array(4);
    structuredClone(source.buffer, { transfer: [source.buffer] });
    return callSwizzleScales(core, { source, sourceLength: 4, srcRows: 2, srcCols: 2, transpose: 0, validRows: 2, validCols: 2, inverse: 0 });
  }],
  ['a count beyond its array', (core) => callSplitQuantizeLayout(core, {
    shapeOffsets: new Int32Array([0, 2]), dims: new Float64Array([32]), dimsCount: 2, count: 1, format: new Int32Array([2, 3, 0, 0, 0, 3]), columnwise: 0,
  })],
];

describe.each(BACKENDS)('ABI arguments on %s', (backend) => {
  const tp = session(backend);

  it('swizzleScales refuses a source shorter than rows x cols instead of reading past it', () => {
    const e = caught(() => tp.swizzleScales(new Uint8Array(16), 128, 8));
    expect(e).toMatchObject({ name: 'TensorplanError', code: 'INVALID_ARGUMENT' });
    expect(e.message).toBe('source_length = 16: must equal src_rows * src_cols = 1024');
  });

  it('delayedScalingUpdate refuses a history shorter than historyLen x count', () => {
    const e = caught(() => tp.delayedScalingUpdate([1, 5], 4, [1]));
    expect(e).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'amax_history_count = 2: must equal history_len * count = 4' });
  });

  it('a stated dims count that differs from the shape offsets is refused by the core', () => {
    // Straight to the core, past encodeBulkLayoutArgs (which refuses it first: below).
    // (The native addon checks c_api.h's `last == dims_count` itself before the core.)
    const e = caught(() => coreOf(tp).call('tp_bulk_layout', [
      new Int32Array([0, 2]), new Float64Array([4, 4]), 1, new Int32Array([0]), null, 1,
    ]));
    expect(e).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: backend === 'native' ? 'tp_bulk_layout: shape_offsets[count] = 2: must equal dims_count = 1' : 'dims_count = 1: must equal shape_offsets[count] = 2',
    });
  });

  it('the generated ABI layer refuses it first, naming the CSR entry and the count (c_api.h: last == dims_count)', () => {
    const e = caught(() => callBulkLayout(coreOf(tp), {
      shapeOffsets: new Int32Array([0, 2]), dims: new Float64Array([4, 4]), dimsCount: 1, dtypes: new Int32Array([0]), alignments: null, count: 1,
    }));
    expect(e).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'tp_bulk_layout: shape_offsets[count] = 2: must equal dims_count = 1' });
  });

  it.each(WRONG_TYPED)('%s is an INVALID_ARGUMENT naming the operation, the parameter and the value', (_, call) => {
    const e = caught(() => call(coreOf(tp)));
    expect(e.name).toBe('TensorplanError');
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).toMatch(/^tp_\w+: \w+ = .+: (must be|exceeds)/);
  });

  it('execute with a string arenaBytes is an INVALID_ARGUMENT, not a heap pointer or a raw TypeError', async () => {
    const graph = {
      format: 'tensorplan.graph' as const, version: 1 as const,
      tensors: [{ name: 'x', shape: [4], dtype: 'fp32' as const }, { name: 'y', shape: [4], dtype: 'fp32' as const }],
      ops: [{ name: 'r', op: 'relu', inputs: ['x'], outputs: ['y'] }], inputs: ['x'], outputs: ['y'],
    };
    const plan = tp.plan(graph);
    await expect(tp.execute({ ...plan, arenaBytes: '1024' as unknown as number }, { x: new Uint8Array(16) }, { executor: 'reference' }))
      .rejects.toMatchObject({ name: 'TensorplanError', code: 'INVALID_ARGUMENT' });
  });

  // Straight to the core (past encodeExecuteReferenceArgs): input_offsets[input_count + 1]
  // has no passed length; the core checks what it can: a CSR into input_data,
  // non-decreasing and within input_data_length. The semantic CSRs
  // (lengths passed) start at 0, never decrease and end at their data. The native addon
  // checks the last entries c_api.h states (`last <= input_data_length`,
  // `last == shape_dims_count`) itself before the core: its message where it differs.
  it.each([
    ['inputOffsets', [0, 32], 'input_offsets[1] = 32: must be in [input_offsets[0] = 0, input_data_length = 16]',
      'tp_execute_reference: input_offsets[input_count] = 32: must be <= input_data_length = 16'],
    ['inputOffsets', [8, 4], 'input_offsets[1] = 4: must be in [input_offsets[0] = 8, input_data_length = 16]', undefined],
    ['shapeOffsets', [1, 1, 2], 'shape_offsets[0] = 1: must be 0', undefined],
    ['shapeOffsets', [0, 3, 2], 'shape_offsets[2] = 2: must be >= shape_offsets[1] = 3', undefined],
    ['shapeOffsets', [0, 1, 1], 'shape_offsets[2] = 1: must equal shape_dims_count = 2',
      'tp_execute_reference: shape_offsets[shape_offsets_count - 1] = 1: must equal shape_dims_count = 2'],
  ])('tp_execute_reference refuses %s = %j, naming the entry and the value', (param, offsets, coreMessage, addonMessage) => {
    const message = backend === 'native' ? addonMessage ?? coreMessage : coreMessage;
    const graph = {
      format: 'tensorplan.graph' as const, version: 1 as const,
      tensors: [{ name: 'x', shape: [4], dtype: 'fp32' as const }, { name: 'y', shape: [4], dtype: 'fp32' as const }],
      ops: [{ name: 'r', op: 'relu', inputs: ['x'], outputs: ['y'] }], inputs: ['x'], outputs: ['y'],
    };
    const core = coreOf(tp) as unknown as Parameters<typeof executeArgs>[0];
    const { args } = executeArgs(core, tp.plan(graph), { x: new Uint8Array(16) }, 'arena');
    const changed = [...args];
    const at = OPERATIONS.tp_execute_reference.params.indexOf(param as 'inputOffsets');
    changed[at] = (args[at] instanceof Int32Array ? Int32Array : Float64Array).from(offsets);
    expect(caught(() => core.call('tp_execute_reference', changed))).toMatchObject({ code: 'INVALID_ARGUMENT', message });
  });
});

describe.runIf(BOTH_BACKENDS)('wrong-typed ABI calls on wasm and native', () => {
  it.each(WRONG_TYPED)('%s: the same code and message on both backends', (_, call) => {
    expect(caught(() => call(coreOf(session('native'))))).toEqual(caught(() => call(coreOf(session('wasm')))));
  });
});

describe.runIf(BACKENDS.includes('native'))('the native addon called by itself', () => {
  const tp = session('native');
  const core = coreOf(tp) as unknown as Parameters<typeof executeArgs>[0];
  const graph = {
    format: 'tensorplan.graph' as const, version: 1 as const,
    tensors: [{ name: 'x', shape: [4], dtype: 'fp32' as const }, { name: 'y', shape: [4], dtype: 'fp32' as const }],
    ops: [{ name: 'r', op: 'relu', inputs: ['x'], outputs: ['y'] }], inputs: ['x'], outputs: ['y'],
  };
  const { args } = executeArgs(core, tp.plan(graph), { x: new Uint8Array(16) }, 'arena');
  const params = OPERATIONS.tp_execute_reference.params;
  const named = (positional: readonly unknown[]): never => Object.fromEntries(params.map((p, i) => [p, positional[i]])) as never;
  const at = params.indexOf('inputOffsets');

  // js_number (cuda/addon/abi_marshal.cpp) prints as check-args.ts shownNumber prints.
  it.each([16.1, 16.000000000000004, 2 ** 60, 123456789012345680000, 1e21, 1.5e300, 1e-7 + 17])(
    'an input offset of %d past the data is the same message from the addon as from the encoder', (value) => {
      const changed = [...args];
      changed[at] = Float64Array.from([0, value]);
      const fromEncoder = caught(() => OPERATIONS.tp_execute_reference.encode(named(changed)));
      expect(fromEncoder.message).toMatch(/^tp_execute_reference: input_offsets\[input_count\] = .*: must be <= input_data_length = 16$/);
      expect(caught(() => core.call('tp_execute_reference', changed))).toEqual(fromEncoder);
    });

  it('the off-thread executor refuses a short array before queuing it, with the same message', async () => {
    const addon = (tp as unknown as { addon: { reference_execute(...a: unknown[]): Promise<unknown> } }).addon;
    const changed = [...args];
    const data = params.indexOf('inputData');
    changed[data] = (args[data] as Uint8Array).subarray(0, 15);
    const fromEncoder = caught(() => OPERATIONS.tp_execute_reference.encode(named(changed)));
    expect(fromEncoder.message).toBe('tp_execute_reference: input_data = Uint8Array(15): must be of length >= input_data_length = 16');
    await expect(addon.reference_execute(...changed)).rejects.toMatchObject({ status: 1, message: fromEncoder.message });
  });

  it('an int32 argument beyond int32 is refused, not wrapped (2^31 would read as -2^31)', () => {
    const changed = [...args];
    changed[params.indexOf('mode')] = 2 ** 31;
    const fromEncoder = caught(() => OPERATIONS.tp_execute_reference.encode(named(changed)));
    expect(fromEncoder).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'tp_execute_reference: mode = 2147483648: must be an integer in [-2^31, 2^31 - 1]' });
    expect(caught(() => core.call('tp_execute_reference', changed))).toEqual(fromEncoder);
    const addon = (tp as unknown as { addon: { reference_execute(...a: unknown[]): Promise<unknown> } }).addon;
    return expect(addon.reference_execute(...changed)).rejects.toMatchObject({ status: 1, message: fromEncoder.message });
  });
});

describe('c_api.h declarations the parser refuses', () => {
  const declare = (params: string): string => `#define TP_RESULT_FIELDS_tp_x(X) X(F64, y)\nTP_API tp_status tp_x(${params}, tp_result** out);\n`;

  it.each([
    ['an array without a length', 'const double* values, int32_t count', /tp_x: parameter values is an array without a length/],
    ['a length naming no parameter', 'const double* values /*[counts]*/, int32_t count', /tp_x: parameter values: length \[counts\] names counts/],
    ['a CSR bound that is not an int32', 'const int32_t* offsets /*[count + 1] last == limit*/, int32_t count, double limit /*finite*/',
      /tp_x: parameter offsets: last == limit: limit must be an int32_t parameter/],
    ['a double that does not say whether it must be finite', 'const double* values /*[count]*/, int32_t count, double scale',
      /tp_x: parameter scale is a double without \/\*finite\*\/ or \/\*any\*\//],
  ])('%s', (_, params, error) => {
    expect(() => parseOperations(declare(params))).toThrow(error);
  });

  it('a declaration with every array and double stated parses, with its lengths', () => {
    const [op] = parseOperations(declare('const int32_t* offsets /*[count + 1] last <= n*/, int32_t count, int32_t n, double s /*any*/, const double* v /*[2 * count] or NULL*/'));
    expect(op.params.map((p: { length?: { expr: string; nullable: boolean; last?: unknown } }) => p.length && { ...p.length, tokens: undefined })).toEqual([
      { expr: 'count + 1', nullable: false, last: { op: '<=', bound: 'n', index: 'count' }, tokens: undefined },
      undefined, undefined, undefined,
      { expr: '2 * count', nullable: true, tokens: undefined },
    ]);
  });
});
