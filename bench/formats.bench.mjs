// Reference quantize / dequantize (FORMATS.md §4) of a 4096 x 4096 bf16
// tensor, rowwise + columnwise usage: MB/s of input (10^6 B of bf16 input per
// second) per recipe on each backend, the whole call including marshalling.
import { fmt, printTable, seededRandom, timeMedian } from './harness.mjs';

const ROWS = 4096;
const COLS = 4096;
const CASES = [
  ['fp8_delayed', {}], ['fp8_current', {}], ['mxfp8', {}], ['nvfp4', {}],
  ['nvfp4', { nvfp4Hadamard: true }], ['fp8_block_1d', { pow2Scales: true }], ['fp8_block_2d', { pow2Scales: true }],
];

function bf16Input(count, seed) {
  const random = seededRandom(seed);
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  const out = new Uint16Array(count);
  for (let i = 0; i < count; i++) {
    // Sum of uniforms: roughly normal values; truncate to bf16 bits.
    f32[0] = (random() + random() + random() - 1.5) * 4;
    out[i] = u32[0] >>> 16;
  }
  return new Uint8Array(out.buffer);
}

export async function run({ sessions }) {
  const input = bf16Input(ROWS * COLS, 7);
  const megabytes = input.length / 1e6;
  const rows = [];
  for (const [recipe, options] of CASES) {
    const format = { shape: [ROWS, COLS], dtype: 'bf16', recipe, options };
    const label = recipe + (options.nvfp4Hadamard ? ' +RHT' : '');
    const row = [label];
    for (const name of ['native', 'wasm']) {
      const tp = sessions[name];
      if (!tp) {
        row.push('n/a', 'n/a');
        continue;
      }
      let quantized;
      const qMs = timeMedian(() => { quantized = tp.quantize(format, input); }, { minRuns: 3, minMs: 0, warmup: 1 });
      const buffers = quantized.buffers.map((b) => b.bytes);
      const dMs = timeMedian(() => tp.dequantize(format, buffers), { minRuns: 3, minMs: 0, warmup: 1 });
      row.push(fmt(megabytes / (qMs / 1000), 1), fmt(megabytes / (dMs / 1000), 1));
    }
    rows.push(row);
  }
  printTable(
    `reference quantize / dequantize, ${ROWS} x ${COLS} bf16 (${megabytes.toFixed(1)} MB input), row+col usage: MB/s of input, median`,
    ['recipe', 'native quantize', 'native dequantize', 'wasm quantize', 'wasm dequantize'],
    rows,
    ['One CPU thread, plain C++ reference numerics (not a GPU kernel); the call includes JS <-> core copies.'],
  );
}
