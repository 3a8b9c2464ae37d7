// The WASM binding past 2 GiB of heap: wasm32 pointers are
// unsigned, but an exported function's i32 reads as signed in JS. Once the
// heap's low 2 GiB are taken, every array the binding copies in and every
// result it copies out lives above 2^31: read as negative, `subarray` and
// `set` would touch the wrong bytes (results "succeed" with other values) or
// throw. The binding reads pointers unsigned; this fills the low heap and
// requires the same answers as a fresh instance. (Native pointers are 64-bit:
// nothing to test there; the executor's own limits are in
// test/execute/reference-executor-limits.test.ts on both backends.)
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { instantiateCore } from '../../src/backend/wasm-module';
import { wasmCoreBinding } from '../../src/backend/wasm-core';
import { callPlace } from '../../src/abi/c-api.generated';

const wasmFile = new URL('../../wasm/dist/tensorplan_core.wasm', import.meta.url);

describe('wasm binding with a heap past 2 GiB', () => {
  it('copies arguments in and results out above 2^31 exactly as a fresh instance does', async () => {
    const bytes = new Uint8Array(readFileSync(wasmFile));
    const grown = await instantiateCore(bytes, 'wasm');
    const fresh = wasmCoreBinding(await instantiateCore(bytes, 'wasm'));
    // Take the low 2 GiB (one sbrk step must stay below 2^31, so two pieces).
    const a = grown._malloc(1.5 * 2 ** 30) >>> 0;
    const b = grown._malloc(700 * 2 ** 20) >>> 0;
    expect(a !== 0 && b !== 0).toBe(true);  // memory.grow reserves; untouched pages cost nothing
    expect(b + 700 * 2 ** 20).toBeGreaterThan(2 ** 31);
    expect(grown._malloc(64)).toBeLessThan(0);  // what JS sees: a "negative" pointer
    const core = wasmCoreBinding(grown);
    const args = {
      lower: new Float64Array([0, 3, 0, 9, 0]), upper: new Float64Array([3, 9, 9, 21, 21]),
      size: new Float64Array([4, 4, 4, 4, 4]), alignment: new Float64Array(5), count: 5,
      algorithm: 0, capacity: -1, timeLimitSeconds: 5, minimize: 1, threads: 1,
    };
    const here = callPlace(core, args);
    const there = callPlace(fresh, args);
    expect(Array.from(here.offsets)).toEqual(Array.from(there.offsets));
    expect(here.summary[0]).toBe(12);
    expect(new TextDecoder().decode(here.methodName)).toBe(new TextDecoder().decode(there.methodName));
    // An error message read from above 2^31 too.
    expect(() => callPlace(core, { ...args, capacity: -2 })).toThrow(/capacity = -2: expected -1 \(none\)/);
  });
});
