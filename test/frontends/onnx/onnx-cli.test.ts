// `tensorplan import` and `tensorplan plan MODEL.onnx` as a user runs them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importOnnx, parseGraph } from '../../../dist/index.mjs';
import { T, onnxModel, oneNode, weight } from './onnx-models.mjs';
import { transformerBlock } from './onnx-zoo.mjs';

const bin = new URL('../../../bin/tensorplan.mjs', import.meta.url).pathname;
const run = (...args: string[]) => {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
};
const dir = mkdtempSync(join(tmpdir(), 'tp-onnx-'));
const file = (name: string, bytes: Uint8Array) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

describe('tensorplan import / plan MODEL.onnx', () => {
  const block = file('block.onnx', transformerBlock());

  it('import -o writes a graph file equal to the library import, symbols bound with --input', () => {
    const out = join(dir, 'block.json');
    const r = run('import', block, '--input', 'batch=2', '--input', 'seq=64', '-o', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/opset 17.*views/s);
    const written = parseGraph(JSON.parse(readFileSync(out, 'utf8')));
    expect(written).toEqual(importOnnx(transformerBlock(), { dims: { batch: 2, seq: 64 }, source: block }).graph);
    expect(written.tensors.find((t) => t.name === 'x')?.shape).toEqual([2, 64, 256]);
  });

  it('a whole input shape by input name; --in-place adds in-place aliases', () => {
    const r = run('import', block, '--input', 'x=1x32x256', '--in-place', '--json', '-o', join(dir, 'b2.json'));
    expect(r.code).toBe(0);
    const facts = JSON.parse(r.stdout);
    expect(facts.inPlace).toBeGreaterThan(0);
    expect(facts.opset).toBe(17);
  });

  it('plan MODEL.onnx works like a graph file, with --report and --json', () => {
    const report = join(dir, 'block.html');
    const r = run('plan', block, '--input', 'batch=1', '--input', 'seq=32', '--report', report, '--json');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.arenaBytes).toBeGreaterThanOrEqual(s.lowerBoundBytes);
    expect(s.persistentBytes).toBeGreaterThan(0);
    expect(readFileSync(report, 'utf8')).toContain('<html');
    const human = run('plan', block, '--input', 'batch=1', '--input', 'seq=32');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/imported .*block\.onnx/);
    expect(human.stdout).toMatch(/arena/);
  });

  it('bad input exits 2 with a message naming the problem', () => {
    expect(run('plan', block)).toMatchObject({ code: 2, stderr: expect.stringMatching(/bind the symbolic dimension "batch"/) });
    expect(run('import', block, '--input', 'x=1x2y')).toMatchObject({ code: 2, stderr: expect.stringMatching(/expected NAME=DxDx/) });
    expect(run('import', block, '--input', 'nope=2x2')).toMatchObject({ code: 2, stderr: expect.stringMatching(/no graph input "nope"/) });
    expect(run('import', join(dir, 'missing.onnx'))).toMatchObject({ code: 2, stderr: expect.stringMatching(/cannot read/) });
    const unknown = file('nz.onnx', oneNode('NonZero', { x: [4] }, { opset: 8 }));
    expect(run('plan', unknown)).toMatchObject({ code: 2, stderr: expect.stringMatching(/\(NonZero\): cannot infer/) });
    const dynIf = file('if.onnx', onnxModel({
      nodes: [{ op: 'If', inputs: ['c'], outputs: ['y'], name: 'branch', attrs: {
        then_branch: { graph: { nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['a'] }], outputs: [{ name: 'a' }] } },
        else_branch: { graph: { nodes: [{ op: 'Neg', inputs: ['x'], outputs: ['b'] }], outputs: [{ name: 'b' }] } },
      } }],
      inputs: [{ name: 'c', shape: [], type: T.BOOL }, { name: 'x', shape: [3] }],
      initializers: [weight('unused', [1])],
      outputs: [{ name: 'y' }],
    }));
    // A data-dependent If plans (both branches as subgraphs); naming an If it lacks is an error that lists its Ifs.
    expect(run('plan', dynIf)).toMatchObject({ code: 0, stdout: expect.stringMatching(/If "branch": workspace 0 B from its then_branch/) });
    expect(run('plan', dynIf, '--branch', 'brnch=then')).toMatchObject({ code: 2, stderr: expect.stringMatching(/no If node "brnch" \(If nodes: "branch"\)/) });
    expect(run('plan', join(dir, 'block.json'), '--input', 'x=1')).toMatchObject({ code: 2, stderr: expect.stringMatching(/ONNX models/) });
  });
});
