// `tensorplan execute` as a user runs it: a planned example executed from
// .npy / raw inputs or seeded random ones, the trace verdict, the oracle, the
// outputs it writes, and an exit code for each failure class.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GraphDocument, PlanDocument } from '../../dist/index.mjs';
import { executionExitCode, firstDifference } from '../../src/cli/execute-verdict';
import { encodeNpy, parseNpy } from '../../src/cli/npy';
import { BACKENDS, BOTH_BACKENDS, CUDA, SKIPPED_ON_GPU_HOST, SKIPPED_WITHOUT_GPU, session } from '../support/backends';

const bin = new URL('../../bin/tensorplan.mjs', import.meta.url).pathname;
const graphFile = new URL('../../examples/mlp-training.graph.json', import.meta.url).pathname;
const fixture = (name: string) => new URL(`../fixtures/execute/${name}`, import.meta.url).pathname;
const GRAPH: GraphDocument = JSON.parse(readFileSync(graphFile, 'utf8'));

function run(...args: string[]) {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

interface ExecuteJson {
  executor: string;
  backend: string;
  arenaBytes: number;
  steps: number;
  inputs: { name: string; source: string; format?: string; sha256?: string }[];
  trace: { verified: boolean; events: number; issues: unknown[] };
  oracle: { checked: boolean; identical?: boolean; firstDifference?: { output: string; byte: number } };
  outputs: { name: string; dtype: string; shape: number[]; bytes: number; sha256: string; files?: string[] }[];
  timeMs: { execute: number };
  exitCode: number;
}

describe('example graph mlp-training is executable with op set v1', () => {
  it('every op is in op set v1 and the reference executor runs it', () => {
    const tp = session(BACKENDS[0]);
    const plan = tp.plan(GRAPH);
    const zeros = Object.fromEntries([...GRAPH.inputs!, ...GRAPH.persistent!].map((name) => {
      const t = GRAPH.tensors.find((z) => z.name === name)!;
      return [name, new Uint8Array(tp.bulkLayout([{ name, shape: t.shape!, dtype: t.dtype!, alignment: 1 }]).entries[0].bytes)];
    }));
    expect(Object.keys(tp.executeReference(plan, zeros).outputs)).toEqual(GRAPH.outputs);
  });
});

describe.each(BACKENDS)('tensorplan execute on %s', (backend) => {
  const tp = session(backend);
  const dir = mkdtempSync(join(tmpdir(), 'tp-execute-'));
  const planFile = join(dir, 'plan.json');
  const planned = run('plan', graphFile, '-o', planFile, '--backend', backend, '--json');
  const execute = (...args: string[]) => run('execute', planFile, '--backend', backend, ...args);
  const json = (...args: string[]) => {
    const out = execute('--json', ...args);
    expect(out.code, out.stderr).toBe(0);
    return JSON.parse(out.stdout) as ExecuteJson;
  };

  it('runs the planned example with random inputs: trace verified, oracle bit-identical, summary printed', () => {
    expect(planned.code, planned.stderr).toBe(0);
    const plan: PlanDocument = JSON.parse(readFileSync(planFile, 'utf8'));
    const result = json('--random-inputs', '7', '--check');
    expect(result).toMatchObject({ executor: 'reference', backend, arenaBytes: plan.arenaBytes, steps: plan.schedule.length, exitCode: 0 });
    expect(result.trace.verified).toBe(true);
    expect(result.trace.events).toBeGreaterThan(0);
    expect(result.oracle).toMatchObject({ checked: true, identical: true });
    expect(result.outputs.map((o) => o.name)).toEqual(GRAPH.outputs);
    for (const o of result.outputs) {
      const t = GRAPH.tensors.find((z) => z.name === o.name)!;
      expect(o).toMatchObject({ dtype: t.dtype, shape: t.shape });
      expect(o.bytes).toBe(t.shape!.reduce((a, b) => a * b, 1) * (t.dtype === 'fp32' ? 4 : 2));
      expect(o.sha256).toMatch(/^[0-9a-f]{12}$/);
    }
    const human = execute('--random-inputs', '7', '--check');
    expect(human.code, human.stderr).toBe(0);
    for (const text of ['verified', 'bit-identical', 'arena', 'steps', 'sha256', 'random, seed 7', ...GRAPH.outputs!]) expect(human.stdout).toContain(text);
    expect(human.stdout).toContain(result.outputs[0].sha256);
  });

  it('reads .npy and raw inputs; --outputs writes the bytes tp.executeReference computes, as .bin and .npy', () => {
    const plan: PlanDocument = JSON.parse(readFileSync(planFile, 'utf8'));
    const out = join(dir, 'out');
    // x, ln_gamma and w1 from .npy files NumPy wrote (w1 in format 2.0); dy and the rest from raw files.
    const raw = (name: string, bytes: number, seed: number) => {
      const file = join(dir, `${name}.bin`);
      writeFileSync(file, Uint8Array.from({ length: bytes }, (_, i) => ((i * 37 + seed) % 251) & 0x3f));  // small positive values
      return file;
    };
    const files: Record<string, string> = {
      x: fixture('x-bf16.npy'), ln_gamma: fixture('ln_gamma-fp32.npy'), w1: fixture('w1-bf16-v2.npy'),
      dy: raw('dy', 256, 1), ln_beta: raw('ln_beta', 64, 2), b1: raw('b1', 128, 3), w2: raw('w2', 1024, 4),
    };
    const result = json('--check', '--outputs', out, ...Object.entries(files).flatMap(([name, file]) => ['--input', `${name}=${file}`]));
    expect(result.inputs.filter((i) => i.format === 'npy').map((i) => i.name).sort()).toEqual(['ln_gamma', 'w1', 'x']);
    expect(result.inputs.every((i) => i.source === 'file')).toBe(true);
    const bytes = Object.fromEntries(Object.entries(files).map(([name, file]) => [name, new Uint8Array(readFileSync(file.replace(/\.npy$/, '.bin')))]));
    const reference = tp.executeReference(plan, bytes);
    for (const name of GRAPH.outputs!) {
      const written = new Uint8Array(readFileSync(join(out, `${name}.bin`)));
      expect(Buffer.from(written).equals(Buffer.from(reference.outputs[name])), name).toBe(true);
      const npy = new Uint8Array(readFileSync(join(out, `${name}.npy`)));
      const t = GRAPH.tensors.find((z) => z.name === name)!;
      const header = Buffer.from(npy.subarray(0, npy.length - written.length)).toString('latin1');
      expect(header.startsWith('\x93NUMPY')).toBe(true);
      expect(header).toContain(`'descr': '${t.dtype === 'fp32' ? '<f4' : '<u2'}'`);
      expect(header).toContain(`'shape': (${t.shape!.join(', ')}${t.shape!.length === 1 ? ',' : ''})`);
      expect(header.length % 64).toBe(0);
      expect(Buffer.from(npy.subarray(header.length)).equals(Buffer.from(written))).toBe(true);
    }
  });

  it('--random-inputs is deterministic for one seed and differs for another; a file input replaces only its tensor', () => {
    const sums = (r: ExecuteJson) => r.outputs.map((o) => o.sha256);
    const a = json('--random-inputs', '42');
    expect(sums(json('--random-inputs', '42'))).toEqual(sums(a));
    const b = json('--random-inputs', '43');
    expect(sums(b).every((s, i) => s !== sums(a)[i])).toBe(true);
    // Giving dy from a file changes what depends on dy, not y (forward only).
    const dy = join(dir, 'dy-zero.bin');
    writeFileSync(dy, new Uint8Array(256));
    const c = json('--random-inputs', '42', '--input', `dy=${dy}`);
    expect(c.outputs.find((o) => o.name === 'y')!.sha256).toBe(a.outputs.find((o) => o.name === 'y')!.sha256);
    expect(c.outputs.find((o) => o.name === 'dx')!.sha256).not.toBe(a.outputs.find((o) => o.name === 'dx')!.sha256);
    expect(c.inputs.find((i) => i.name === 'dy')!.source).toBe('file');
  });

  it('random float inputs are finite and within [-1, 1] as the core reads them (fp32, bf16, fp16)', () => {
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [
        ...['fp32', 'bf16', 'fp16'].map((dtype) => ({ name: `in_${dtype}`, shape: [512], dtype: dtype as 'fp32' })),
        ...['fp32', 'bf16', 'fp16'].map((dtype) => ({ name: `out_${dtype}`, shape: [512], dtype: 'fp32' as const })),
      ],
      ops: ['fp32', 'bf16', 'fp16'].map((dtype) => ({ name: `widen_${dtype}`, op: 'scale', inputs: [`in_${dtype}`], outputs: [`out_${dtype}`], attributes: { alpha: 1 } })),
      inputs: ['in_fp32', 'in_bf16', 'in_fp16'], outputs: ['out_fp32', 'out_bf16', 'out_fp16'],
    };
    const file = join(dir, 'widen.graph.json');
    const plan = join(dir, 'widen.plan.json');
    const outDir = join(dir, 'widen');
    writeFileSync(file, JSON.stringify(graph));
    expect(run('plan', file, '-o', plan, '--backend', backend).code).toBe(0);
    const out = run('execute', plan, '--backend', backend, '--random-inputs', '5', '--outputs', outDir, '--json');
    expect(out.code, out.stderr).toBe(0);
    for (const dtype of ['fp32', 'bf16', 'fp16']) {
      const bytes = readFileSync(join(outDir, `out_${dtype}.bin`));
      const values = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, 512));
      expect(values.every((v) => Number.isFinite(v) && Math.abs(v) <= 1), dtype).toBe(true);
      expect(new Set(values).size, dtype).toBeGreaterThan(100);
      expect(values.some((v) => v < 0) && values.some((v) => v > 0), dtype).toBe(true);
    }
  });

  it('a plan that refers to its graph by path finds it; --graph overrides', () => {
    const refPlan = join(dir, 'ref.plan.json');
    expect(run('plan', graphFile, '-o', refPlan, '--reference-graph', '--backend', backend).code).toBe(0);
    const viaPath = run('execute', refPlan, '--backend', backend, '--random-inputs', '1', '--json');
    expect(viaPath.code, viaPath.stderr).toBe(0);
    const viaFlag = run('execute', refPlan, '--graph', graphFile, '--backend', backend, '--random-inputs', '1', '--json');
    expect(JSON.parse(viaFlag.stdout).outputs).toEqual(JSON.parse(viaPath.stdout).outputs);
  });

  it('exit 1 for a plan that validate calls invalid (overlapping storages): nothing runs, the diagnostics are named', () => {
    const plan: PlanDocument = JSON.parse(readFileSync(planFile, 'utf8'));
    for (const s of plan.storages) s.offset = 0;
    const broken = join(dir, 'invalid.plan.json');
    writeFileSync(broken, JSON.stringify(plan));
    const diagnostics = tp.validate(plan);
    expect(diagnostics.some((d) => d.code === 'OVERLAP')).toBe(true);
    for (const memory of ['arena', 'separate']) {
      const human = run('execute', broken, '--backend', backend, '--random-inputs', '3', '--memory', memory, '--outputs', join(dir, `never-${memory}`));
      expect(human.code, human.stderr).toBe(1);
      expect(human.stdout).toContain(`INVALID plan, not run: ${diagnostics.length} problem`);
      expect(human.stdout).toContain(`OVERLAP: ${diagnostics.find((d) => d.code === 'OVERLAP')!.message}`);
      expect(existsSync(join(dir, `never-${memory}`))).toBe(false);
    }
    const out = run('execute', broken, '--backend', backend, '--random-inputs', '3', '--check', '--json');
    expect(out.code, out.stderr).toBe(1);
    const result = JSON.parse(out.stdout);
    expect(result).toMatchObject({ valid: false, exitCode: 1 });
    expect(result.diagnostics).toEqual(diagnostics);
    expect(result.outputs).toBeUndefined();
  });

  it('exit 1 when the oracle finds different outputs (overlapping storages run as stated with --skip-plan-check), naming the output and byte', () => {
    const plan: PlanDocument = JSON.parse(readFileSync(planFile, 'utf8'));
    for (const s of plan.storages) s.offset = 0;
    const broken = join(dir, 'broken.plan.json');
    writeFileSync(broken, JSON.stringify(plan));
    const skip = '--skip-plan-check';
    const out = run('execute', broken, '--backend', backend, '--random-inputs', '3', '--check', '--json', skip);
    expect(out.code, out.stderr).toBe(1);
    const result = JSON.parse(out.stdout) as ExecuteJson & { valid: boolean };
    expect(result.valid).toBe(false);
    expect(result.oracle.identical).toBe(false);
    expect(GRAPH.outputs).toContain(result.oracle.firstDifference!.output);
    expect(result.exitCode).toBe(1);
    // The byte named is the first that differs between the two layouts.
    const arena = run('execute', broken, '--backend', backend, '--random-inputs', '3', '--outputs', join(dir, 'arena'), skip);
    const separate = run('execute', broken, '--backend', backend, '--random-inputs', '3', '--memory', 'separate', '--outputs', join(dir, 'separate'), skip);
    expect(arena.code).toBe(0);  // without --check the broken plan's trace still verifies
    expect(separate.code).toBe(0);
    expect(arena.stdout).toContain('INVALID');
    const { output, byte } = result.oracle.firstDifference!;
    const a = readFileSync(join(dir, 'arena', `${output}.bin`));
    const s = readFileSync(join(dir, 'separate', `${output}.bin`));
    expect(a[byte]).not.toBe(s[byte]);
    expect(a.subarray(0, byte).equals(s.subarray(0, byte))).toBe(true);
    const human = run('execute', broken, '--backend', backend, '--random-inputs', '3', '--check', skip);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(`MISMATCH: output "${output}" differs first at byte ${byte}`);
  });

  it('exit 2 for bad input, naming the problem', () => {
    const missing = execute();
    expect(missing.code).toBe(2);
    for (const name of ['x', 'dy', 'w1', 'w2', 'b1', 'ln_gamma', 'ln_beta']) expect(missing.stderr).toContain(name);
    expect(missing.stderr).toContain('--random-inputs');
    const short = join(dir, 'short.bin');
    writeFileSync(short, new Uint8Array(100));
    expect(execute('--input', `x=${short}`, '--random-inputs', '1')).toMatchObject({
      code: 2, stderr: expect.stringMatching(/tensor "x" \(bf16 \[8, 16\]\) takes 256 bytes, the file has 100/) });
    expect(execute('--input', `ln_gamma=${fixture('x-bf16.npy')}`, '--random-inputs', '1')).toMatchObject({
      code: 2, stderr: expect.stringMatching(/"ln_gamma" is fp32 \[16\], the \.npy array is <u2 \(8, 16\); expected dtype <f4/) });
    expect(execute('--input', `w1=${fixture('x-bf16.npy')}`, '--random-inputs', '1')).toMatchObject({
      code: 2, stderr: expect.stringContaining('the .npy array has shape (8, 16)') });
    expect(execute('--input', `nope=${short}`, '--input', `h=${short}`, '--random-inputs', '1')).toMatchObject({
      code: 2, stderr: expect.stringMatching(/unknown inputs "nope", "h" \(an intermediate tensor.*inputs and persistent tensors are x, dy/) });
    expect(execute('--input', `x=${join(dir, 'absent.bin')}`, '--random-inputs', '1')).toMatchObject({ code: 2, stderr: expect.stringContaining('ENOENT') });
    expect(execute('--input', 'x', '--random-inputs', '1')).toMatchObject({ code: 2, stderr: expect.stringContaining('expected NAME=FILE') });
    expect(execute('--input', `x=${short}`, '--input', `x=${short}`)).toMatchObject({ code: 2, stderr: expect.stringContaining('given twice') });
    expect(execute('--random-inputs', '-1')).toMatchObject({ code: 2, stderr: expect.stringContaining('--random-inputs "-1"') });
    expect(execute('--random-inputs', '1', '--memory', 'pooled').code).toBe(2);
    expect(execute('--random-inputs', '1', '--executor', 'magic').code).toBe(2);
    const npy = join(dir, 'bad.npy');
    writeFileSync(npy, new Uint8Array(64));
    expect(execute('--input', `x=${npy}`, '--random-inputs', '1')).toMatchObject({ code: 2, stderr: expect.stringContaining('not a .npy file') });
    expect(run('execute', join(dir, 'no-plan.json'))).toMatchObject({ code: 2, stderr: expect.stringContaining('ENOENT') });
  });

  it.skipIf(CUDA.available)(`--executor cuda without a cuda session exits 2 with the reason${SKIPPED_ON_GPU_HOST}`, () => {
    const result = execute('--random-inputs', '1', '--executor', 'cuda');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the cuda backend is unavailable');
    expect(result.stderr).toContain(CUDA.reason);
  });

  it.runIf(CUDA.available)(`--executor cuda on a GPU host with --backend ${backend} exits 2 naming the backend to use${SKIPPED_WITHOUT_GPU}`, () => {
    const result = execute('--random-inputs', '1', '--executor', 'cuda');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`this session runs on ${backend} (--backend ${backend}); use --backend cuda or auto`);
  });
});

describe.runIf(CUDA.available)(`tensorplan execute on cuda${SKIPPED_WITHOUT_GPU}`, () => {
  it('runs the planned example on the GPU: trace verified, oracle bit-identical with separate allocations, outputs within 3e-2 (bf16) and 1e-3 (fp32) of the reference', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-execute-cuda-'));
    const planFile = join(dir, 'plan.json');
    expect(run('plan', graphFile, '-o', planFile, '--backend', 'cuda').code).toBe(0);
    const runOn = (executor: string) => {
      const out = run('execute', planFile, '--backend', 'cuda', '--executor', executor, '--random-inputs', '7', '--check', '--json',
        '--outputs', join(dir, executor));
      expect(out.code, out.stderr).toBe(0);
      return JSON.parse(out.stdout) as ExecuteJson;
    };
    const gpu = runOn('cuda');
    const ref = runOn('reference');
    expect(gpu).toMatchObject({ executor: 'cuda', backend: 'cuda', exitCode: 0 });
    expect(gpu.trace.verified).toBe(true);
    expect(gpu.oracle).toMatchObject({ checked: true, identical: true });
    expect(gpu.outputs.map((o) => o.name)).toEqual(GRAPH.outputs);
    const values = (executor: string, name: string, dtype: string): number[] => {
      const bytes = readFileSync(join(dir, executor, `${name}.bin`));
      if (dtype === 'fp32') return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
      expect(dtype).toBe('bf16');
      return Array.from(new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2), (h) => new Float32Array(new Uint32Array([h << 16]).buffer)[0]);
    };
    for (const o of gpu.outputs) {
      const [a, b] = [values('cuda', o.name, o.dtype), values('reference', o.name, o.dtype)];
      const worst = Math.max(...a.map((v, i) => Math.abs(v - b[i]) / Math.max(1, Math.abs(b[i]))));
      expect(worst, o.name).toBeLessThanOrEqual(o.dtype === 'fp32' ? 1e-3 : 3e-2);
    }
    expect(ref.outputs.map((o) => o.name)).toEqual(GRAPH.outputs);
  });
});

describe.runIf(BOTH_BACKENDS)('tensorplan execute parity', () => {
  it('WASM and native read the same inputs and give identical outputs for ops without exp/tanh', () => {
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [
        { name: 'x', shape: [16, 32], dtype: 'bf16' }, { name: 'w', shape: [24, 32], dtype: 'fp16' }, { name: 'b', shape: [24], dtype: 'fp32' },
        { name: 'h', shape: [16, 24], dtype: 'fp32' }, { name: 'hb', shape: [16, 24], dtype: 'bf16' }, { name: 'y', shape: [16, 24], dtype: 'bf16' },
        { name: 'ln_g', shape: [24], dtype: 'fp32' }, { name: 'z', shape: [16, 24], dtype: 'fp32' },
      ],
      ops: [
        { name: 'mm', op: 'matmul', inputs: ['x', 'w'], outputs: ['h'], attributes: { transposeB: true } },
        { name: 'bias', op: 'add', inputs: ['h', 'b'], outputs: ['hb'] },
        { name: 'act', op: 'relu', inputs: ['hb'], outputs: ['y'] },
        { name: 'norm', op: 'rmsnorm', inputs: ['y', 'ln_g'], outputs: ['z'] },
      ],
      inputs: ['x'], outputs: ['y', 'z'], persistent: ['w', 'b', 'ln_g'],
    };
    const dir = mkdtempSync(join(tmpdir(), 'tp-execute-parity-'));
    const file = join(dir, 'graph.json');
    const plan = join(dir, 'plan.json');
    writeFileSync(file, JSON.stringify(graph));
    expect(run('plan', file, '-o', plan, '--backend', 'wasm').code).toBe(0);
    const [wasm, native] = ['wasm', 'native'].map((backend) => {
      const out = run('execute', plan, '--backend', backend, '--random-inputs', '9', '--check', '--json');
      expect(out.code, out.stderr).toBe(0);
      return JSON.parse(out.stdout) as ExecuteJson;
    });
    expect(native.inputs.map((i) => i.sha256)).toEqual(wasm.inputs.map((i) => i.sha256));
    expect(native.outputs).toEqual(wasm.outputs);
  });
});

describe('execute verdict', () => {
  it('a trace the verifier rejects makes the command exit 1', () => {
    const tp = session(BACKENDS[0]);
    const plan = tp.plan(GRAPH);
    const inputs = Object.fromEntries([...GRAPH.inputs!, ...GRAPH.persistent!].map((name) => {
      const t = GRAPH.tensors.find((z) => z.name === name)!;
      return [name, new Uint8Array(tp.bulkLayout([{ name, shape: t.shape!, dtype: t.dtype!, alignment: 1 }]).entries[0].bytes)];
    }));
    const { trace } = tp.executeReference(plan, inputs);
    expect(executionExitCode(tp.verifyTrace(GRAPH, plan.schedule, trace).length, null)).toBe(0);
    const tampered = trace.filter((e, k) => !(e.event === 'free' && k === trace.findIndex((z) => z.event === 'free')));
    const issues = tp.verifyTrace(GRAPH, plan.schedule, tampered);
    expect(issues.length).toBeGreaterThan(0);
    expect(executionExitCode(issues.length, null)).toBe(1);
  });

  it('firstDifference names the first output and byte that differ', () => {
    fc.assert(fc.property(fc.array(fc.uint8Array({ minLength: 1, maxLength: 64 }), { minLength: 1, maxLength: 4 }), fc.nat(), fc.nat(),
      (arrays, pick, at) => {
        const names = arrays.map((_, i) => `o${i}`);
        const a = Object.fromEntries(arrays.map((x, i) => [names[i], x]));
        const b = Object.fromEntries(arrays.map((x, i) => [names[i], Uint8Array.from(x)]));
        expect(firstDifference(names, a, b)).toBeNull();
        const k = pick % arrays.length;
        const byte = at % arrays[k].length;
        b[names[k]][byte] ^= 0x40;
        expect(firstDifference(names, a, b)).toEqual({ output: names[k], byte, got: a[names[k]][byte], expected: b[names[k]][byte] });
        expect(executionExitCode(0, firstDifference(names, a, b))).toBe(1);
      }));
  });
});

describe('.npy reader and writer', () => {
  it('reads the files NumPy wrote (format 1.0 and 2.0) to the bytes of arr.tobytes()', () => {
    for (const [name, descr, shape] of [['x-bf16', '<u2', [8, 16]], ['ln_gamma-fp32', '<f4', [16]], ['w1-bf16-v2', '<u2', [32, 16]]] as const) {
      const npy = parseNpy(new Uint8Array(readFileSync(fixture(`${name}.npy`))));
      expect(npy).toMatchObject({ descr, shape });
      expect(Buffer.from(npy.data).equals(readFileSync(fixture(`${name}.bin`)))).toBe(true);
    }
  });

  it('round-trips any shape and dtype; headers are 64-byte aligned', () => {
    const descrs = ['<f4', '<f2', '<f8', '<u2', '|u1', '|i1', '<i4', '<i8', '|b1'];
    fc.assert(fc.property(fc.constantFrom(...descrs), fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 4 }), fc.integer(), (descr, shape, seed) => {
      const size = Number(descr.slice(2)) * shape.reduce((a, b) => a * b, 1);
      const data = Uint8Array.from({ length: size }, (_, i) => (seed + i * 13) & 0xff);
      const file = encodeNpy(descr, shape, data);
      const back = parseNpy(file);
      expect(back.descr).toBe(descr);
      expect(back.shape).toEqual(shape);
      expect(Buffer.from(back.data).equals(Buffer.from(data))).toBe(true);
      expect((file.length - data.length) % 64).toBe(0);
    }));
  });

  it('rejects what it cannot read, saying why', () => {
    const header = (dict: string) => {
      const text = dict + ' '.repeat(64 - ((10 + dict.length + 1) % 64)) + '\n';
      return Uint8Array.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, text.length & 0xff, text.length >> 8, ...Buffer.from(text, 'latin1')]);
    };
    expect(() => parseNpy(header("{'descr': '>f4', 'fortran_order': False, 'shape': (0,), }"))).toThrow(/big-endian/);
    expect(() => parseNpy(header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (0,), }"))).toThrow(/structured/);
    expect(() => parseNpy(header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }"))).toThrow(/Fortran/);
    expect(() => parseNpy(header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"))).toThrow(/8 bytes\) but the file holds 0/);
    expect(existsSync(fixture('x-bf16.npy'))).toBe(true);
  });
});
