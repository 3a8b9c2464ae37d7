// FORMATS.md §1 (TE bulk_allocate) through the public API, on every backend.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DTYPES, TensorplanError } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';

describe.each(BACKENDS)('bulkLayout on %s', (backend) => {
  const tp = session(backend);

  it('example A: default alignments are the element sizes', () => {
    const layout = tp.bulkLayout([
      { shape: [3], dtype: 'uint8' },
      { shape: [2], dtype: 'fp32' },
    ]);
    expect(layout.entries.map((e) => e.offset)).toEqual([0, 4]);
    expect(layout.usedBytes).toBe(12);
    expect(layout.baseAlignment).toBe(4);
    expect(layout.allocationBytes).toBe(16);
  });

  it('example B: MXFP8 rowwise split-quantize bulk of [96,160] and [128,160]', () => {
    const layout = tp.bulkLayout([
      { shape: [96, 160], dtype: 'uint8', alignment: 256 },
      { shape: [128, 160], dtype: 'uint8', alignment: 256 },
      { shape: [128, 8], dtype: 'uint8', alignment: 16 },
      { shape: [128, 8], dtype: 'uint8', alignment: 16 },
    ]);
    expect(layout.entries.map((e) => [e.bytes, e.offset])).toEqual([
      [15360, 0], [20480, 15360], [1024, 35840], [1024, 36864],
    ]);
    expect(layout.usedBytes).toBe(37888);
    expect(layout.allocationBytes).toBe(38144);
  });

  it('example C: NVFP4 rowwise split-quantize bulk of [48,80] and [32,48]', () => {
    const layout = tp.bulkLayout([
      { shape: [48, 80], dtype: 'fp4_e2m1', alignment: 256 },
      { shape: [32, 48], dtype: 'fp4_e2m1', alignment: 256 },
      { shape: [128, 8], dtype: 'fp8_e4m3', alignment: 16 },
      { shape: [128, 4], dtype: 'fp8_e4m3', alignment: 16 },
      { shape: [1], dtype: 'fp32', alignment: 16 },
      { shape: [1], dtype: 'fp32', alignment: 16 },
    ]);
    expect(layout.entries.map((e) => e.offset)).toEqual([0, 2048, 2816, 3840, 4352, 4368]);
    expect(layout.entries.map((e) => e.bytes)).toEqual([1920, 768, 1024, 512, 4, 4]);
    expect(layout.usedBytes).toBe(4372);
    expect(layout.allocationBytes).toBe(4628);
  });

  it('example D: a zero-size entry still advances the cursor and is a separate allocation', () => {
    const layout = tp.bulkLayout([
      { shape: [5], dtype: 'uint8', alignment: 1 },
      { shape: [0], dtype: 'uint8', alignment: 256 },
      { shape: [6], dtype: 'uint8', alignment: 1 },
    ]);
    expect(layout.entries.map((e) => e.offset)).toEqual([0, 256, 256]);
    expect(layout.entries.map((e) => e.separateAllocation)).toEqual([false, true, false]);
    expect(layout.allocationBytes).toBe(518);
  });

  // TE d0067d0da6, pytorch/csrc/extensions/allocate.cpp bulk_allocate
  // rounds each offset up with pytorch/csrc/common.cpp roundup (ceil(v / a) * a): any
  // alignment >= 1 works, not only powers of two.
  it('TE bulk_allocate: alignments that are not powers of two round up to a multiple', () => {
    const layout = tp.bulkLayout([
      { shape: [5], dtype: 'uint8' },
      { shape: [4], dtype: 'uint8', alignment: 12 },
      { shape: [7], dtype: 'uint8', alignment: 48 },
    ]);
    expect(layout.entries.map((e) => e.offset)).toEqual([0, 12, 48]);
    expect(layout.entries.map((e) => e.alignment)).toEqual([1, 12, 48]);
    expect(layout.usedBytes).toBe(55);
    expect(layout.baseAlignment).toBe(48);
    expect(layout.allocationBytes).toBe(55 + 48);
  });

  it('an empty list allocates nothing', () => {
    expect(tp.bulkLayout([])).toEqual({ entries: [], usedBytes: 0, baseAlignment: 1, allocationBytes: 0 });
  });

  it('keeps names and leaves the input untouched', () => {
    const tensors = [{ name: 'w', shape: [4, 4], dtype: 'bf16' as const }];
    const copy = structuredClone(tensors);
    expect(tp.bulkLayout(tensors).entries[0].name).toBe('w');
    expect(tensors).toEqual(copy);
  });

  it.each([
    [[{ shape: [2.5], dtype: 'fp32' }], 'INVALID_ARGUMENT', 'tensors[0].shape[0] = 2.5: must be an integer'],
    [[{ shape: [4], dtype: 'fp32' }, { shape: [-1], dtype: 'fp32' }], 'INVALID_ARGUMENT', 'tensors[1].shape[0] = -1: must be >= 0'],
    [[{ shape: [4], dtype: 'fp32', alignment: 0 }], 'INVALID_ARGUMENT', 'tensors[0].alignment = 0: must be an integer >= 1'],
    [[{ shape: [4], dtype: 'fp32', alignment: 2.5 }], 'INVALID_ARGUMENT', 'tensors[0].alignment = 2.5: must be an integer'],
    [[{ shape: [4], dtype: 'float' }], 'INVALID_ARGUMENT', 'tensors[0].dtype = "float": expected one of'],
    [[{ shape: [2 ** 40, 2 ** 20], dtype: 'fp32' }], 'OUT_OF_RANGE', 'exceeds 2^53'],
    [[{ shape: [2 ** 54], dtype: 'uint8' }], 'OUT_OF_RANGE', 'tensors[0].shape[0] = 18014398509481984: exceeds 2^53'],
  ])('rejects %j with %s naming the field', (tensors, code, message) => {
    let caught: unknown;
    try {
      tp.bulkLayout(tensors as never);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TensorplanError);
    expect((caught as TensorplanError).code).toBe(code);
    expect((caught as TensorplanError).message).toContain(message);
  });

  it('stays usable after an error', () => {
    expect(() => tp.bulkLayout([{ shape: [Number.NaN], dtype: 'fp32' }])).toThrow(TensorplanError);
    expect(tp.bulkLayout([{ shape: [1], dtype: 'fp32' }]).usedBytes).toBe(4);
  });

  it('every dtype has the element size of its name', () => {
    const bits: Record<string, number> = {
      fp32: 32, fp16: 16, bf16: 16, fp8_e4m3: 8, fp8_e5m2: 8, fp4_e2m1: 4, e8m0: 8,
      int8: 8, uint8: 8, int32: 32, int64: 64, bool: 8, fp64: 64, int16: 16,
    };
    for (const dtype of DTYPES) {
      const layout = tp.bulkLayout([{ shape: [8], dtype }]);
      expect(layout.entries[0].bytes, dtype).toBe((8 * bits[dtype]) / 8);
      expect(layout.entries[0].alignment, dtype).toBe(Math.ceil(bits[dtype] / 8));
    }
  });

  it('property: entries are aligned, in order, disjoint, with only alignment padding between them', () => {
    const tensor = fc.record({
      shape: fc.array(fc.integer({ min: 0, max: 64 }), { maxLength: 3 }),
      dtype: fc.constantFrom(...DTYPES),
      // Powers of two and any other integer >= 1 (TE's roundup takes both).
      alignment: fc.option(fc.oneof(fc.integer({ min: 0, max: 9 }).map((k) => 2 ** k), fc.integer({ min: 1, max: 300 })),
        { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(tensor, { maxLength: 30 }), (tensors) => {
        const layout = tp.bulkLayout(tensors);
        let end = 0;
        let maxAlignment = 1;
        layout.entries.forEach((entry) => {
          expect(entry.offset % entry.alignment).toBe(0);
          expect(entry.offset).toBeGreaterThanOrEqual(end);
          expect(entry.offset - end).toBeLessThan(entry.alignment);
          expect(entry.separateAllocation).toBe(entry.bytes === 0);
          end = entry.offset + entry.bytes;
          maxAlignment = Math.max(maxAlignment, entry.alignment);
        });
        expect(layout.usedBytes).toBe(end);
        expect(layout.baseAlignment).toBe(maxAlignment);
        expect(layout.allocationBytes).toBe(end + (maxAlignment > 1 && tensors.length > 0 ? maxAlignment : 0));
      }),
      { numRuns: 300 },
    );
  });
});
