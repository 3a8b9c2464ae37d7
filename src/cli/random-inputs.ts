import { mersenne, unsafeUniformIntDistribution } from 'pure-rand';
import { CliError } from './exit-codes.js';

/** Uniform numbers in [0, 1) from a seeded Mersenne Twister generator (pure-rand). */
function uniformFrom(seed: number): () => number {
  const generator = mersenne(seed);
  return () => unsafeUniformIntDistribution(0, 0xffffffff, generator) / 4294967296;
}

/** FNV-1a (32-bit) of a string's UTF-16 code units. */
function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** `--random-inputs SEED`: an integer in [0, 2^32). */
export function parseSeed(text: string): number {
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value > 0xffffffff) {
    throw new CliError(`--random-inputs ${JSON.stringify(text)}: expected a seed, an integer from 0 to 4294967295`);
  }
  return value;
}

/** The fp16 bits of k / 2048 for an integer |k| <= 2048 (exactly representable: a normal fp16). */
function fp16OfSixteenths(k: number): number {
  if (k === 0) return 0;
  const sign = k < 0 ? 0x8000 : 0;
  const m = Math.abs(k);
  const e = 31 - Math.clz32(m);  // m = 1.f * 2^e, value = 1.f * 2^(e - 11)
  const fraction = e <= 10 ? (m << (10 - e)) & 0x3ff : (m >> (e - 10)) & 0x3ff;
  return sign | ((e - 11 + 15) << 10) | fraction;
}

/**
 * Deterministic bytes for one tensor: `count` elements of `dtype` (or
 * `bytes` raw bytes when the tensor has no dtype). Float tensors (fp32, fp64,
 * bf16, fp16) get finite values in [-1, 1]: fp32/fp64 uniform, bf16 the
 * fp32 value truncated to its top 16 bits (which keeps it in range), fp16
 * multiples of 1/2048 (exact in fp16). bool gets 0 or 1; every other dtype
 * (integers, FP8, FP4, E8M0) random bytes. The stream depends on the seed
 * and the tensor's name only, so one tensor's values do not change when
 * another is given from a file.
 */
export function randomTensorBytes(seed: number, name: string, dtype: string | undefined, count: number, bytes: number): Uint8Array {
  const r = uniformFrom((fnv1a32(name) ^ Math.imul(seed >>> 0, 0x9e3779b1)) >>> 0);
  switch (dtype) {
    case 'fp32':
      return new Uint8Array(Float32Array.from({ length: count }, () => r() * 2 - 1).buffer);
    case 'fp64':
      return new Uint8Array(Float64Array.from({ length: count }, () => r() * 2 - 1).buffer);
    case 'bf16': {
      const f = new Float32Array(1);
      const u = new Uint32Array(f.buffer);
      return new Uint8Array(Uint16Array.from({ length: count }, () => {
        f[0] = r() * 2 - 1;
        return u[0] >>> 16;
      }).buffer);
    }
    case 'fp16':
      return new Uint8Array(Uint16Array.from({ length: count }, () => fp16OfSixteenths(Math.floor(r() * 4097) - 2048)).buffer);
    case 'bool':
      return Uint8Array.from({ length: bytes }, () => (r() < 0.5 ? 0 : 1));
    default:
      return Uint8Array.from({ length: bytes }, () => Math.floor(r() * 256));
  }
}
