// `tensorplan place`: what it says about optimality. A proved height is
// "proved optimal"; any other is "not proved", with the proved bound and the
// best height found, in the text and in --json.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const bin = new URL('../../bin/tensorplan.mjs', import.meta.url).pathname;
const small = new URL('../../examples/buffers.minimalloc.csv', import.meta.url).pathname;
// A sparse perfect packing (core-cpp/src/placement/perfect_packing.cpp, family
// "sparse"): its optimum is its lower bound, which 1 s of search neither
// reaches nor proves.
const hard = new URL('../../bench/data/perfect-packings/sparse/pp-600-s9001.1048576.csv', import.meta.url).pathname;

function run(...args: string[]) {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

describe('tensorplan place: proved or not proved', () => {
  it('a height proved optimal says so, in the text and in --json', () => {
    const text = run('place', small, '--minimize');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('proved optimal');
    const json = JSON.parse(run('place', small, '--minimize', '--json').stdout);
    expect(json).toMatchObject({ optimality: 'proved optimal', provedOptimal: true });
    expect(json.provedLowerBound).toBe(json.height);
  });

  it('a height not proved says "not proved" with the bound and the best height', () => {
    const json = JSON.parse(run('place', hard, '--minimize', '--time-limit', '1s', '--json').stdout);
    expect(json).toMatchObject({ optimality: 'not proved', provedOptimal: false, feasible: true });
    expect(json.provedLowerBound).toBeLessThan(json.height);
    const text = run('place', hard, '--minimize', '--time-limit', '1s');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/not proved: bound 1,048,576 B \(1\.00 MiB\), best [\d,]+ B/);
    expect(text.stdout).not.toContain('>=');
  });

  it('--threads runs the search as a portfolio (one worker on WASM) and is checked', () => {
    const json = JSON.parse(run('place', small, '--minimize', '--threads', '2', '--json').stdout);
    expect(json).toMatchObject({ optimality: 'proved optimal' });
    expect([1, 2]).toContain(json.threads);
    const bad = run('place', small, '--minimize', '--threads', 'many');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--threads "many": expected a whole number');
    const tooMany = run('place', small, '--minimize', '--threads', '1000');
    expect(tooMany.code).not.toBe(0);
    expect(tooMany.stderr).toContain('threads = 1000: must be in [0, 256]');
  });
});
