// Op set v1 as the facade lists it and as each core names it: the same names
// in the same ABI order.
import { describe, expect, it } from 'vitest';
import { OP_SET_V1 } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';

describe('op set v1', () => {
  it('lists view first and holds matmul, grouped_matmul, the backward ops, quantize, dequantize, amax and fill', () => {
    expect(OP_SET_V1[0]).toBe('view');
    for (const op of ['matmul', 'grouped_matmul', 'layernorm_backward', 'rmsnorm_backward', 'softmax_backward', 'quantize', 'dequantize', 'amax', 'fill']) {
      expect(OP_SET_V1).toContain(op);
    }
  });

  it.each(BACKENDS)('names every op code as the %s core does (every entry, not just view)', (backend) => {
    const core = (session(backend) as unknown as { core: { call(op: string, args: unknown[]): ArrayLike<number>[] } }).core;
    const [codes, blob, offsets] = core.call('tp_code_table', [9]);  // TP_TABLE_OP
    const names = Array.from(codes as ArrayLike<number>, (_, i) => new TextDecoder().decode((blob as Uint8Array).subarray(offsets[i], offsets[i + 1])));
    expect(Array.from(codes as ArrayLike<number>)).toEqual(OP_SET_V1.map((_, i) => i));
    expect(names).toEqual([...OP_SET_V1]);
  });
});
