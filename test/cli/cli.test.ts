// The tensorplan command as a user runs it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BACKENDS, CUDA, SKIPPED_ON_GPU_HOST, SKIPPED_WITHOUT_GPU } from '../support/backends';

const bin = new URL('../../bin/tensorplan.mjs', import.meta.url).pathname;
const example = new URL('../../examples/bulk-layout.json', import.meta.url).pathname;
const twoChains = new URL('../../examples/two-chains.graph.json', import.meta.url).pathname;

function run(...args: string[]) {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

describe('tensorplan CLI', () => {
  it('--version and --help', () => {
    expect(run('--version')).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
    const help = run('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('info');
    expect(help.stdout).toContain('bulk');
  });

  it('info --json lists wasm available and cuda with a reason or a device', () => {
    const out = run('info', '--json');
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout);
    const byName = Object.fromEntries(report.backends.map((b: { name: string }) => [b.name, b]));
    expect(byName.wasm.available).toBe(true);
    expect(byName.cuda.available || byName.cuda.reason.length > 0).toBe(true);
  });

  it('info prints a human summary', () => {
    const out = run('info');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/backend in use: (cuda|native|wasm)/);
  });

  it.each(['wasm', 'native'])('bulk prints the example layout on %s', (backend) => {
    const out = run('bulk', example, '--json', '--backend', backend);
    if (backend === 'native' && out.code !== 0 && out.stderr.includes('unavailable')) return;
    expect(out.code, out.stderr).toBe(0);
    const layout = JSON.parse(out.stdout);
    expect(layout.backend).toBe(backend);
    expect(layout.entries[1].offset).toBe(15360);
    expect(layout.entries[2].separateAllocation).toBe(true);
    expect(layout.allocationBytes).toBe(layout.usedBytes + 256);
  });

  it('bad input exits 2 with a message naming the problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-cli-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ tensors: [{ shape: [4], dtype: 'fp32', alignment: 0 }] }));
    expect(run('bulk', bad)).toMatchObject({ code: 2, stderr: expect.stringContaining('tensors[0].alignment = 0: must be an integer >= 1') });
    expect(run('bulk', join(dir, 'missing.json'))).toMatchObject({ code: 2, stderr: expect.stringContaining('ENOENT') });
    writeFileSync(bad, '{ not json');
    expect(run('bulk', bad)).toMatchObject({ code: 2, stderr: expect.stringContaining('not valid JSON') });
    expect(run('frobnicate').code).toBe(2);
    expect(run('info', '--backend', 'gpu').code).toBe(2);
  });

  it.skipIf(CUDA.available)(`--backend cuda without a GPU fails loudly instead of falling back${SKIPPED_ON_GPU_HOST}`, () => {
    const out = run('bulk', example, '--backend', 'cuda');
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("backend 'cuda' is unavailable");
  });

  it.runIf(CUDA.available)(`--backend cuda on a GPU host plans on it${SKIPPED_WITHOUT_GPU}`, () => {
    const out = run('bulk', example, '--backend', 'cuda', '--json');
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).backend).toBe('cuda');
  });

  it.each(['wasm', 'native'])('schedule orders the two-chains example on %s', (backend) => {
    const out = run('schedule', twoChains, '--json', '--backend', backend);
    if (backend === 'native' && out.code !== 0 && out.stderr.includes('unavailable')) return;
    expect(out.code, out.stderr).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report.schedule.baselines.given.peakBytes).toBe(2 * 1048576 + 256);
    expect(report.schedule.peakBytes).toBe(1048576 + 512);
    expect(report.schedule.provedOptimal).toBe(true);
    expect(report.liveness.peakContributors[0].owner).toMatch(/^big[12]$/);
    const human = run('schedule', twoChains, '--method', 'xla-best', '--backend', backend);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('xla-post-order');
  });

  it('schedule rejects a cyclic graph and a bad method with exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-cli-'));
    const cyclic = join(dir, 'cycle.json');
    writeFileSync(cyclic, JSON.stringify({
      format: 'tensorplan.graph', version: 1,
      tensors: [{ name: 'p', bytes: 8 }, { name: 'q', bytes: 8 }],
      ops: [{ name: 'left', op: 'f', inputs: ['q'], outputs: ['p'] }, { name: 'right', op: 'f', inputs: ['p'], outputs: ['q'] }],
    }));
    expect(run('schedule', cyclic)).toMatchObject({ code: 2, stderr: expect.stringContaining('cycle') });
    expect(run('schedule', twoChains, '--method', 'magic')).toMatchObject({ code: 2, stderr: expect.stringContaining('--method magic') });
  });
});

describe('tensorplan plan / validate', () => {
  const graph = new URL('../../examples/moe-layer.json', import.meta.url).pathname;

  it('plans an example: summary, plan file, report; the plan validates', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-plan-'));
    const planFile = join(dir, 'plan.json');
    const report = join(dir, 'report.html');
    const out = run('plan', graph, '-o', planFile, '--report', report, '--baselines');
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('arena / LB');
    expect(out.stdout).toContain('baselines, measured in the same run');
    expect(out.stdout).toContain('alive at the peak');
    expect(readFileSync(report, 'utf8')).toContain('<!doctype html>');
    expect(run('validate', planFile)).toMatchObject({ code: 0, stdout: expect.stringContaining('valid') });
  });

  it('--json prints the statistics', () => {
    const out = run('plan', graph, '--json', '--baselines');
    expect(out.code).toBe(0);
    const stats = JSON.parse(out.stdout);
    for (const key of ['peakBytes', 'arenaBytes', 'lowerBoundBytes', 'timeMs']) expect(typeof stats[key], key).toBe('number');
    expect(Object.keys(stats.schedule.baselines)).toContain('inductor-lpmf');
    expect(stats.arenaBytes).toBeGreaterThanOrEqual(stats.lowerBoundBytes);
  });

  it('a hand-corrupted plan exits 1 and names the problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-plan-'));
    const planFile = join(dir, 'plan.json');
    expect(run('plan', graph, '-o', planFile, '--json').code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8'));
    const permuted = plan.storages.find((s: { tensors: string[] }) => s.tensors[0] === 'permuted');
    permuted.offset += 64;
    writeFileSync(planFile, JSON.stringify(plan));
    const out = run('validate', planFile);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('MISALIGNED');
    expect(out.stdout).toContain('storage of "permuted"');
    const json = JSON.parse(run('validate', planFile, '--json').stdout);
    expect(json.valid).toBe(false);
    expect(json.diagnostics[0]).toMatchObject({ code: 'MISALIGNED', storages: ['permuted'] });
  });

  it('a plan that references its graph finds it relative to the plan file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-plan-'));
    const planFile = join(dir, 'plan.json');
    expect(run('plan', graph, '-o', planFile, '--reference-graph').code).toBe(0);
    expect(JSON.parse(readFileSync(planFile, 'utf8')).graph).toEqual({ path: expect.stringMatching(/moe-layer\.json$/) });
    expect(run('validate', planFile).code).toBe(0);
  });

  it('over budget exits 1 and says by how much', () => {
    const out = run('plan', graph, '--budget', '100MiB');
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/DOES NOT FIT the budget of .*: over by /);
    expect(run('plan', graph, '--budget', '80GiB').code).toBe(0);
  });

  it('bad input exits 2', () => {
    expect(run('plan', graph, '--budget', 'lots')).toMatchObject({ code: 2, stderr: expect.stringContaining('--budget "lots"') });
    expect(run('plan', graph, '--time-limit', 'soon')).toMatchObject({ code: 2, stderr: expect.stringContaining('--time-limit "soon"') });
    expect(run('validate', graph)).toMatchObject({ code: 2, stderr: expect.stringContaining('format: must be "tensorplan.plan"') });
    const dir = mkdtempSync(join(tmpdir(), 'tp-plan-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'tensorplan.graph', version: 1, tensors: [], ops: [{ name: 'a', op: 'x', inputs: ['nope'], outputs: [] }] }));
    expect(run('plan', bad)).toMatchObject({ code: 2, stderr: expect.stringContaining('ops[0].inputs[0] = "nope": unknown tensor') });
  });
});

describe('tensorplan place', () => {
  const csv = new URL('../../examples/buffers.minimalloc.csv', import.meta.url).pathname;

  it('places a MiniMalloc CSV; --json has the documented keys; -o writes offsets', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-place-'));
    const output = join(dir, 'out.csv');
    const out = run('place', csv, '--json', '-o', output, '--minimize');
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout);
    for (const key of ['height', 'lowerBound', 'proved', 'feasible', 'timeMs', 'algorithm']) expect(result, key).toHaveProperty(key);
    expect(result.height).toBe(result.lowerBound);
    const lines = readFileSync(output, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('id,lower,upper,size,offset');
    expect(lines).toHaveLength(11);
  });

  it('exit 1 when a capacity is proved infeasible, 0 when it fits', () => {
    expect(run('place', csv, '--capacity', '11000').code).toBe(1);
    expect(run('place', csv, '--capacity', '11776').code).toBe(0);
  });

  it.each(BACKENDS)('--capacity 0 is a capacity of 0 bytes on %s: buffers of > 0 bytes do not fit (proved, exit 1); empty buffers fit', (backend) => {
    const zero = run('place', csv, '--capacity', '0', '--json', '--backend', backend);
    expect(zero.code, zero.stderr).toBe(1);
    expect(JSON.parse(zero.stdout)).toMatchObject({ capacity: 0, feasible: false, provedInfeasible: true });
    expect(run('place', csv, '--capacity', '0', '--backend', backend).stdout).toContain('no placement fits the capacity 0 B (proved)');
    const none = run('place', csv, '--json', '--backend', backend);
    expect(none.code, none.stderr).toBe(0);
    expect(JSON.parse(none.stdout)).toMatchObject({ feasible: true });
    const dir = mkdtempSync(join(tmpdir(), 'tp-place-'));
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, 'id,lower,upper,size\na,0,2,0\nb,1,3,0\n');
    const fits = run('place', empty, '--capacity', '0', '--json', '--backend', backend);
    expect(fits.code, fits.stderr).toBe(0);
    expect(JSON.parse(fits.stdout)).toMatchObject({ height: 0, feasible: true });
  });

  it('exit 2 for bad input, naming the line and column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-place-'));
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'id,lower,upper,size\na,0,1,4\nb,0,oops,4\n');
    expect(run('place', bad)).toMatchObject({ code: 2, stderr: expect.stringContaining('bad.csv:3: column "upper" = "oops"') });
  });
});

describe('tensorplan plan --check-fusion', () => {
  // The accumulation pattern total = total + x_i: fusing all the adds makes one op read every x_i at once.
  const graph = {
    format: 'tensorplan.graph', version: 1, name: 'accumulate',
    tensors: [{ name: 't0', bytes: 1024 }, ...[1, 2, 3, 4].flatMap((i) => [{ name: `x${i}`, bytes: 1 << 20 }, { name: `t${i}`, bytes: 1024 }])],
    ops: [1, 2, 3, 4].flatMap((i) => [
      { name: `make${i}`, op: 'randn', inputs: [], outputs: [`x${i}`] },
      { name: `add${i}`, op: 'add', inputs: [`t${i - 1}`, `x${i}`], outputs: [`t${i}`] },
    ]),
    inputs: ['t0'], outputs: ['t4'],
  };

  it('rejects fusing the accumulation chain when it raises the peak or reads too much; accepts a harmless fusion', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-fuse-'));
    const file = join(dir, 'accumulate.json');
    writeFileSync(file, JSON.stringify(graph));
    const all = JSON.parse(run('plan', file, '--json', '--check-fusion', 'add1,add2,add3,add4', '--max-fused-read', '2MiB').stdout);
    expect(all.fusion.accepted).toBe(false);
    expect(all.fusion.readsTooLarge).toBe(true);
    const human = run('plan', file, '--check-fusion', 'add1,add2,add3,add4', '--max-fused-read', '2MiB');
    expect(human.stdout).toMatch(/fusion of add1, add2, add3, add4: rejected: .*read/);
    const pair = JSON.parse(run('plan', file, '--json', '--check-fusion', 'make1,add1').stdout);
    expect(pair.fusion.accepted).toBe(true);
    expect(pair.fusion.peakAfterBytes).toBeLessThanOrEqual(pair.fusion.peakBeforeBytes);
  });
});
