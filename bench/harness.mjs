// Shared helpers for benchmarks: sessions per backend, robust timing, tables.
import Table from 'cli-table3';
import { mersenne, unsafeUniformIntDistribution } from 'pure-rand';
import { init } from '../dist/index.mjs';

/** Sessions for every backend that loads here, wasm first. */
export async function loadBackends() {
  const sessions = {};
  const skipped = {};
  for (const name of ['wasm', 'native']) {
    try {
      sessions[name] = await init({ backend: name });
    } catch (error) {
      skipped[name] = error.message;
    }
  }
  return { sessions, skipped };
}

/**
 * Median wall time of `fn` in milliseconds: warm up, then repeat until both
 * `minRuns` runs and `minMs` of measuring have passed (so fast calls are
 * measured over many runs and slow ones are not repeated needlessly).
 */
export function timeMedian(fn, { minRuns = 5, minMs = 300, warmup = 2 } = {}) {
  for (let i = 0; i < warmup; i++) fn();
  const samples = [];
  const start = performance.now();
  while (samples.length < minRuns || performance.now() - start < minMs) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
    if (samples.length >= 1000) break;
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/** Deterministic pseudo-random numbers in [0, 1) (pure-rand's Mersenne Twister), so every run sees the same input. */
export function seededRandom(seed) {
  const generator = mersenne(seed);
  return () => unsafeUniformIntDistribution(0, 0xffffffff, generator) / 4294967296;
}

/**
 * Grey borders only on a terminal and never with NO_COLOR set and not empty
 * (no-color.org), as the CLI's tables do (src/cli/colour.ts, colourAllowed):
 * a piped or logged bench run gets plain text. cli-table3 colours through
 * @colors/colors, which ignores NO_COLOR, so the style is chosen here.
 */
export function colourAllowed(stream = process.stdout, env = process.env) {
  return stream.isTTY === true && !(env.NO_COLOR !== undefined && env.NO_COLOR !== '');
}

export function printTable(title, head, rows, notes = []) {
  const table = new Table({ head, style: { head: [], border: colourAllowed() ? ['grey'] : [] } });
  for (const row of rows) table.push(row);
  console.log(`\n${title}`);
  console.log(table.toString());
  for (const note of notes) console.log(note);
}

export const fmt = (value, digits = 3) => (Number.isFinite(value) ? value.toFixed(digits) : String(value));

/** A graph of one input read by n ops, each writing its own output that stays alive (the scale benches' wide case). */
export function fanOutGraph(n) {
  const tensors = [{ name: 'x', bytes: 256 }];
  const ops = [];
  for (let i = 0; i < n; i++) {
    tensors.push({ name: `t${i}`, bytes: 64 + (i % 7) * 32 });
    ops.push({ name: `o${i}`, op: 'f', inputs: ['x'], outputs: [`t${i}`] });
  }
  return { format: 'tensorplan.graph', version: 1, name: 'fan', tensors, ops, inputs: ['x'], outputs: tensors.slice(1).map((t) => t.name) };
}
