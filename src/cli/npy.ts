// A small reader and writer for NumPy's .npy format (format versions 1.0, 2.0
// and 3.0), enough for `tensorplan execute`: one C-ordered, little-endian
// array of a plain dtype. The format is specified at
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html:
// the magic "\x93NUMPY", a major and a minor version byte, the header length
// (uint16 little-endian for 1.0, uint32 for 2.0 and 3.0), then a Python dict
// literal { 'descr': ..., 'fortran_order': ..., 'shape': (...) } padded with
// spaces and ending in '\n', then the raw data.
//
// Written here rather than taken from npm: the maintained package (npyjs)
// pulls in an HTTP client, and neither it nor NumPy knows bf16 / FP8, which
// tensorplan maps to raw unsigned integers (see NPY_DESCR).

/** What a .npy header says about its array. */
export interface NpyArray {
  /** The dtype string as NumPy wrote it, e.g. `<f4`, `|u1`, `<V2`. */
  descr: string;
  /** Bytes per element (from the descr). */
  itemSize: number;
  shape: number[];
  /** The array's bytes, little-endian, C order. */
  data: Uint8Array;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];  // \x93NUMPY

/** True when the bytes start with the .npy magic. */
export function isNpy(bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && MAGIC.every((b, i) => bytes[i] === b);
}

/**
 * The .npy descr tensorplan writes for each graph dtype. NumPy has no bf16,
 * FP8, FP4 or E8M0 dtype: those are written as unsigned integers of the same
 * size holding the bit patterns (view them with ml_dtypes, e.g.
 * `np.load(f).view(ml_dtypes.bfloat16)`); FP4 is written as its packed bytes.
 */
export const NPY_DESCR: Readonly<Record<string, string>> = {
  fp32: '<f4', fp16: '<f2', fp64: '<f8', bf16: '<u2',
  fp8_e4m3: '|u1', fp8_e5m2: '|u1', fp4_e2m1: '|u1', e8m0: '|u1',
  int8: '|i1', uint8: '|u1', int16: '<i2', int32: '<i4', int64: '<i8', bool: '|b1',
};

/**
 * Descrs accepted for a graph dtype when reading, besides NPY_DESCR's: the
 * void dtypes ml_dtypes arrays are saved with (`<V2` for bfloat16, `|V1` for
 * float8_*), and signed integers of the right size for the bit-pattern dtypes.
 */
const EXTRA_DESCRS: Readonly<Record<string, readonly string[]>> = {
  bf16: ['<V2', '<i2'], fp16: ['<V2'],
  fp8_e4m3: ['|V1', '|i1'], fp8_e5m2: ['|V1', '|i1'], fp4_e2m1: ['|V1', '|i1'], e8m0: ['|V1', '|i1'],
  uint8: ['|V1'], int8: ['|V1'], bool: ['|u1'],
};

/** '=' (native: little-endian here) and, for one-byte items, '<' become NumPy's canonical prefixes. */
function canonicalDescr(descr: string): string {
  const kind = descr.slice(1);
  const order = descr[0] === '=' ? '<' : descr[0];
  const size = Number(kind.slice(1));
  if (size === 1) return `|${kind}`;
  if (order === '|' && kind[0] === 'V') return `<${kind}`;
  return order + kind;
}

/** Descrs a graph tensor of `dtype` may be read from. */
export function acceptedDescrs(dtype: string): string[] {
  return [NPY_DESCR[dtype], ...(EXTRA_DESCRS[dtype] ?? [])].filter((d): d is string => d !== undefined);
}

/** Parses a .npy file; throws an Error naming what is wrong (the caller adds the file name). */
export function parseNpy(bytes: Uint8Array): NpyArray {
  if (!isNpy(bytes)) throw new Error('not a .npy file (no \\x93NUMPY magic)');
  if (bytes.length < 10) throw new Error('truncated .npy header');
  const major = bytes[6];
  if (major < 1 || major > 3) throw new Error(`.npy format version ${major}.${bytes[7]} is not supported (1.0, 2.0 and 3.0 are)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lengthBytes = major === 1 ? 2 : 4;
  if (bytes.length < 8 + lengthBytes) throw new Error('truncated .npy header');
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = 8 + lengthBytes;
  if (bytes.length < start + headerLength) throw new Error(`truncated .npy header (${headerLength} bytes announced)`);
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, start + headerLength));

  const descrMatch = /['"]descr['"]\s*:\s*['"]([^'"]+)['"]/.exec(header);
  if (!descrMatch) {
    throw new Error(/['"]descr['"]\s*:\s*\[/.test(header) ? 'structured dtypes (a descr list) are not supported' : `no 'descr' in the header ${JSON.stringify(header.trim())}`);
  }
  const fortranMatch = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(header);
  if (!fortranMatch) throw new Error(`no 'fortran_order' in the header ${JSON.stringify(header.trim())}`);
  const shapeMatch = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(header);
  if (!shapeMatch) throw new Error(`no 'shape' in the header ${JSON.stringify(header.trim())}`);

  const raw = descrMatch[1];
  if (!/^[<>|=][a-zA-Z]\d+$/.test(raw)) throw new Error(`descr ${JSON.stringify(raw)} is not supported (expected a plain dtype such as '<f4')`);
  if (raw[0] === '>' && Number(raw.slice(2)) > 1) throw new Error(`descr ${JSON.stringify(raw)} is big-endian; save a little-endian array (arr.astype('<${raw.slice(1)}'))`);
  const descr = canonicalDescr(raw);
  const shape = shapeMatch[1].split(',').map((s) => s.trim()).filter((s) => s.length > 0).map((s) => {
    if (!/^\d+L?$/.test(s)) throw new Error(`shape entry ${JSON.stringify(s)} is not a non-negative integer`);
    return Number.parseInt(s, 10);
  });
  const itemSize = Number(descr.slice(2));
  const count = shape.reduce((a, b) => a * b, 1);
  if (fortranMatch[1] === 'True' && shape.filter((d) => d > 1).length > 1) {
    throw new Error('the array is in Fortran order; save a C-ordered array (np.ascontiguousarray)');
  }
  const data = bytes.subarray(start + headerLength);
  if (data.length !== count * itemSize) {
    throw new Error(`the header says ${count} elements of ${itemSize} bytes (${count * itemSize} bytes) but the file holds ${data.length} data bytes`);
  }
  return { descr, itemSize, shape, data };
}

/** A .npy file (format 1.0, or 2.0 for very long headers) holding `data` with this descr and shape. */
export function encodeNpy(descr: string, shape: readonly number[], data: Uint8Array): Uint8Array {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  const dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const encode = (lengthBytes: number) => {
    // Magic (6) + version (2) + length field + header, padded with spaces to a multiple of 64, ending in '\n'.
    const unpadded = 8 + lengthBytes + dict.length + 1;
    return dict + ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  };
  let major = 1;
  let header = encode(2);
  if (header.length > 0xffff) {
    major = 2;
    header = encode(4);
  }
  const lengthBytes = major === 1 ? 2 : 4;
  const out = new Uint8Array(8 + lengthBytes + header.length + data.length);
  out.set(MAGIC, 0);
  out[6] = major;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (major === 1) view.setUint16(8, header.length, true);
  else view.setUint32(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[8 + lengthBytes + i] = header.charCodeAt(i);
  out.set(data, 8 + lengthBytes + header.length);
  return out;
}
