// torch.export's ScalarType enum (torch/_export/serde/schema.py, class ScalarType, schema 8.20 in
// torch 2.13.0) -> our dtype names and element sizes (c10/core/ScalarType.h).
import type { DType } from '../../formats/dtype.js';

/** Element type of a serialized tensor: our dtype when we have one, always its element size. */
export interface TorchElementType {
  /** ScalarType member name, for messages. */
  name: string;
  /** Our dtype name; undefined where we have none (complex, unsigned 16-64 bit): sized in bytes. */
  dtype?: DType;
  itemBytes: number;
}

/** By ScalarType value. UNKNOWN (0) and values not listed are refused by the importer. */
export const SCALAR_TYPES: Readonly<Record<number, TorchElementType>> = {
  1: { name: 'BYTE', dtype: 'uint8', itemBytes: 1 },
  2: { name: 'CHAR', dtype: 'int8', itemBytes: 1 },
  3: { name: 'SHORT', dtype: 'int16', itemBytes: 2 },
  4: { name: 'INT', dtype: 'int32', itemBytes: 4 },
  5: { name: 'LONG', dtype: 'int64', itemBytes: 8 },
  6: { name: 'HALF', dtype: 'fp16', itemBytes: 2 },
  7: { name: 'FLOAT', dtype: 'fp32', itemBytes: 4 },
  8: { name: 'DOUBLE', dtype: 'fp64', itemBytes: 8 },
  9: { name: 'COMPLEXHALF', itemBytes: 4 },
  10: { name: 'COMPLEXFLOAT', itemBytes: 8 },
  11: { name: 'COMPLEXDOUBLE', itemBytes: 16 },
  12: { name: 'BOOL', dtype: 'bool', itemBytes: 1 },
  13: { name: 'BFLOAT16', dtype: 'bf16', itemBytes: 2 },
  28: { name: 'UINT16', itemBytes: 2 },
  29: { name: 'FLOAT8E4M3FN', dtype: 'fp8_e4m3', itemBytes: 1 },
  30: { name: 'FLOAT8E5M2', dtype: 'fp8_e5m2', itemBytes: 1 },
  // The FNUZ variants have the same size as their FN counterparts; the planner only needs the size.
  31: { name: 'FLOAT8E4M3FNUZ', dtype: 'fp8_e4m3', itemBytes: 1 },
  32: { name: 'FLOAT8E5M2FNUZ', dtype: 'fp8_e5m2', itemBytes: 1 },
  33: { name: 'FLOAT8E8M0FNU', dtype: 'e8m0', itemBytes: 1 },
  34: { name: 'UINT32', itemBytes: 4 },
  35: { name: 'UINT64', itemBytes: 8 },
};
