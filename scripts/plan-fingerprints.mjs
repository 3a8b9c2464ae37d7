// Plan fingerprints: proves that a refactor changed no plan.
//
// Plans every example graph, every example layer spec, the test ONNX models
// (imported as they are and with --in-place) and a set of seeded random graphs
// that use every alias kind, on every backend that loads, and hashes each
// plan document (without its timings and the backend's name). The hashes at
// the last intended behaviour change are committed in
// test/fixtures/plan-fingerprints.json.
//
//   node scripts/plan-fingerprints.mjs           compare with the committed hashes (exit 1 on any difference)
//   node scripts/plan-fingerprints.mjs --write   record new hashes (only for an intended behaviour change)
//
// Plans use the default 'fast' effort, whose searches are bounded by work, not
// time, so they are the same on every machine and backend.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mersenne, unsafeUniformIntDistribution } from 'pure-rand';

const root = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = join(root, 'test', 'fixtures', 'plan-fingerprints.json');
const RANDOM_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/** A seeded random graph with views, in-place writes, groups, persistents, control edges and workspaces. */
export function randomGraph(seed) {
  const generator = mersenne(seed);
  const int = (lo, hi) => unsafeUniformIntDistribution(lo, hi, generator);
  const tensors = [{ name: 'in0', bytes: 256 * int(1, 64) }, { name: 'w0', bytes: 256 * int(1, 64) }];
  const ops = [];
  const aliases = [];
  const usable = ['in0'];
  const opCount = int(8, 40);
  for (let i = 0; i < opCount; i++) {
    const reads = new Set();
    for (let k = 0, n = int(1, 3); k < n; k++) reads.add(usable[Math.max(0, usable.length - 1 - int(0, 6))]);
    if (int(0, 9) === 0) reads.add('w0');
    const out = `t${i}`;
    const kind = int(0, 9);
    const op = { name: `op${i}`, op: 'x', inputs: [...reads], outputs: [out] };
    if (int(0, 4) === 0) op.workspaceBytes = 512 * int(1, 32);
    if (i > 1 && int(0, 7) === 0) op.after = [`op${int(0, i - 2)}`];
    if (kind === 0 && i > 0) {
      // a view of the op's first input, read by later ops
      const base = op.inputs[0];
      if (base !== 'w0' && base !== 'in0') {
        const baseBytes = tensors.find((t) => t.name === base).bytes;
        const viewBytes = 16 * int(1, Math.max(1, Math.floor(baseBytes / 32)));
        tensors.push({ name: out, bytes: viewBytes });
        ops.push({ ...op, outputs: [`${out}_src`] });
        tensors.push({ name: `${out}_src`, bytes: baseBytes });
        aliases.push({ kind: 'view', tensor: out, base: `${out}_src`, offset: 16 * int(0, Math.floor((baseBytes - viewBytes) / 16)) });
        usable.push(out);
        continue;
      }
    }
    if (kind === 1 && op.inputs.length === 1 && op.inputs[0].startsWith('t')) {
      // an in-place write into the only input (its last reader, so the graph stays valid)
      const input = op.inputs[0];
      tensors.push({ name: out, bytes: tensors.find((t) => t.name === input).bytes });
      aliases.push({ kind: 'inPlace', output: out, input });
      usable.splice(usable.indexOf(input), 1);
      usable.push(out);
      ops.push(op);
      continue;
    }
    if (kind === 2) {
      // two outputs in one bulk allocation
      tensors.push({ name: out, bytes: 256 * int(1, 64) }, { name: `${out}b`, bytes: 16 * int(1, 64), alignment: 16 });
      op.outputs.push(`${out}b`);
      aliases.push({ kind: 'group', members: [out, `${out}b`] });
      usable.push(out, `${out}b`);
      ops.push(op);
      continue;
    }
    tensors.push({ name: out, bytes: 256 * int(1, 256) });
    usable.push(out);
    ops.push(op);
  }
  const last = ops[ops.length - 1].outputs[0];
  return {
    format: 'tensorplan.graph', version: 1, name: `random-${seed}`,
    tensors, ops, aliases, inputs: ['in0', 'w0'], outputs: [last], persistent: ['w0'],
  };
}

function canonicalPlan(plan) {
  const copy = structuredClone(plan);
  delete copy.statistics?.timeMs;
  if (copy.tool) delete copy.tool.backend;
  return JSON.stringify(copy);
}

const sha = (text) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** Every case: { name, graph: () => GraphDocument, fingerprintGraph?: boolean } for one session. */
async function cases(tensorplan, tp) {
  const list = [];
  for (const file of readdirSync(join(root, 'examples')).sort()) {
    if (!file.endsWith('.json')) continue;
    const doc = JSON.parse(readFileSync(join(root, 'examples', file), 'utf8'));
    if (file.endsWith('.layers.json')) {
      list.push({ name: `example ${file}`, graph: () => tp.layerGraph(doc).graph, fingerprintGraph: true });
    } else if (doc.format === 'tensorplan.graph') {
      list.push({ name: `example ${file}`, graph: () => tensorplan.parseGraph(doc) });
    }
  }
  const zoo = await import(join(root, 'test', 'frontends', 'onnx', 'onnx-zoo.mjs'));
  const importOnnx = typeof tp.importOnnx === 'function' ? (b, o) => tp.importOnnx(b, o) : (b, o) => tensorplan.importOnnx(b, o);
  for (const [name, make] of Object.entries(zoo.ALL_MODELS)) {
    const bytes = make();
    for (const inPlace of [false, true]) {
      const options = { ...(zoo.MODEL_OPTIONS[name] ?? {}), ...(inPlace ? { inPlace: true } : {}) };
      list.push({ name: `onnx ${name}${inPlace ? ' --in-place' : ''}`, graph: () => importOnnx(bytes, options).graph, fingerprintGraph: true });
    }
  }
  for (const seed of RANDOM_SEEDS) list.push({ name: `random seed ${seed}`, graph: () => tensorplan.parseGraph(randomGraph(seed)) });
  return list;
}

/** { backend: { case: { plan, graph?, arenaBytes, peakBytes } } } for every backend that loads. */
export async function fingerprints() {
  const tensorplan = await import(join(root, 'dist', 'index.mjs'));
  const result = {};
  for (const backend of ['wasm', 'native']) {
    let tp;
    try {
      tp = await tensorplan.init({ backend });
    } catch (error) {
      console.log(`plan-fingerprints: ${backend} backend not loaded (${error.message.split('\n')[0]})`);
      continue;
    }
    const rows = {};
    for (const c of await cases(tensorplan, tp)) {
      const graph = c.graph();
      const plan = tp.plan(graph, { baselines: true });
      rows[c.name] = {
        plan: sha(canonicalPlan(plan)),
        ...(c.fingerprintGraph ? { graph: sha(JSON.stringify(graph)) } : {}),
        arenaBytes: plan.arenaBytes,
        peakBytes: plan.statistics.peakBytes,
      };
    }
    result[backend] = rows;
  }
  return result;
}

/** Differences between two fingerprint sets, one line each ([] when equal). */
export function differences(expected, actual) {
  const lines = [];
  for (const [backend, rows] of Object.entries(actual)) {
    for (const [name, row] of Object.entries(rows)) {
      const want = expected[name];
      if (!want) { lines.push(`${backend}: ${name}: no recorded fingerprint`); continue; }
      for (const key of ['plan', 'graph', 'arenaBytes', 'peakBytes']) {
        if (want[key] !== row[key]) lines.push(`${backend}: ${name}: ${key} ${want[key]} -> ${row[key]}`);
      }
    }
    for (const name of Object.keys(expected)) if (!rows[name]) lines.push(`${backend}: ${name}: case no longer produced`);
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const actual = await fingerprints();
  const backends = Object.keys(actual);
  if (backends.length === 0) { console.error('plan-fingerprints: no backend loaded'); process.exit(2); }
  // CI requires the native backend (as the test suites do): a comparison on WASM alone would not show
  // that both backends still plan alike.
  if (process.env.TP_REQUIRE_NATIVE === '1' && !actual.native) {
    console.error('plan-fingerprints: TP_REQUIRE_NATIVE=1 but the native backend did not load');
    process.exit(2);
  }
  // Every backend must plan every case to the same bytes.
  const [first, ...others] = backends;
  const crossBackend = others.flatMap((b) => differences(actual[first], { [b]: actual[b] }));
  if (process.argv.includes('--write')) {
    if (crossBackend.length > 0) { console.error(crossBackend.join('\n')); process.exit(1); }
    writeFileSync(FIXTURE, JSON.stringify(actual[first], null, 1) + '\n');
    console.log(`plan-fingerprints: wrote ${Object.keys(actual[first]).length} cases to ${FIXTURE}`);
  } else {
    const expected = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    const lines = [...crossBackend, ...differences(expected, actual)];
    const cases = Object.keys(expected).length;
    if (lines.length > 0) {
      console.error(`plan-fingerprints: ${lines.length} difference(s):\n${lines.join('\n')}`);
      process.exit(1);
    }
    console.log(`plan-fingerprints: ${cases} cases byte-identical to the recorded plans on ${backends.join(', ')}`);
  }
}
