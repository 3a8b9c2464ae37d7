// Helpers for the evaluator's tests: a node with attributes, inferNode on known inputs (the shape
// rule and the evaluator, which must agree), and python with numpy/onnxruntime where installed.
import { spawnSync } from 'node:child_process';
import type { Known } from '../../../src/frontends/onnx/fold/evaluate';
import { inferNode } from '../../../src/frontends/onnx/onnx-infer';
import type { OnnxAttribute, OnnxNode } from '../../../src/frontends/onnx/onnx-model';

export type Attrs = Record<string, number | number[]>;

export const node = (opType: string, arity: number, attrs: Attrs = {}): OnnxNode => ({
  name: opType.toLowerCase(), opType, domain: '', inputs: Array.from({ length: arity }, (_, k) => `in${k}`), outputs: ['out'],
  attributes: new Map(Object.entries(attrs).map(([name, v]): [string, OnnxAttribute] => [name, Array.isArray(v)
    ? { name, type: 7, ints: v, floats: [], exactInts: v.map(BigInt) }
    : { name, type: 2, i: v, ints: [], floats: [], exactInts: [] }])),
});

/** The importer's inference of one node on known inputs, at `opset`. */
export const run = (opType: string, inputs: (Known | undefined)[], attrs: Attrs = {}, opset = 18): Known[] =>
  inferNode({ node: node(opType, inputs.length, attrs), inputs, opset }) as Known[];

export const numel = (s: number[]): number => s.reduce((a, b) => a * b, 1);

/**
 * python3 (or TP_PYTHON) when it can import `modules`; else the reason the tests that need it
 * skip (CI installs test/python-requirements.txt, so there they run).
 */
export function findPython(modules: string[]): { python?: string; why: string } {
  const python = process.env.TP_PYTHON ?? 'python3';
  const probe = spawnSync(python, ['-c', `import ${modules.join(', ')}`], { encoding: 'utf8' });
  if (probe.status === 0) return { python, why: `with ${python} (${modules.join(', ')})` };
  const reason = probe.error ? probe.error.message : (probe.stderr.trim().split('\n').pop() ?? `exit ${probe.status}`);
  return { why: `skipped: ${python} cannot import ${modules.join(', ')} (${reason}); set TP_PYTHON to an interpreter that can` };
}

/** Runs a python program with `input` as JSON on stdin; returns its stdout parsed as JSON. */
export function python<T>(py: string, program: string, input: unknown): T {
  const out = spawnSync(py, ['-c', program], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (out.status !== 0) throw new Error(`python failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as T;
}

/** The 16 hex digits of a double's bits (big-endian), which JSON carries exactly. */
export function hexOf(v: number): string {
  const d = new DataView(new ArrayBuffer(8));
  d.setFloat64(0, v);
  return d.getBigUint64(0).toString(16).padStart(16, '0');
}
export function fromHex(h: string): number {
  const d = new DataView(new ArrayBuffer(8));
  d.setBigUint64(0, BigInt(`0x${h}`));
  return d.getFloat64(0);
}
