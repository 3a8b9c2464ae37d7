// `tensorplan plan|import MODEL.pt2` as a user runs them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTorchExport, parseGraph } from '../../../dist/index.mjs';

const bin = new URL('../../../bin/tensorplan.mjs', import.meta.url).pathname;
const fixtures = new URL('../../fixtures/torch/', import.meta.url).pathname;
const measured = JSON.parse(readFileSync(`${fixtures}measured.json`, 'utf8')).fixtures as Record<string, { peakBytes: number }>;
const run = (...args: string[]) => {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
};
const dir = mkdtempSync(join(tmpdir(), 'tp-torch-cli-'));

describe('tensorplan plan / import MODEL.pt2', () => {
  const mlp = `${fixtures}mlp_aten.pt2`;

  it('plan --alignment 1 --baselines --json: given peak + persistent is PyTorch\'s eager peak', () => {
    const r = run('plan', mlp, '--alignment', '1', '--baselines', '--json', '--backend', 'wasm');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.schedule.baselines.given + s.persistentBytes).toBe(measured.mlp_aten.peakBytes);
  });

  it('plan prints the import summary with the storage categories', () => {
    const r = run('plan', `${fixtures}attention_joint.pt2`, '--backend', 'wasm');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/imported .*attention_joint\.pt2 \(torch 2\.13\.0\+cpu, schema 8\.20, ATEN, joint forward \+ backward\): \d+ nodes -> \d+ ops/);
    expect(r.stdout).toMatch(/storages: .*saved for backward \d+ B/);
    expect(r.stdout).toMatch(/alignment 512 B/);
  });

  it('plan --report splits the timeline by the import\'s categories (saved for backward, gradients)', () => {
    const html = join(dir, 'attention.html');
    const r = run('plan', `${fixtures}attention_joint.pt2`, '--report', html, '--backend', 'wasm');
    expect(r.code).toBe(0);
    const text = readFileSync(html, 'utf8');
    for (const category of ['saved for backward', 'gradients', 'activations']) expect(text).toContain(`"name":"${category}"`);
  });

  it('import -o writes the graph the library makes', () => {
    const out = join(dir, 'mlp.json');
    const r = run('import', mlp, '-o', out, '--alignment', '1');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/graph written to/);
    const graph = parseGraph(JSON.parse(readFileSync(out, 'utf8')));
    expect(graph).toEqual(importTorchExport(new Uint8Array(readFileSync(mlp)), { alignment: 1, source: mlp }).graph);
  });

  it('refuses a bad --alignment, ONNX-only options on a .pt2, and --alignment on a graph file', () => {
    expect(run('plan', mlp, '--alignment', '3')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--alignment 3: expected a power of two/) });
    expect(run('import', mlp, '--value', 'x=1')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--value.*apply to ONNX models only/) });
    const graph = join(dir, 'g.json');
    run('import', mlp, '-o', graph);
    expect(run('plan', graph, '--alignment', '1')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--alignment, --custom-op and --optimizer apply to torch\.export programs/) });
  });
});
