import { callBulkLayout } from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { type DType, DTYPES, dtypeCode } from './dtype.js';
import { TensorplanError, shown } from '../errors.js';

/**
 * One tensor of a bulk allocation.
 *
 * @group Formats
 */
export interface BulkTensor {
  /** Optional label, echoed in the result. */
  name?: string;
  /** Dimensions; `[]` is a scalar. */
  shape: readonly number[];
  dtype: DType;
  /**
   * Byte alignment, any integer >= 1 (TE rounds offsets up to a multiple, not
   * only to powers of two); defaults to the element size (as TE does).
   */
  alignment?: number;
}

/**
 * Where one tensor lands inside the bulk allocation.
 *
 * @group Formats
 */
export interface BulkEntry {
  name?: string;
  /** Byte offset from the aligned base pointer. */
  offset: number;
  bytes: number;
  alignment: number;
  /** True for zero-byte tensors: TE gives them their own empty allocation. */
  separateAllocation: boolean;
}

/**
 * The layout of TransformerEngine's `bulk_allocate` (FORMATS.md §1): tensors
 * back to back in list order, each offset rounded up to its alignment.
 *
 * @group Formats
 */
export interface BulkLayout {
  entries: BulkEntry[];
  /** Bytes from the base to the end of the last tensor. */
  usedBytes: number;
  /** The largest alignment; the base pointer is rounded up to it. */
  baseAlignment: number;
  /** What is allocated: usedBytes plus a full baseAlignment of slack when baseAlignment > 1. */
  allocationBytes: number;
}

/** Encodes the tensors as the flat arrays of `tp_bulk_layout` and decodes its result. */
export function bulkLayout(core: CoreBinding, tensors: readonly BulkTensor[]): BulkLayout {
  if (!Array.isArray(tensors)) {
    throw new TensorplanError('INVALID_ARGUMENT', `tensors must be an array, got ${typeof tensors}`);
  }
  const count = tensors.length;
  const shapeOffsets = new Int32Array(count + 1);
  const dims: number[] = [];
  const dtypes = new Int32Array(count);
  const alignments = new Float64Array(count);
  Array.from(tensors).forEach((tensor, i) => {
    if (tensor === null || typeof tensor !== 'object' || !Array.isArray(tensor.shape)) {
      throw new TensorplanError('INVALID_ARGUMENT', `tensors[${i}].shape must be an array of dimensions`);
    }
    const code = dtypeCode(tensor.dtype);
    if (code < 0) {
      throw new TensorplanError('INVALID_ARGUMENT', `tensors[${i}].dtype = ${shown(tensor.dtype)}: expected one of ${DTYPES.join(', ')}`);
    }
    dtypes[i] = code;
    for (const dim of tensor.shape) dims.push(typeof dim === 'number' ? dim : Number.NaN);
    shapeOffsets[i + 1] = dims.length;
    if (tensor.alignment !== undefined) {
      if (typeof tensor.alignment !== 'number' || tensor.alignment <= 0) {
        throw new TensorplanError('INVALID_ARGUMENT', `tensors[${i}].alignment = ${shown(tensor.alignment)}: must be an integer >= 1`);
      }
      alignments[i] = tensor.alignment;
    }
  });
  const { offsets, bytes, alignments: aligns, separate, totals } = callBulkLayout(core, {
    shapeOffsets, dims: Float64Array.from(dims), dimsCount: dims.length, dtypes, alignments, count,
  });
  const entries: BulkEntry[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const entry: BulkEntry = { offset: offsets[i], bytes: bytes[i], alignment: aligns[i], separateAllocation: separate[i] === 1 };
    // Only named inputs get a name key, so results compare equal to plain objects.
    if (tensors[i]?.name !== undefined) entry.name = tensors[i].name;
    entries[i] = entry;
  }
  return {
    entries,
    usedBytes: totals[0],
    baseAlignment: totals[1],
    allocationBytes: totals[2],
  };
}
