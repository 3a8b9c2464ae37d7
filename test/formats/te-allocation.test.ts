// Format sizes follow what TransformerEngine allocates
// (TE main d0067d0da6), through the public API on every backend. Each test
// names the TE file and function it models.
import { describe, expect, it } from 'vitest';
import { BACKENDS, session } from '../support/backends';
import { errorOf } from '../support/errors';

describe.each(BACKENDS)('TE allocation rules on %s', (backend) => {
  const tp = session(backend);

  // pytorch/csrc/quantizer.cpp NVFP4Quantizer::create_tensor allocates the
  // columnwise data as the 2-D transpose [flat_last_dim, flat_first_dim / 2];
  // pytorch/tensor/nvfp4_tensor.py inner_tensor_specs keeps the rank.
  it('NVFP4 [8192, 1, 4096]: _columnwise_data is [4096, 4096], 16,777,216 B (create_tensor), not 0 B', () => {
    const spec = tp.tensorSpecBuffers({ shape: [8192, 1, 4096], dtype: 'bf16', recipe: 'nvfp4' });
    const col = spec.buffers.find((b) => b.name === '_columnwise_data')!;
    expect(col.shape).toEqual([4096, 4096]);
    expect(col.bytes).toBe(16777216);
    expect(col.altShape).toEqual([4096, 8192, 0]);
    const twoD = tp.tensorSpecBuffers({ shape: [8192, 4096], dtype: 'bf16', recipe: 'nvfp4' });
    expect(spec.totalBytes).toBe(twoD.totalBytes);
  });

  it('NVFP4 quantize takes rank-3 shapes TE quantizes, with the bytes of the 2-D view (create_tensor)', () => {
    const raw = new Uint8Array(32 * 32 * 2);
    for (let i = 0; i < raw.length; i += 2) raw[i + 1] = 0x3f;  // bf16 values near 1
    const three = tp.quantize({ shape: [32, 1, 32], dtype: 'bf16', recipe: 'nvfp4' }, raw);
    const two = tp.quantize({ shape: [32, 32], dtype: 'bf16', recipe: 'nvfp4' }, raw);
    expect(three.buffers.map((b) => [b.name, b.bytes])).toEqual(two.buffers.map((b) => [b.name, b.bytes]));
    expect(three.buffers.map((b) => Array.from(b.bytes))).toEqual(two.buffers.map((b) => Array.from(b.bytes)));
  });

  // quantizer.cpp NVFP4Quantizer::create_tensor: amax_columnwise is {flat_last_dim}
  // when row-scaled; nvfp4_tensor.py NVFP4Quantizer.is_quantizable returns False for row-scaled.
  it('row-scaled NVFP4: _amax_columnwise is {K} fp32 and the tensor is not quantizable', () => {
    const spec = tp.tensorSpecBuffers({ shape: [64, 48], dtype: 'bf16', recipe: 'nvfp4', options: { nvfp4RowScaled: true } });
    const amax = spec.buffers.find((b) => b.name === '_amax_columnwise')!;
    expect([amax.shape, amax.bytes, amax.altShape]).toEqual([[48], 192, [1]]);
    expect(spec.quantizable).toBe(false);
    expect(spec.quantizableReason).toMatch(/row-scaled.*is_quantizable/);
  });

  // quantizer.cpp MXFP8Quantizer::get_scale_shape and
  // Float8BlockQuantizer::get_scale_shape divide the element count by K.
  it.each(['mxfp8', 'fp8_block_1d', 'fp8_block_2d'] as const)('%s with K = 0 is an error naming shape and rule (get_scale_shape)', (recipe) => {
    const error = errorOf(() => tp.tensorSpecBuffers({ shape: [64, 0], dtype: 'bf16', recipe }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe(`${recipe} cannot quantize shape [64, 0]: needs K > 0 (K = last dim; TE's get_scale_shape divides the element count by K), got K = 0`);
  });

  // quantizer.cpp check_per_tensor_fp8_quantize_output (Float8Quantizer::quantize,
  // Float8CurrentScalingQuantizer::quantize_impl): columnwise-only output is NotImplementedError.
  it.each(['fp8_current', 'fp8_delayed'] as const)('%s columnwise-only on Hopper: flagged on the buffers, refused by quantize', (recipe) => {
    const format = { shape: [16, 16], dtype: 'fp32', recipe, rowwise: false, columnwise: true } as const;
    const spec = tp.tensorSpecBuffers(format);
    expect(spec.quantizeRefusal).toMatch(/columnwise-only.*\[16, 16\].*check_per_tensor_fp8_quantize_output/);
    const error = errorOf(() => tp.quantize(format, new Uint8Array(16 * 16 * 4)));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toBe(spec.quantizeRefusal);
    const blackwell = { ...format, arch: 'blackwell' } as const;
    expect(tp.tensorSpecBuffers(blackwell).quantizeRefusal).toBe('');
    expect(tp.quantize(blackwell, new Uint8Array(16 * 16 * 4)).buffers.map((b) => b.name)).toEqual(['_data', '_scale_inv']);
    expect(tp.tensorSpecBuffers({ ...format, rowwise: true }).quantizeRefusal).toBe('');
  });

  // pytorch/tensor/storage/grouped_tensor_storage.py make_grouped_tensor and
  // quantizer.cpp Float8CurrentScalingQuantizer::create_grouped_tensor: non-TN FP8 GEMMs
  // (Blackwell) keep one data buffer.
  it('grouped FP8 current scaling on Blackwell has one data buffer (make_grouped_tensor)', () => {
    const members = [[16, 16], [32, 16]];
    const blackwell = tp.groupedLayout(members, { dtype: 'bf16', recipe: 'fp8_current', arch: 'blackwell' });
    expect(blackwell.buffers.map((b) => b.name)).toEqual(['rowwise_data', 'scale_inv', 'amax', 'scale', 'first_dims', 'tensor_offsets']);
    const hopper = tp.groupedLayout(members, { dtype: 'bf16', recipe: 'fp8_current' });
    expect(hopper.buffers.map((b) => b.name)).toContain('columnwise_data');
  });

  // grouped_tensor_storage.py make_grouped_tensor: no quantizer means `data` only.
  it('unquantized groups allocate data only in the Python path; C++ NoneQuantizer follows usages', () => {
    const layout = tp.groupedLayout([[64, 32], [64, 32]], { dtype: 'bf16', recipe: 'none' });
    const col = layout.buffers.find((b) => b.name === 'columnwise_data')!;
    expect([col.bytes, col.cppBytes]).toEqual([0, 8192]);
    expect(layout.totalBytes).toBe(8192);
    expect(layout.cppTotalBytes).toBe(16384);
  });

  // quantizer.cpp Float8CurrentScalingQuantizer::create_grouped_tensor NVTE_CHECKs
  // against both dims varying; NVFP4Quantizer::create_grouped_tensor's get_scale_shape of [1, total] fails.
  it.each(['fp8_current', 'nvfp4'] as const)('%s with both dims varying: C++ sizing unavailable (create_grouped_tensor)', (recipe) => {
    const layout = tp.groupedLayout([[128, 128], [256, 256]], { dtype: 'bf16', recipe });
    expect(layout.kind).toBe('varying_both');
    expect(layout.cppAvailable).toBe(false);
    expect(layout.cppUnavailableReason).toMatch(recipe === 'nvfp4' ? /NVFP4Quantizer::get_scale_shape/ : /Float8CurrentScalingQuantizer::create_grouped_tensor/);
    expect(layout.cppTotalBytes).toBe(0);
    expect(layout.totalBytes).toBeGreaterThan(0);
    expect(tp.groupedLayout([[128, 128], [256, 256]], { dtype: 'bf16', recipe: 'mxfp8' }).cppAvailable).toBe(true);
  });

  // grouped_tensor_storage.py make_grouped_tensor checks no per-member divisibility.
  it('grouped MXFP8 accepts a [33, 32] member as make_grouped_tensor does', () => {
    const layout = tp.groupedLayout([[32, 32], [33, 32]], { dtype: 'bf16', recipe: 'mxfp8' });
    expect(layout.buffers.find((b) => b.name === 'rowwise_data')!.bytes).toBe(65 * 32);
    expect(layout.cppAvailable).toBe(false);
    expect(layout.cppUnavailableReason).toMatch(/MXFP8Quantizer::get_scale_shape.*\[65, 32\]/);
  });
});
