// FORMATS.md §1-§6 through the public API, on every backend: buffers of every
// recipe, usage updates, unflatten checks, split-quantize and grouped layouts,
// reference numerics (§5 vectors), the GEMM swizzle and delayed scaling.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECIPES, TensorplanError } from '../../dist/index.mjs';
import { BACKENDS, BOTH_BACKENDS, session } from '../support/backends';

function f32Bytes(values: number[]): Uint8Array {
  return new Uint8Array(Float32Array.from(values).buffer);
}

function f32Values(bytes: Uint8Array): number[] {
  return Array.from(new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
}

describe.each(BACKENDS)('formats on %s', (backend) => {
  const tp = session(backend);

  it('§2.1 FP8 per-tensor [1000,4096]: transpose on Hopper, none on Blackwell', () => {
    const hopper = tp.tensorSpecBuffers({ shape: [1000, 4096], dtype: 'bf16', recipe: 'fp8_current' });
    expect(hopper.buffers.map((b) => [b.name, b.shape, b.dtype, b.bytes])).toEqual([
      ['_data', [1000, 4096], 'uint8', 4096000],
      ['_transpose', [4096, 1000], 'uint8', 4096000],
      ['_scale_inv', [1], 'fp32', 4],
    ]);
    const blackwell = tp.tensorSpecBuffers({ shape: [1000, 4096], dtype: 'bf16', recipe: 'fp8_delayed', arch: 'blackwell' });
    expect(blackwell.buffers.map((b) => b.name)).toEqual(['_data', '_scale_inv']);
    expect(blackwell.totalBytes).toBe(4096004);
    expect(blackwell.buffers[0].usages).toEqual(['rowwise', 'columnwise']);
    const threeD = tp.tensorSpecBuffers({ shape: [8, 128, 768], dtype: 'bf16', recipe: 'fp8_current' });
    expect(threeD.buffers[1].shape).toEqual([768, 8, 128]);
    expect(threeD.buffers[1].bytes).toBe(786432);
  });

  it('§2.2 MXFP8 examples and the [1000,4096] error', () => {
    const spec = tp.tensorSpecBuffers({ shape: [1024, 4096], dtype: 'bf16', recipe: 'mxfp8' });
    expect(spec.buffers.map((b) => [b.name, b.shape, b.bytes, b.element])).toEqual([
      ['_rowwise_data', [1024, 4096], 4194304, 'fp8_e4m3'],
      ['_rowwise_scale_inv', [1024, 128], 131072, 'e8m0'],
      ['_columnwise_data', [1024, 4096], 4194304, 'fp8_e4m3'],
      ['_columnwise_scale_inv', [32, 4096], 131072, 'e8m0'],
    ]);
    expect(spec.totalBytes).toBe(8650752);
    expect(spec.quantizable).toBe(true);
    expect(spec.storageClass).toBe('MXFP8TensorStorage');
    expect(spec.quantizerClass).toBe('MXFP8Quantizer');
    const small = tp.tensorSpecBuffers({ shape: [96, 160], dtype: 'bf16', recipe: 'mxfp8' });
    expect(small.buffers.map((b) => b.shape)).toEqual([[96, 160], [128, 8], [96, 160], [4, 256]]);
    expect(() => tp.tensorSpecBuffers({ shape: [1000, 4096], dtype: 'bf16', recipe: 'mxfp8' })).toThrowError(
      'mxfp8 cannot quantize shape [1000, 4096]: needs M % 32 == 0 (M = product of all dims but the last), got M = 1000',
    );
  });

  it('§2.3 NVFP4 examples, flatten order with the amaxes last', () => {
    const spec = tp.tensorSpecBuffers({ shape: [48, 80], dtype: 'bf16', recipe: 'nvfp4' });
    expect(spec.buffers.map((b) => [b.name, b.shape, b.bytes])).toEqual([
      ['_rowwise_data', [48, 40], 1920],
      ['_rowwise_scale_inv', [128, 8], 1024],
      ['_columnwise_data', [80, 24], 1920],
      ['_columnwise_scale_inv', [128, 4], 512],
      ['_amax_rowwise', [1], 4],
      ['_amax_columnwise', [1], 4],
    ]);
    const big = tp.tensorSpecBuffers({ shape: [1024, 4096], dtype: 'bf16', recipe: 'nvfp4' });
    expect(big.buffers.map((b) => b.shape)).toEqual([[1024, 2048], [1024, 256], [4096, 512], [4096, 64], [1], [1]]);
  });

  it('§2.4 FP8 block examples', () => {
    const one = tp.tensorSpecBuffers({ shape: [130, 260], dtype: 'bf16', recipe: 'fp8_block_1d' });
    expect(one.buffers.map((b) => [b.shape, b.bytes])).toEqual([[[130, 260], 33800], [[3, 132], 1584], [[260, 130], 33800], [[2, 260], 2080]]);
    expect(one.quantizable).toBe(false);
    expect(one.quantizableReason).toMatch(/needs M % 128 == 0 to be quantized by TE/);
    const two = tp.tensorSpecBuffers({ shape: [1000, 4096], dtype: 'bf16', recipe: 'fp8_block_2d' });
    expect(two.buffers.map((b) => b.shape)).toEqual([[1000, 4096], [8, 32], [4096, 1000], [32, 8]]);
  });

  it('rejects malformed formats naming the field', () => {
    expect(() => tp.tensorSpecBuffers({ shape: [4], dtype: 'bf16', recipe: 'mxfp9' as never })).toThrowError(/format.recipe = "mxfp9"/);
    expect(() => tp.tensorSpecBuffers({ shape: [4.5], dtype: 'bf16', recipe: 'none' })).toThrowError('dims[0] = 4.5: must be an integer');
    try {
      tp.tensorSpecBuffers({ shape: [32, 32], dtype: 'int32', recipe: 'mxfp8' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TensorplanError);
      expect((error as TensorplanError).message).toBe('dtype = int32: mxfp8 quantizes fp32, bf16 or fp16 tensors only');
    }
  });

  it('§6 usage updates: proto changes anything, storages follow TE', () => {
    const rowOnly = { shape: [128, 128], dtype: 'bf16', recipe: 'mxfp8', columnwise: false } as const;
    expect(tp.updateUsage(rowOnly, { columnwise: true }).columnwise).toBe(true);
    expect(() => tp.updateUsage(rowOnly, { columnwise: true }, 'storage')).toThrowError(/can only drop usages/);
    expect(tp.updateUsage({ ...rowOnly, recipe: 'nvfp4' }, { columnwise: true }, 'storage').columnwise).toBe(true);
    expect(() => tp.updateUsage({ shape: [4], dtype: 'bf16', recipe: 'none' }, { rowwise: true })).toThrowError(/plain tensor/);
  });

  it('checkBuffers accepts the flattened buffers and names the first mismatch', () => {
    const format = { shape: [96, 160], dtype: 'bf16', recipe: 'mxfp8' } as const;
    const given = tp.tensorSpecBuffers(format).buffers.map((b) => ({ name: b.name, shape: b.shape, dtype: b.dtype, bytes: b.bytes }));
    expect(() => tp.checkBuffers(format, given)).not.toThrow();
    expect(() => tp.checkBuffers(format, given.slice(0, 3))).toThrowError('buffers: missing "_columnwise_scale_inv"');
    given[1] = { ...given[1], shape: [96, 5] };
    expect(() => tp.checkBuffers(format, given)).toThrowError('buffers[1] "_rowwise_scale_inv".shape = [96, 5]: expected [128, 8]');
  });

  it('§1 split-quantize bulk layouts B and C', () => {
    const b = tp.splitQuantizeLayout([[96, 160], [128, 160]], { dtype: 'bf16', recipe: 'mxfp8' }, 'rowwise');
    expect(b.entries.map((e) => [e.member, e.role, e.offset, e.bytes])).toEqual([
      [0, 'data', 0, 15360], [1, 'data', 15360, 20480], [0, 'scale', 35840, 1024], [1, 'scale', 36864, 1024],
    ]);
    expect([b.usedBytes, b.allocationBytes]).toEqual([37888, 38144]);
    const c = tp.splitQuantizeLayout([[48, 80], [32, 48]], { dtype: 'bf16', recipe: 'nvfp4' }, 'rowwise');
    expect(c.entries.map((e) => e.offset)).toEqual([0, 2048, 2816, 3840, 4352, 4368]);
    expect([c.usedBytes, c.allocationBytes, c.contiguousDataAndScale]).toEqual([4372, 4628, false]);
  });

  it('§3 grouped layouts: MXFP8 varying first dim and NVFP4 uniform', () => {
    const mx = tp.groupedLayout([[128, 512], [256, 512], [384, 512]], { dtype: 'bf16', recipe: 'mxfp8' });
    expect(mx.kind).toBe('varying_first');
    expect(mx.logicalShape).toEqual([768, 512]);
    expect(mx.tensorOffsets).toEqual([0, 65536, 196608, 393216]);
    const scale = mx.buffers.find((b) => b.name === 'scale_inv')!;
    expect(scale.memberOffsets).toEqual([0, 2048, 6144, 12288]);
    expect(scale.cppElements).toBe(12288);
    const nv = tp.groupedLayout([[256, 1024], [256, 1024], [256, 1024], [256, 1024]], { dtype: 'bf16', recipe: 'nvfp4' });
    expect(nv.kind).toBe('uniform');
    expect(nv.hasTensorOffsets).toBe(false);
    expect(nv.buffers.map((b) => [b.name, b.bytes])).toEqual([
      ['rowwise_data', 524288], ['columnwise_data', 524288], ['scale_inv', 65536], ['columnwise_scale_inv', 65536],
      ['amax', 16], ['columnwise_amax', 16],
    ]);
  });

  it('§5 FP8 current scaling vector, quantize and dequantize', () => {
    const format = { shape: [1, 8], dtype: 'fp32', recipe: 'fp8_current' } as const;
    const q = tp.quantize(format, f32Bytes([3.5, 0.296875, 0.2890625, -1.75, 0.0078125, 0, 0, 0]));
    expect(q.buffers.map((b) => b.name)).toEqual(['_data', '_transpose', '_scale_inv']);
    expect(Array.from(q.buffers[0].bytes.subarray(0, 5))).toEqual([0x7e, 0x62, 0x61, 0xf6, 0x38]);
    expect(f32Values(q.buffers[2].bytes)).toEqual([0.0078125]);
    expect(q.amax).toEqual([3.5]);
    const back = f32Values(tp.dequantize(format, q.buffers.map((b) => b.bytes)));
    expect(back[1]).toBe(0.3125);
  });

  it('§5 MXFP8 and NVFP4 vectors', () => {
    const x = new Array(32 * 160).fill(0);
    [3.0, 448, 449, 1.0, 0].forEach((v, b) => { x[b * 32] = v; });
    const mx = tp.quantize({ shape: [32, 160], dtype: 'fp32', recipe: 'mxfp8' }, f32Bytes(x));
    expect(Array.from(mx.buffers[1].bytes.subarray(0, 5))).toEqual([120, 127, 128, 119, 0]);
    const y = new Array(256).fill(0);
    [2.0, 1.0, -0.5, 0.125, 1.75, 0].forEach((v, i) => { y[i] = v; });
    y[16] = 10; y[17] = -7.5; y[18] = 2.6;
    const nv = tp.quantize({ shape: [16, 16], dtype: 'fp32', recipe: 'nvfp4', columnwise: false }, f32Bytes(y));
    expect(nv.buffers.map((b) => b.name)).toEqual(['_rowwise_data', '_rowwise_scale_inv', '_amax_rowwise']);
    expect(Array.from(nv.buffers[0].bytes.subarray(0, 3))).toEqual([0x57, 0x1b, 0x07]);
    expect(Array.from(nv.buffers[0].bytes.subarray(8, 10))).toEqual([0xe7, 0x03]);
    expect(nv.buffers[1].bytes[0]).toBe(0x6b);
    expect(nv.buffers[1].bytes[4]).toBe(0x7e);
  });

  it('flatten / unflatten: named inner tensors, every buffer checked, then dequantize', () => {
    const format = { shape: [32, 64], dtype: 'fp32', recipe: 'nvfp4', options: { gemmSwizzledScales: true } } as const;
    const x = Array.from({ length: 32 * 64 }, (_, i) => Math.sin(i) * 3);
    const q = tp.quantize(format, f32Bytes(x));
    const inner = tp.flatten(format, q);
    expect(Object.keys(inner)).toEqual(['_rowwise_data', '_rowwise_scale_inv', '_columnwise_data', '_columnwise_scale_inv', '_amax_rowwise', '_amax_columnwise']);
    expect(inner._rowwise_scale_inv.shape).toEqual([128, 4]);
    const rebuilt = tp.unflatten(format, inner);
    expect(tp.dequantize(format, rebuilt)).toEqual(tp.dequantize(format, q.buffers.map((b) => b.bytes)));
    const { _amax_columnwise: _dropped, ...missing } = inner;
    expect(() => tp.unflatten(format, missing)).toThrowError('buffers: missing "_amax_columnwise"');
    const truncated = { ...inner, _rowwise_data: { ...inner._rowwise_data, data: inner._rowwise_data.data.subarray(1) } };
    expect(() => tp.unflatten(format, truncated)).toThrowError('buffers[0] "_rowwise_data".bytes = 1023: expected 1024');
  });

  it('§4.7 swizzle examples and inverse', () => {
    const compact = Uint8Array.from({ length: 128 * 8 }, (_, i) => (i % 251) + 1);
    const swizzled = tp.swizzleScales(compact, 128, 8);
    expect(swizzled[22]).toBe(compact[33 * 8 + 2]);
    expect(swizzled[511]).toBe(compact[127 * 8 + 3]);
    expect(swizzled[4]).toBe(compact[32 * 8]);
    expect(tp.swizzleScales(swizzled, 128, 8, { inverse: true })).toEqual(compact);
  });

  it('§4.4 delayed scaling update', () => {
    const r = tp.delayedScalingUpdate([1, 5, 2, 3], 4, [1]);
    expect(r.amaxHistory).toEqual([0, 2, 3, 1]);
    expect(r.amax).toEqual([5]);
    expect(r.scale[0]).toBeCloseTo(89.6, 4);
    expect(tp.delayedScalingUpdate([4, 8, 0], 3, [1], { algo: 'most_recent', margin: 1 }).scale).toEqual([56]);
  });

  it('tensor spec JSON round-trips for every recipe and carries TE metadata', () => {
    for (const recipe of RECIPES) {
      const format = { shape: [2, 64, 128], dtype: 'bf16', recipe, columnwise: recipe !== 'none' } as const;
      const json = tp.tensorSpecToJson(format, { requiresGrad: true });
      const text = JSON.stringify(json);
      const back = tp.tensorSpecFromJson(JSON.parse(text));
      expect(tp.tensorSpecBuffers(back)).toEqual(tp.tensorSpecBuffers(format));
      expect(tp.tensorSpecToJson(back, { requiresGrad: true })).toEqual(json);
    }
    const mx = tp.tensorSpecToJson({ shape: [64, 64], dtype: 'bf16', recipe: 'mxfp8', options: { gemmSwizzledScales: true } }, { internal: true });
    expect(mx.metadata).toEqual({
      cls: 'MXFP8TensorStorage', is_tensor: false, requires_grad: false,
      nontensor_kwargs: { quantizer: 'MXFP8Quantizer', fake_dtype: 'bf16', fp8_dtype: 'fp8_e4m3', with_gemm_swizzled_scales: true },
    });
    expect(tp.tensorSpecToJson({ shape: [3], dtype: 'fp32', recipe: 'none' }).metadata)
      .toEqual({ is_tensor: true, is_quantized: false, dtype: 'fp32', requires_grad: false });
    const good = tp.tensorSpecToJson({ shape: [32, 32], dtype: 'bf16', recipe: 'nvfp4' });
    expect(() => tp.tensorSpecFromJson({ ...good, version: 2 })).toThrowError('version = 2: expected 1');
    expect(() => tp.tensorSpecFromJson({ ...good, rowwise: 'yes' })).toThrowError('rowwise = "yes": expected a boolean');
    expect(() => tp.tensorSpecFromJson({ ...good, options: { turbo: true } })).toThrowError('options.turbo: unknown option');
    expect(() => tp.tensorSpecFromJson({ ...good, shape: [1000, 32] })).toThrowError(/nvfp4 cannot quantize shape \[1000, 32\]/);
  });

  it('property: buffers sum to the total and data holds M*K elements', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }), fc.constantFrom(...RECIPES.slice(1)),
      fc.boolean(), fc.boolean(), (mb, kb, recipe, rowwise, columnwise) => {
        const spec = tp.tensorSpecBuffers({ shape: [mb * 32, kb * 32], dtype: 'bf16', recipe, rowwise, columnwise });
        expect(spec.buffers.reduce((n, b) => n + b.bytes, 0)).toBe(spec.totalBytes);
        for (const b of spec.buffers.filter((x) => x.role === 'data')) {
          expect(b.bytes * 8).toBe(mb * 32 * kb * 32 * (b.element === 'fp4_e2m1' ? 4 : 8));
        }
      }), { numRuns: 60 });
  });
});

describe.runIf(BOTH_BACKENDS)('formats parity', () => {
  it('quantize gives identical bytes on WASM and native', () => {
    const wasm = session('wasm');
    const native = session('native');
    fc.assert(fc.property(
      fc.constantFrom(...RECIPES.slice(1)), fc.array(fc.float({ noNaN: true, min: -1000, max: 1000 }), { minLength: 64 * 64, maxLength: 64 * 64 }),
      (recipe, values) => {
        const format = { shape: [64, 64], dtype: 'fp32', recipe } as const;
        const input = f32Bytes(values);
        expect(native.quantize(format, input)).toEqual(wasm.quantize(format, input));
      }), { numRuns: 20 });
    let wasmError = '';
    let nativeError = '';
    try { wasm.tensorSpecBuffers({ shape: [1000, 64], dtype: 'bf16', recipe: 'nvfp4' }); } catch (e) { wasmError = (e as Error).message; }
    try { native.tensorSpecBuffers({ shape: [1000, 64], dtype: 'bf16', recipe: 'nvfp4' }); } catch (e) { nativeError = (e as Error).message; }
    expect(nativeError).toBe(wasmError);
    expect(wasmError).toMatch(/nvfp4 cannot quantize/);
  });
});
