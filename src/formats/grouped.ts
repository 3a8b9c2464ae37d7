// Bulk layouts of several tensors at once: TE split_quantize and grouped tensors.
import { GROUPED_KIND_NAMES, callGroupedLayout, callSplitQuantizeLayout } from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { shown } from '../errors.js';
import { type DType, DTYPES } from './dtype.js';
import { type TensorFormat, ROLES, dims, formatCodes, invalid, names, shapes, text } from './tensor-format.js';

/**
 * One entry of a split-quantize bulk layout (FORMATS.md §1).
 *
 * @group Formats
 */
export interface SplitQuantizeEntry {
  member: number;
  name: string;
  shape: number[];
  offset: number;
  bytes: number;
  alignment: number;
  role: 'data' | 'scale' | 'amax';
}

/**
 * TE split_quantize's bulk allocation for one usage.
 *
 * @group Formats
 */
export interface SplitQuantizeLayout {
  entries: SplitQuantizeEntry[];
  usedBytes: number;
  baseAlignment: number;
  allocationBytes: number;
  /** NVFP4: data and scales sit back to back without gaps. */
  contiguousDataAndScale: boolean;
}

/**
 * One 1-D buffer of a grouped tensor (FORMATS.md §3).
 *
 * @group Formats
 */
export interface GroupedBuffer {
  /** GroupedTensorStorage attribute, e.g. `columnwise_scale_inv`. */
  name: string;
  dtype: DType;
  element: DType;
  /** Length in element-format units, per-member sizing (Python path). */
  elements: number;
  bytes: number;
  /**
   * Length and bytes as TE's C++ create_grouped_tensor sizes them (total shape);
   * 0 where the C++ path refuses the group (`cppAvailable` false) or does not
   * allocate this buffer.
   */
  cppElements: number;
  cppBytes: number;
  /** Start of each member in elements (N+1 entries); empty for shape descriptors. */
  memberOffsets: number[];
}

/**
 * A grouped tensor layout.
 *
 * @group Formats
 */
export interface GroupedLayout {
  kind: 'uniform' | 'varying_first' | 'varying_last' | 'varying_both';
  logicalShape: [number, number];
  /** Element offsets of the members (N+1); TE stores them only when not uniform. */
  tensorOffsets: number[];
  hasTensorOffsets: boolean;
  buffers: GroupedBuffer[];
  totalBytes: number;
  /** Sum of `cppBytes`; 0 where `cppAvailable` is false. */
  cppTotalBytes: number;
  /**
   * False where TE's C++ create_grouped_tensor refuses the group (FP8 current
   * scaling or NVFP4 with both dims varying, a logical shape its get_scale_shape
   * rejects); `cppUnavailableReason` names the TE check.
   */
  cppAvailable: boolean;
  cppUnavailableReason: string;
}

const GROUPED_KINDS = GROUPED_KIND_NAMES;

/** TE split_quantize's bulk layout (FORMATS.md §1) of members for one usage. */
export function splitQuantizeLayout(core: CoreBinding, members: readonly (readonly number[])[],
  format: Omit<TensorFormat, 'shape' | 'rowwise' | 'columnwise'>, usage: 'rowwise' | 'columnwise'): SplitQuantizeLayout {
  const codes = formatCodes(format);
  if (!Array.isArray(members)) invalid('members must be an array of shapes');
  if (usage !== 'rowwise' && usage !== 'columnwise') invalid(`usage = ${shown(usage)}: expected rowwise or columnwise`);
  const offsets = new Int32Array(members.length + 1);
  const all: number[] = [];
  Array.from(members).forEach((shape, i) => {
    all.push(...dims(shape, `members[${i}]`));
    offsets[i + 1] = all.length;
  });
  const r = callSplitQuantizeLayout(core, {
    shapeOffsets: offsets, dims: Float64Array.from(all), dimsCount: all.length, count: members.length, format: codes, columnwise: usage === 'columnwise' ? 1 : 0,
  });
  const entryNames = names(r.names, r.nameOffsets);
  const entryShapes = shapes(r.shapeOffsets, r.dims);
  return {
    entries: entryNames.map((name, i) => ({
      member: r.members[i], name, shape: entryShapes[i], offset: r.offsets[i], bytes: r.bytes[i], alignment: r.alignments[i],
      role: ROLES[r.roles[i]],
    })),
    usedBytes: r.totals[0],
    baseAlignment: r.totals[1],
    allocationBytes: r.totals[2],
    contiguousDataAndScale: r.contiguous[0] === 1,
  };
}

/** The grouped tensor layout (FORMATS.md §3) of 2-D members, with both scale sizings. */
export function groupedLayout(core: CoreBinding, members: readonly (readonly number[])[],
  format: Omit<TensorFormat, 'shape'>): GroupedLayout {
  const codes = formatCodes(format);
  if (!Array.isArray(members)) invalid('members must be an array of [rows, cols]');
  const flat = new Float64Array(members.length * 2);
  Array.from(members).forEach((shape, i) => {
    if (!Array.isArray(shape) || shape.length !== 2) invalid(`members[${i}] must be [rows, cols]`);
    flat[2 * i] = typeof shape[0] === 'number' ? shape[0] : Number.NaN;
    flat[2 * i + 1] = typeof shape[1] === 'number' ? shape[1] : Number.NaN;
  });
  const r = callGroupedLayout(core, { memberDims: flat, count: members.length, format: codes });
  const bufferNames = names(r.names, r.nameOffsets);
  const memberOffsets = shapes(r.memberOffsetCsr, r.memberOffsets);
  return {
    kind: GROUPED_KINDS[r.info[0]],
    logicalShape: [r.logical[0], r.logical[1]],
    tensorOffsets: Array.from(r.tensorOffsets),
    hasTensorOffsets: r.info[1] === 1,
    buffers: bufferNames.map((name, i) => ({
      name, dtype: DTYPES[r.dtypes[i]], element: DTYPES[r.elements[i]], elements: r.elementCounts[i], bytes: r.bytes[i],
      cppElements: r.cppElementCounts[i], cppBytes: r.cppBytes[i], memberOffsets: memberOffsets[i],
    })),
    totalBytes: r.totals[0],
    cppTotalBytes: r.totals[1],
    cppAvailable: r.cppUnavailable.length === 0,
    cppUnavailableReason: text(r.cppUnavailable),
  };
}
