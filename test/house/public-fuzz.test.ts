// Issue #14, item 6: every public function answers wrong or incomplete input
// either with a result or with a TensorplanError, never another exception, and
// the session still works afterwards. Seeded fast-check over mutated example
// documents; TP_FUZZ_RUNS=<n> runs n cases per target instead of the few of
// the normal run (docs/DEVELOPING.md).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyAlternative, importOnnx, parseGraph, parseLayerSpec, parsePlan } from '../../dist/index.mjs';
import type { Tensorplan } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';

const RUNS = Number(process.env.TP_FUZZ_RUNS ?? 20);
const SEED = Number(process.env.TP_FUZZ_SEED ?? 14);
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url));
const GRAPH = JSON.parse(read('examples/two-chains.graph.json').toString());
const LAYERS = JSON.parse(read('examples/mixtral-moe.layers.json').toString());
const ONNX = new Uint8Array(read('test/fixtures/official-writer.onnx'));

/** Values that have broken the library before: wrong types, BigInts, deep nesting, detached buffers. */
function deep(depth: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}
function detached(): Uint8Array {
  const bytes = new Uint8Array(8);
  structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
  return bytes;
}
const WEIRD: (() => unknown)[] = [
  () => undefined, () => null, () => 'x', () => '1024', () => 10n, () => -1, () => 0.5, () => Number.NaN, () => Infinity,
  () => 2 ** 60, () => ({}), () => [], () => true, () => deep(20000), () => detached(), () => [1, 'a', null],
];

/** A copy of `doc` with `edits` applied: each replaces or deletes the k-th node (pre-order) of the copy. */
function mutate(doc: unknown, edits: [number, number][]): unknown {
  let copy = structuredClone(doc) as unknown;
  for (const [k, w] of edits) {
    const slots: [Record<string, unknown> | unknown[], string | number][] = [];
    const walk = (v: unknown) => {
      if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return;
      for (const key of Object.keys(v)) {
        slots.push([v as Record<string, unknown>, Array.isArray(v) ? Number(key) : key]);
        if (slots.length < 5000) walk((v as Record<string, unknown>)[key]);
      }
    };
    walk(copy);
    if (slots.length === 0 || w === WEIRD.length) {
      copy = WEIRD[k % WEIRD.length]();
      continue;
    }
    const [parent, key] = slots[k % slots.length];
    if (w > WEIRD.length) delete (parent as Record<string, unknown>)[key as string];
    else (parent as Record<string, unknown>)[key as string] = WEIRD[w]();
  }
  return copy;
}
const edits = fc.array(fc.tuple(fc.nat(), fc.nat({ max: WEIRD.length + 1 })), { minLength: 1, maxLength: 3 });

/** The health probe: what the session plans for the example graph. */
function probe(tp: Tensorplan): string {
  const plan = tp.plan(GRAPH);
  return JSON.stringify({ arena: plan.arenaBytes, schedule: plan.schedule, storages: plan.storages });
}

let calls = 0;
async function expectTensorplanErrorOrResult(f: () => unknown): Promise<void> {
  // The targets are synchronous: yield to the event loop now and then, or a long run
  // (TP_FUZZ_RUNS) starves vitest's worker RPC ("Timeout calling onTaskUpdate").
  if (++calls % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
  try {
    await f();
  } catch (error) {
    expect((error as Error).name, String((error as Error).stack)).toBe('TensorplanError');
    expect(typeof (error as { code?: unknown }).code).toBe('string');
  }
}

describe.each(BACKENDS)('public functions fed mutated input on %s', (backend) => {
  const tp = session(backend);
  const healthy = probe(tp);
  const plan = tp.plan(GRAPH);
  const targets: [string, (input: unknown) => unknown][] = [
    ['parseGraph', (g) => parseGraph(g)],
    ['parsePlan', (p) => parsePlan(p)],
    ['parseLayerSpec', (s) => parseLayerSpec(s)],
    ['applyAlternative', (s) => applyAlternative(s as never, 'recipe=none')],
    ['tp.schedule', (g) => tp.schedule(g as never, { method: 'inductor-best' } as never)],
    ['tp.liveness', (g) => tp.liveness(g as never)],
    ['tp.plan', (g) => tp.plan(g as never, { timeLimitSeconds: 0 } as never)],
    ['tp.validate', (p) => tp.validate(p as never)],
    ['tp.layerGraph', (s) => tp.layerGraph(s)],
    ['tp.bulkLayout', (b) => tp.bulkLayout(b as never)],
    ['tp.place', (b) => tp.place(b as never, { timeLimitSeconds: 0.01 } as never)],
    ['tp.tensorSpecBuffers', (f) => tp.tensorSpecBuffers(f as never)],
    ['tp.execute', (p) => tp.execute(p as never, { a0: new Uint8Array(1024) } as never, { executor: 'reference' } as never)],
  ];
  const seeds: Record<string, unknown> = {
    parseGraph: GRAPH, 'tp.schedule': GRAPH, 'tp.liveness': GRAPH, 'tp.plan': GRAPH,
    parsePlan: plan, 'tp.validate': plan, 'tp.execute': plan,
    parseLayerSpec: LAYERS, applyAlternative: LAYERS, 'tp.layerGraph': LAYERS,
    'tp.bulkLayout': [{ shape: [4, 4], dtype: 'fp32' }, { shape: [3], dtype: 'uint8', alignment: 16 }],
    'tp.place': [{ lower: 0, upper: 2, size: 64 }, { lower: 1, upper: 3, size: 32, alignment: 16 }],
    'tp.tensorSpecBuffers': { shape: [128, 128], dtype: 'bf16', recipe: 'mxfp8', rowwise: true, columnwise: true },
  };

  it.each(targets)('%s returns or throws a TensorplanError, and the session still plans the same', async (name, target) => {
    await fc.assert(fc.asyncProperty(edits, async (e) => {
      await expectTensorplanErrorOrResult(() => target(mutate(seeds[name], e)));
    }), { seed: SEED, numRuns: RUNS });
    expect(probe(tp)).toBe(healthy);
  });

  it('importOnnx and tp.importOnnx with flipped bytes', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 8 }), async (flips) => {
      const bytes = ONNX.slice();
      for (const [at, value] of flips) bytes[at % bytes.length] = value;
      await expectTensorplanErrorOrResult(() => importOnnx(bytes));
      await expectTensorplanErrorOrResult(() => tp.importOnnx(bytes));
    }), { seed: SEED, numRuns: RUNS });
    await expectTensorplanErrorOrResult(() => importOnnx(detached()));
    expect(probe(tp)).toBe(healthy);
  });
});
