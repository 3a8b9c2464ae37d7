// Bad input never shows a stack trace on the CLI and always exits 2.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/tensorplan.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tp-bad-input-'));

function run(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
}

describe('tensorplan with malformed input', () => {
  const cases: [string, string, string][] = [
    ['a plan without its schedule', 'plan.json', JSON.stringify({ format: 'tensorplan.plan', version: 1, graph: { path: 'x' } })],
    ['a layer spec with 2^30 groups', 'spec.layers.json', JSON.stringify({
      format: 'tensorplan.layers', version: 1, model: { hidden: 256, ffn: 512, heads: 4, sequence: 128, microBatch: 1 },
      layers: [{ kind: 'groupedLinear', groups: 2 ** 30, outFeatures: 256 }],
    })],
    ['a deeply nested graph', 'deep.graph.json', `${'['.repeat(100000)}${']'.repeat(100000)}`],
  ];
  it.each(cases)('%s: exit 2, one line naming the problem, no stack trace', (_, name, text) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    const out = run(name.startsWith('plan') ? 'validate' : 'plan', path);
    expect(out.status, out.stderr).toBe(2);
    expect(out.stderr).toMatch(/^tensorplan: /);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });
});

/** Exit 2, the first stderr line "tensorplan: ...", no stack trace, and not an internal error. */
function expectBadInput(out: ReturnType<typeof run>, what: string) {
  expect(out.status, `${what}\n${out.stderr}`).toBe(2);
  expect(out.stderr, what).toMatch(/^tensorplan: \S/);
  expect(out.stderr, what).not.toMatch(/\n\s+at /);
  expect(out.stderr, what).not.toMatch(/internal error/);
}

describe('every subcommand with a broken input file', () => {
  const onnx = readFileSync(new URL('../fixtures/official-writer.onnx', import.meta.url));
  const files: Record<string, string | Buffer> = {
    'malformed.json': '{"format": "tensorplan.graph", "version": 1, "tensors": [',
    'schema-invalid.json': JSON.stringify({ format: 'tensorplan.graph', version: 1, tensors: 'x', ops: [] }),
    // JSON has no BigInt: a 30-digit integer is read as a double far past 2^53.
    'bigint.json': '{"format": "tensorplan.graph", "version": 1, "tensors": [{"name": "x", "bytes": 123456789012345678901234567890}], '
      + '"ops": [], "inputs": ["x"], "outputs": ["x"]}',
    'bigint.csv': 'id,lower,upper,size\na,0,1,123456789012345678901234567890\n',
    'truncated.onnx': onnx.subarray(0, 40),
    'empty.json': '',
  };
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  const commands = ['plan', 'import', 'place', 'validate', 'execute', 'bulk', 'schedule'];
  const cases = commands.flatMap((command) => [...Object.keys(files), 'missing.json'].map((file) => [command, file] as const));

  it.each(cases)('%s %s: exit 2, one line naming the problem, no stack trace', (command, file) => {
    expectBadInput(run(command, join(dir, file)), `${command} ${file}`);
  });
});

describe('bad options and inputs beside a good file', () => {
  const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));
  const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
  const planFile = join(dir, 'two-chains.plan.json');
  const npy = join(dir, 'bad.npy');
  writeFileSync(npy, 'not a .npy file');
  const made = run('plan', example('two-chains.graph.json'), '-o', planFile);
  const cases: [string, string[]][] = [
    // An ONNX node in a signature its opset does not have is bad input too, not an internal error.
    ['an ONNX Squeeze with an axes attribute at opset 13', ['plan', fixture('opset/squeeze-13-attribute.onnx')]],
    ['an ONNX Clip with min/max inputs at opset 6', ['import', fixture('opset/clip-6-input.onnx')]],
    ['execute with a broken .npy input', ['execute', planFile, '--input', `x=${npy}`]],
    ['execute with an input the graph does not have', ['execute', planFile, '--input', `nope=${npy}`]],
    ['validate with a missing --graph', ['validate', planFile, '--graph', join(dir, 'missing.json')]],
    ['validate with a malformed --graph', ['validate', planFile, '--graph', join(dir, 'malformed.json')]],
    ['describe with a shape that is not dims', ['describe', '--shape', 'abc']],
    ['describe with a grouped member that is not dims', ['describe', '--grouped', 'x']],
    ['info with an unknown backend', ['info', '--backend', 'gpu']],
    ['an unknown command', ['frob']],
    ['plan without its argument', ['plan']],
    ['place with a time limit that is not a duration', ['place', example('buffers.minimalloc.csv'), '--time-limit', 'abc']],
    ['plan with a budget that is not a size', ['plan', example('two-chains.graph.json'), '--budget', 'xyz']],
    ['plan with a fusion of an unknown op', ['plan', example('two-chains.graph.json'), '--check-fusion', 'p1,zz']],
    ['plan with a layer alternative that is not key=value', ['plan', example('llama3-8b-bf16.layers.json'), '--compare', 'zz']],
    ['schedule with an unknown method', ['schedule', example('two-chains.graph.json'), '--method', 'nope']],
    ['import with a binding that is not a number', ['import', fixture('official-writer.onnx'), '--input', 'N=abc']],
  ];
  it.each(cases)('%s: exit 2, one line, no stack trace', (what, args) => {
    expect(made.status, made.stderr).toBe(0);
    expectBadInput(run(...args), what);
  });
});
