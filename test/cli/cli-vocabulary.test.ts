// One vocabulary everywhere. Recipe names, --backend, durations,
// colour, list options before the file argument, and errors that never echo a
// whole input file, each checked as a user meets them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYER_SPEC_SCHEMA_V1, RECIPES, init, parseLayerSpec } from '../../dist/index.mjs';
import { expandListOptions } from '../../src/cli/list-options';

const bin = new URL('../../bin/tensorplan.mjs', import.meta.url).pathname;
const example = (name: string) => new URL(`../../examples/${name}`, import.meta.url).pathname;
const doc = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

function run(args: string[], env: Record<string, string | undefined> = {}) {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

/** Every recipe name a user may write: the canonical ones, `bf16` right after `none`. */
const WORDS = RECIPES.flatMap((recipe: string) => (recipe === 'none' ? ['none', 'bf16'] : [recipe]));

describe('recipe names are one list', () => {
  it('the CLI offers exactly the names the layer-spec schema accepts', () => {
    const help = run(['describe', '--help']).stdout.replace(/\s+/g, ' ');
    const offered = [...(/--recipe <recipe>.*?\(choices: (.*?), default/.exec(help)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    expect(offered).toEqual(WORDS);
    const recipe = (LAYER_SPEC_SCHEMA_V1 as any).properties.recipe.oneOf;
    expect(recipe[0].enum).toEqual([...WORDS, 'fp8_block']);
    for (const role of ['inputs', 'weights', 'gradients']) expect(recipe[1].properties[role].enum).toEqual(WORDS);
  });

  it('the docs name every recipe the code accepts', () => {
    for (const file of ['formats.md', 'layer-specs.md']) {
      for (const word of WORDS) expect(doc(file), `${file} names ${word}`).toContain(`\`${word}\``);
    }
  });

  it.each(WORDS)('describe --recipe %s runs', (word) => {
    expect(run(['describe', '--shape', '64x64', '--recipe', word, '--backend', 'wasm', '--json']).code).toBe(0);
  });

  it('bf16 and none mean the same thing in the CLI, tensor formats, layer specs and JSON forms', async () => {
    const buffers = (word: string) => JSON.parse(run(['describe', '--shape', '128x256', '--recipe', word, '--backend', 'wasm', '--json']).stdout).buffers;
    expect(buffers('bf16')).toEqual(buffers('none'));
    const tp = await init({ backend: 'wasm' });
    for (const dtype of ['bf16', 'fp32', 'fp16'] as const) {
      const format = { shape: [32, 48], dtype };
      expect(tp.tensorSpecBuffers({ ...format, recipe: 'bf16' })).toEqual(tp.tensorSpecBuffers({ ...format, recipe: 'none' }));
      expect(tp.tensorSpecToJson({ ...format, recipe: 'bf16' })).toEqual(tp.tensorSpecToJson({ ...format, recipe: 'none' }));
    }
    const base = JSON.parse(readFileSync(example('llama3-8b-bf16.layers.json'), 'utf8'));
    const graph = (recipe: unknown) => tp.layerGraph(parseLayerSpec({ ...base, recipe })).graph;
    expect(graph('bf16')).toEqual(graph('none'));
    expect(graph({ inputs: 'bf16', weights: 'fp8_current', gradients: 'bf16' })).toEqual(graph({ inputs: 'none', weights: 'fp8_current', gradients: 'none' }));
  });

  it('a wrong recipe name lists the same names', async () => {
    const tp = await init({ backend: 'wasm' });
    expect(() => tp.tensorSpecBuffers({ shape: [4, 4], dtype: 'bf16', recipe: 'fp8' as never })).toThrow(`expected one of ${WORDS.join(', ')}`);
  });
});

describe('options mean the same in every command', () => {
  const commands = ['plan', 'fit', 'import', 'place', 'validate', 'execute', 'info', 'bulk', 'schedule', 'describe'];

  it('every command is listed here and takes --backend', () => {
    const help = run(['--help']).stdout;
    const listed = [...help.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]).filter((name) => name !== 'help');
    expect(listed.sort()).toEqual([...commands].sort());
    for (const command of commands) expect(run([command, '--help']).stdout, command).toMatch(/--backend <name>/);
  });

  it('every --time-limit is a duration (10s, 500ms), parsed alike', () => {
    for (const command of commands) {
      const help = run([command, '--help']).stdout;
      if (help.includes('--time-limit')) expect(help, command).toContain('--time-limit <duration>');
    }
    const schedule = run(['schedule', example('two-chains.graph.json'), '--time-limit', '500ms', '--backend', 'wasm', '--json']);
    expect(schedule.code, schedule.stderr).toBe(0);
    expect(run(['place', example('buffers.minimalloc.csv'), '--time-limit', '500ms', '--backend', 'wasm']).code).toBe(0);
    expect(run(['plan', example('two-chains.graph.json'), '--time-limit', '500ms', '--backend', 'wasm']).code).toBe(0);
    for (const command of [['schedule', example('two-chains.graph.json')], ['place', example('buffers.minimalloc.csv')], ['plan', example('two-chains.graph.json')]]) {
      const bad = run([...command, '--time-limit', 'soon', '--backend', 'wasm']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--time-limit "soon": expected a duration such as 10s, 500ms or 2m');
    }
  });
});

describe('list options end where the file argument starts', () => {
  it('expandListOptions repeats the option for each key=value word and stops at the first other word', () => {
    expect(expandListOptions(['plan', '--compare', 'a=b', 'c=d', 'f.json', '--json']))
      .toEqual(['plan', '--compare', 'a=b', '--compare', 'c=d', 'f.json', '--json']);
    expect(expandListOptions(['plan', '--compare', 'zz', 'f.json'])).toEqual(['plan', '--compare', 'zz', 'f.json']);
    expect(expandListOptions(['plan', '--input', 'x=1x3', '--', 'y=2'])).toEqual(['plan', '--input', 'x=1x3', '--', 'y=2']);
    expect(expandListOptions(['plan', '--input', 'x=1', '-o', 'p=q.json'])).toEqual(['plan', '--input', 'x=1', '-o', 'p=q.json']);
  });

  it('plan --compare a=b c=d FILE plans FILE with both alternatives', () => {
    const out = run(['plan', '--compare', 'recipe=bf16', 'recompute=on', example('llama3-8b-mxfp8-tp8sp.layers.json'), '--backend', 'wasm']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('recipe=bf16');
    expect(out.stdout).toContain('recompute=on');
  });

  it('import --input a=1 b=2 MODEL reads MODEL, with both bindings', () => {
    const model = new URL('../fixtures/official-writer.onnx', import.meta.url).pathname;
    const out = run(['import', '--input', 'N=2', 'M=3', model, '--backend', 'wasm', '--json']);
    // The bindings reach the importer (it names an unknown one) instead of eating the model path.
    expect(out.stderr).not.toContain("missing required argument");
    expect(out.code === 0 || /\bM\b/.test(out.stderr), out.stderr).toBe(true);
  });
});

describe('colour', () => {
  const ESC = '\u001b[';
  it('never in a pipe, even with FORCE_COLOR', () => {
    for (const env of [{ FORCE_COLOR: '1' }, { FORCE_COLOR: '1', NO_COLOR: '1' }]) {
      const out = run(['bulk', example('bulk-layout.json'), '--backend', 'wasm'], env);
      expect(out.code).toBe(0);
      expect(out.stdout).not.toContain(ESC);
    }
  });

  // util-linux `script` gives the command a terminal.
  const script = existsSync('/usr/bin/script') ? '/usr/bin/script' : null;
  it.skipIf(!script)(`on a terminal, and never with NO_COLOR${script ? '' : ' (skipped: no /usr/bin/script to make a terminal)'}`, () => {
    const onTty = (env: Record<string, string | undefined>) => {
      const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} bulk ${JSON.stringify(example('bulk-layout.json'))} --backend wasm`;
      // cli-table3 colours through @colors/colors, which also turns colour off when CI is set or
      // TERM is dumb; the terminal made here is a plain xterm outside any CI.
      const out = spawnSync(script!, ['-qec', command, '/dev/null'], {
        encoding: 'utf8', env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, CI: undefined, TERM: 'xterm', ...env },
      });
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).toContain('bulk layout of');
      return out.stdout;
    };
    expect(onTty({})).toContain(ESC);
    expect(onTty({ NO_COLOR: '1' })).not.toContain(ESC);
    expect(onTty({ NO_COLOR: '1', FORCE_COLOR: '1' })).not.toContain(ESC);
  });
});

describe('errors never echo a whole input file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tensorplan-echo-'));
  // Each file is 20 kB or more; a message may quote a value (cut to about 200
  // characters by `shown`), never the file.
  const marker = 'ECHO'.repeat(5);
  const files: [string, string][] = ([
    ['not JSON', `${marker}\n${'key: value\n'.repeat(2000)}`],
    ['JSON of the wrong type', JSON.stringify(`${marker}${'y'.repeat(50_000)}`)],
    ['a graph whose tensors are a string', JSON.stringify({ format: 'tensorplan.graph', version: 1, tensors: `${marker}${'z'.repeat(50_000)}` })],
    ['a graph with a long tensor name', JSON.stringify({ format: 'tensorplan.graph', version: 1, tensors: [{ name: marker.repeat(1200), bytes: -1 }], ops: [] })],
    ['a plan whose graph is a string', JSON.stringify({ format: 'tensorplan.plan', version: 1, graph: `${marker}${'q'.repeat(50_000)}` })],
    ['a bad CSV', `id,lower,upper,size\n${`${marker},x,y\n`.repeat(2000)}`],
  ] as [string, string][]).map(([what, text]) => {
    expect(text.length).toBeGreaterThan(20_000);
    return [what, text];
  });
  const commands = [['plan'], ['schedule'], ['validate'], ['execute'], ['bulk'], ['place']];
  it.each(files)('%s', (_what, text) => {
    const file = join(dir, `input-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, text);
    for (const command of commands) {
      const out = run([...command, file, '--backend', 'wasm']);
      expect(out.code, `${command[0]}: ${out.stderr}`).toBe(2);
      expect(out.stderr.length, `${command[0]}: ${out.stderr.slice(0, 300)}`).toBeLessThan(600);
      expect(out.stderr.split('\n').filter(Boolean).length, command[0]).toBe(1);
    }
  });
});
