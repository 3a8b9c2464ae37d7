// ONNX's own backend node tests, generated at test time from the installed onnx package
// (onnx-node-suite.py: onnx.backend.test.case.node.collect_testcases, the models and
// test_data_set_0 that onnx's backend test data holds), imported three ways:
//   declared  the model as written (graph outputs declare their shapes),
//   stripped  every declared shape removed (value_info, graph and subgraph output shapes), as many
//             exporters write files: each output's shape must come from a shape rule,
//   values    stripped, with every graph input given its test value (`values`): what the
//             evaluator folds is compared element by element with the test's expected outputs.
// Every tensor output's shape and element type is compared with the expected output's (and a
// 2- or 4-bit or FLOAT8E8M0 output's planned bytes with its packed size); an output
// the importer bounds (NonZero, Unique, NonMaxSuppression, as ONNX Runtime allocates them) must
// have the expected rank and no smaller dimension. A refusal with a message (TensorplanError) is
// counted, not failed; a wrong shape, type or value, or any other exception, fails. A second test
// imports, the same three ways, the cases onnx-derived-cases.py derives from the specs of the
// rules under src/frontends/onnx/infer/ (other shapes, attributes and opsets than the node tests').
// Runs where python3 (or TP_PYTHON) imports onnx 1.23.1 and numpy, and says why when skipped.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CoreBinding } from '../../../src/abi/core-binding';
import type { GraphDocument, GraphTensor } from '../../../src/graph/graph-document';
import { TensorplanError } from '../../../src/errors';
import { checkImportOptions } from '../../../src/frontends/onnx/import-options';
import { Importer } from '../../../src/frontends/onnx/importer';
import type { Value } from '../../../src/frontends/onnx/infer-helpers';
import { decodeOnnxModel } from '../../../src/frontends/onnx/onnx-model';
import { BACKENDS, session } from '../../support/backends';
import { findPython } from './fold-support';

/** Imports without declared shapes that may stop at an operator with no shape rule. */
const MISSING_RULE_CEILING = 0;
/** The importer's words for a node whose operator has no shape rule (any domain). */
const MISSING_RULE = /: no shape rule for /;

interface Entry { name: string; kind: string; elemType?: number; shape?: number[]; values?: (string | number)[] }
interface Case { name: string; ops: string[]; opset: number; rtol: number; atol: number; inputs: Entry[]; outputs: Entry[] }
type Mode = 'declared' | 'stripped' | 'values';
interface Counts { imported: number; missingRule: number; refused: number; wrong: number; bounded: number; foldedValues: number; skipped: number }

/** The onnx release whose node tests the counts and the ceiling are for. */
const ONNX_VERSION = '1.23.1';
const found = findPython(['onnx', 'numpy', 'onnx.reference']);
const version = found.python ? spawnSync(found.python, ['-c', 'import onnx; print(onnx.__version__)'], { encoding: 'utf8' }).stdout.trim() : '';
const py = found.python && version !== ONNX_VERSION
  ? { python: undefined, why: `skipped: ${found.python} has onnx ${version}, the suite's counts are onnx ${ONNX_VERSION}'s (python3 -m pip install onnx==${ONNX_VERSION})` }
  : found;
const script = new URL('./onnx-node-suite.py', import.meta.url).pathname;
const derivedScript = new URL('./onnx-derived-cases.py', import.meta.url).pathname;
const INTEGER_TYPES = new Set([2, 3, 4, 5, 6, 7, 9, 12, 13, 21, 22, 25, 26]);

/** An expected element as the evaluator holds it: bigint for integer and bool types, a number otherwise. */
function expectedElement(v: string | number, elemType: number): number | bigint {
  if (INTEGER_TYPES.has(elemType)) return BigInt(v);
  if (v === 'nan') return NaN;
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  return Number(v);
}

function sameElement(got: number | bigint, want: number | bigint, rtol: number, atol: number): boolean {
  if (typeof want === 'bigint') return BigInt(got) === want;
  const g = Number(got);
  if (Number.isNaN(want)) return Number.isNaN(g);
  if (!Number.isFinite(want)) return g === want;
  return Math.abs(g - want) <= atol + rtol * Math.abs(want);
}

/** Why `got` is not the expected output, or undefined when it is (bounded: the importer's upper bound). */
function difference(got: Value & { bound?: string }, want: Entry, c: Case, mode: Mode, counts: Counts): string | undefined {
  if (got.elemType !== want.elemType) return `element type ${got.elemType}, expected ${want.elemType}`;
  const shape = want.shape!;
  if (got.bound && !got.data) {
    if (got.shape.length !== shape.length || got.shape.some((d, k) => d < shape[k])) return `bound [${got.shape}] below the expected shape [${shape}]`;
    counts.bounded += 1;
    return undefined;
  }
  if (got.shape.join(',') !== shape.join(',')) return `shape [${got.shape}], expected [${shape}]`;
  if (got.data && want.values) {
    // The suite's tolerance, atol at least 1e-6 (the evaluator computes in double and rounds once),
    // widened for half-precision outputs (rounded after each operation).
    const half = want.elemType === 10 || want.elemType === 16;
    const rtol = half ? Math.max(c.rtol, 1e-2) : c.rtol, atol = half ? Math.max(c.atol, 1e-3) : Math.max(c.atol, 1e-6);
    if (got.data.length !== want.values.length) return `${got.data.length} folded elements, expected ${want.values.length}`;
    for (let k = 0; k < want.values.length; ++k) {
      const w = expectedElement(want.values[k], want.elemType!);
      if (!sameElement(got.data[k], w, rtol, atol)) return `folded element ${k} is ${String(got.data[k])}, expected ${String(w)}`;
    }
    if (mode === 'values') counts.foldedValues += 1;
  }
  return undefined;
}

/** Bits per element of the types planned packed (onnx 1.23.1 docs/docsgen/source/technical/int4.md, int2.md), and FLOAT8E8M0's byte. */
const PACKED_BITS: Record<number, number> = { 21: 4, 22: 4, 25: 2, 26: 2, 24: 8 };

/** Why the planned tensor of a packed-type output does not take ceil(elements x bits / 8) bytes, or undefined. */
function packing(t: GraphTensor | undefined, v: Value): string | undefined {
  const bits = PACKED_BITS[v.elemType];
  if (bits === undefined || !t) return undefined;
  const bytes = Math.ceil((v.shape.reduce((a, b) => a * b, 1) * bits) / 8);
  return t.bytes === bytes ? undefined : `planned as ${t.bytes} bytes, ${bytes} packed`;
}

/** The given values of every graph input, or undefined when one has none (a string, a tensor too large to write, a type `values` does not take, not a tensor). */
function inputValues(c: Case): Record<string, (number | bigint)[]> | undefined {
  const values: Record<string, (number | bigint)[]> = {};
  for (const i of c.inputs) {
    if (i.kind !== 'tensor' || !i.values || ![1, 10, 11, 16, ...INTEGER_TYPES].includes(i.elemType!) || [4, 12, 13, 21, 22, 25, 26].includes(i.elemType!)) return undefined;
    values[i.name] = i.values.map((v) => expectedElement(v, i.elemType!));
  }
  return values;
}

interface SuiteResult { cases: Case[]; counts: Record<Mode, Counts>; failures: string[]; missing: Map<string, string[]>; refusals: Map<string, number> }

/** Writes the cases of `helper` into `into` (unless `given` names a folder it already wrote) and reads its manifest. */
function generate(helper: string, into: string, given?: string): { from: string; onnx: string; cases: Case[] } {
  const from = given ?? into;
  if (!given) {
    const made = spawnSync(py.python!, [helper, into], { encoding: 'utf8', maxBuffer: 1 << 26, timeout: 180_000 });
    if (made.status !== 0) throw new Error(`${helper} failed: ${made.stderr}`);
  }
  return { from, ...(JSON.parse(readFileSync(join(from, 'manifest.json'), 'utf8')) as { onnx: string; cases: Case[] }) };
}

/** Imports every case three ways (declared, stripped, values) and compares every tensor output. */
function importAll(from: string, cases: Case[], core: CoreBinding): SuiteResult {
  const counts = Object.fromEntries((['declared', 'stripped', 'values'] as const).map((m) => [m, { imported: 0, missingRule: 0, refused: 0, wrong: 0, bounded: 0, foldedValues: 0, skipped: 0 }])) as Record<Mode, Counts>;
  const failures: string[] = [];
  const missing = new Map<string, string[]>();
  const refusals = new Map<string, number>();
  for (const c of cases) {
    for (const mode of ['declared', 'stripped', 'values'] as const) {
      const n = counts[mode];
      const values = mode === 'values' ? inputValues(c) : undefined;
      if (mode === 'values' && !values) { n.skipped += 1; continue; }
      const bytes = new Uint8Array(readFileSync(join(from, c.name, mode === 'declared' ? 'model.onnx' : 'stripped.onnx')));
      let importer: Importer;
      let graph: GraphDocument;
      try {
        importer = new Importer(decodeOnnxModel(bytes), checkImportOptions({ source: c.name, ...(values ? { values } : {}) }), core);
        graph = importer.run();
      } catch (error) {
        const message = (error as Error).message;
        if (!(error instanceof TensorplanError) || error.code === 'INTERNAL') {
          failures.push(`${c.name} (${mode}): ${(error as Error).stack ?? message}`);
          n.wrong += 1;
        } else if (MISSING_RULE.test(message)) {
          n.missingRule += 1;
          const op = /\(([A-Za-z0-9]+)\)[^(]*: no shape rule/.exec(message)?.[1] ?? message.slice(0, 120);
          if (mode === 'stripped') missing.set(op, [...(missing.get(op) ?? []), c.name]);
        } else {
          n.refused += 1;
          const why = message.replace(/^[^:]*: /, '').replace(/"[^"]*"/g, '"…"').slice(0, 140);
          refusals.set(`${mode}: ${why}`, (refusals.get(`${mode}: ${why}`) ?? 0) + 1);
        }
        continue;
      }
      n.imported += 1;
      c.outputs.forEach((want) => {
        if (want.kind !== 'tensor') return;
        const name = importer.resolve(want.name);
        const got = importer.values.get(name);
        const why = got ? difference(got, want, c, mode, n) ?? packing(graph.tensors.find((t) => t.name === name), got) : 'no value';
        if (why) { n.wrong += 1; failures.push(`${c.name} (${mode}): output "${want.name}": ${why}`); }
      });
    }
  }
  return { cases, counts, failures, missing, refusals };
}

function report(title: string, r: SuiteResult): void {
  const byCount = [...r.missing].sort((a, b) => b[1].length - a[1].length).map(([op, names]) => `${op} ${names.length}`);
  console.log(`${title}: ${r.cases.length} cases\n${JSON.stringify(r.counts, null, 1)}\nstripped, no shape rule: ${byCount.join(', ') || 'none'}`);
  console.log([...r.refusals].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([w, k]) => `${k} ${w}`).join('\n'));
}

/** `body` with a new temporary folder, removed after. */
function inTemporaryFolder<T>(body: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'onnx-node-suite-'));
  try {
    return body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!py.python)(`ONNX's backend node tests, generated from the installed onnx ${py.why}`, () => {
  // The session's core plans the subgraphs of an If whose condition is not known at import time.
  const core = () => (session(BACKENDS[0]) as unknown as { core: CoreBinding }).core;

  it('imports every node test with and without declared shapes: no wrong shape, type or value', () => {
    // TP_ONNX_NODE_SUITE names a folder onnx-node-suite.py already wrote (to rerun without regenerating).
    const r = inTemporaryFolder((dir) => {
      const suite = generate(script, dir, process.env.TP_ONNX_NODE_SUITE);
      return { ...importAll(suite.from, suite.cases, core()), onnx: suite.onnx };
    });
    report(`onnx ${r.onnx} backend node tests`, r);
    expect(r.failures.slice(0, 40)).toEqual([]);
    expect(r.counts.stripped.missingRule).toBeLessThanOrEqual(MISSING_RULE_CEILING);
  }, 300_000);

  it('imports the cases derived from the specs (onnx-derived-cases.py) without declared shapes: every shape, type and value right', () => {
    const r = inTemporaryFolder((dir) => {
      const derived = generate(derivedScript, dir);
      return { ...importAll(derived.from, derived.cases, core()), onnx: derived.onnx };
    });
    report(`onnx ${r.onnx} derived cases`, r);
    expect(r.cases.length).toBeGreaterThanOrEqual(80);
    expect(r.failures).toEqual([]);
    expect(r.counts.stripped.imported).toBe(r.cases.length);
  }, 120_000);
});
