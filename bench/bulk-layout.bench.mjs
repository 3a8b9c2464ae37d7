// Bulk layout of 10^5 tensors (TE bulk_allocate rules): time per call on each
// backend, and the WASM/native ratio, measured in the same run.
import { fmt, printTable, seededRandom, timeMedian } from './harness.mjs';

const DTYPES = ['fp32', 'bf16', 'fp8_e4m3', 'fp4_e2m1', 'uint8', 'int64'];

function makeTensors(count, seed) {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => ({
    name: `t${i}`,
    shape: [1 + Math.floor(random() * 4096), 16 * (1 + Math.floor(random() * 64))],
    dtype: DTYPES[Math.floor(random() * DTYPES.length)],
    alignment: random() < 0.5 ? 256 : undefined,
  }));
}

export async function run({ sessions }) {
  const rows = [];
  for (const count of [1_000, 100_000]) {
    const tensors = makeTensors(count, 42);
    const ms = {};
    for (const [name, tp] of Object.entries(sessions)) ms[name] = timeMedian(() => tp.bulkLayout(tensors));
    rows.push([
      count.toLocaleString('en-US'),
      ms.native !== undefined ? fmt(ms.native) : 'n/a',
      fmt(ms.wasm),
      ms.native !== undefined ? fmt(ms.wasm / ms.native, 2) : 'n/a',
      fmt((count / (ms.native ?? ms.wasm)) / 1000, 1),
    ]);
  }
  printTable(
    'bulk layout (TE bulk_allocate): median ms per call, encode + core + decode',
    ['tensors', 'native ms', 'wasm ms', 'wasm / native', 'M tensors/s (fastest)'],
    rows,
  );
}
