// Every `@example` in a doc comment under src/, and every js block of the
// reference's getting-started page (docs/api-guide/getting-started.md), is correct code, so the
// API reference cannot rot. Each block is a whole ES module as a user would paste it (it imports
// from 'tensorplan'); it runs in node in a temporary project whose node_modules/tensorplan is
// this package with init() defaulting to the WASM backend (every machine has it, and the
// numbers the examples claim are the same on every backend). Lines `// expr === value` are
// claims, checked after the example ran. The project holds model.onnx (test/fixtures/
// official-writer.onnx: input x [N, 3, 8, 8]) for the ONNX examples. Modelled on
// test/package/readme-snippet.test.ts, which does the same for the README's snippet.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(REPOSITORY, 'src');

interface Example {
  /** `src/file.ts: Name` or `src/file.ts: Class.method`. */
  where: string;
  /** The documented declaration: `init`, `Tensorplan.plan`, `GraphBuilder`. */
  name: string;
  code: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The name a doc comment documents: the declaration right after it (a method is qualified by its class). */
function documentedName(text: string, end: number): string {
  const after = text.slice(end).replace(/^\s+/, '');
  const top = /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:class|function|const|let|interface|type)\s+([A-Za-z_$][\w$]*)/.exec(after);
  if (top) return top[1];
  const member = /^(?:(?:public|static|async|get|readonly)\s+)*([A-Za-z_$][\w$]*)\s*[(<:]/.exec(after);
  if (!member) return '?';
  const before = text.slice(0, end);
  const classes = [...before.matchAll(/^export\s+(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/gm)];
  const owner = classes.at(-1)?.[1];
  return owner ? `${owner}.${member[1]}` : member[1];
}

/** Every ```ts block that follows an `@example` tag, with the declaration it documents. */
function examples(): Example[] {
  const found: Example[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const comment of text.matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
      if (!comment[1].includes('@example')) continue;
      const lines = comment[1].split('\n').map((line) => line.replace(/^\s*\*( |$)/, ''));
      const body = lines.join('\n');
      const name = documentedName(text, comment.index + comment[0].length);
      // An example runs from its tag to the next block tag; its code is the fenced blocks in it.
      for (const tag of body.split(/^@example\b/m).slice(1)) {
        const section = tag.split(/^@\w+/m)[0];
        const blocks = [...section.matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)];
        if (blocks.length === 0) throw new Error(`${relative(REPOSITORY, file)}: ${name}: @example without a \`\`\`ts block`);
        for (const block of blocks) found.push({ where: `${relative(REPOSITORY, file)}: ${name}`, name, code: block[1] });
      }
    }
  }
  // The getting-started page of the reference (typedoc.json) makes the same promise.
  const guide = join(REPOSITORY, 'docs', 'api-guide', 'getting-started.md');
  [...readFileSync(guide, 'utf8').matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)].forEach((block, i) => {
    found.push({ where: `${relative(REPOSITORY, guide)}: code block ${i + 1}`, name: 'getting-started', code: block[1] });
  });
  return found;
}

/** `// expr === value` lines: one claim each. */
function claims(code: string): string[] {
  return [...code.matchAll(/^\s*\/\/ (.+ === .+)$/gm)].map((m) => m[1].trim());
}

/** A temporary project whose `tensorplan` is this package, with init() on WASM unless a backend is named. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tensorplan-examples-'));
  const pkg = join(dir, 'node_modules', 'tensorplan');
  mkdirSync(pkg, { recursive: true });
  const dist = pathToFileURL(join(REPOSITORY, 'dist', 'index.mjs')).href;
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'tensorplan', type: 'module', exports: { '.': './index.mjs' } }));
  writeFileSync(join(pkg, 'index.mjs'), [
    `import { init as initAny } from ${JSON.stringify(dist)};`,
    `export * from ${JSON.stringify(dist)};`,
    '// A local export shadows the star export of the same name.',
    "export const init = (options) => initAny({ backend: 'wasm', ...options });",
    '',
  ].join('\n'));
  copyFileSync(join(REPOSITORY, 'test', 'fixtures', 'official-writer.onnx'), join(dir, 'model.onnx'));
  return dir;
}

function run(dir: string, file: string, code: string): { status: number | null; stdout: string; stderr: string } {
  const checks = claims(code).map((claim) => `if (!(${claim})) throw new Error(${JSON.stringify(`claim is false: ${claim}`)});`);
  writeFileSync(join(dir, file), `${code}\n${checks.join('\n')}\nconsole.log('example ran');\n`);
  return spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
}

const ALL = examples();
// The main entry points each carry an example.
const REQUIRED = ['init', 'Tensorplan.plan', 'Tensorplan.layerGraph', 'Tensorplan.importOnnx', 'importOnnx', 'Tensorplan.tensorSpecBuffers',
  'Tensorplan.validate', 'compareLayerSpecs', 'GraphBuilder', 'LayerSpecBuilder'];

describe('API reference examples (@example blocks in src/)', () => {
  const dir = project();

  it('the main entry points have examples, each a whole module that imports tensorplan', () => {
    const names = new Set(ALL.map((e) => e.name));
    expect(REQUIRED.filter((name) => !names.has(name))).toEqual([]);
    expect(ALL.filter((e) => !/from 'tensorplan'/.test(e.code)).map((e) => e.where)).toEqual([]);
  });

  it.each(ALL.map((e, i) => [e.where, i] as const))('%s runs, and what it claims holds', (_where, i) => {
    const out = run(dir, `example-${i}.mjs`, ALL[i].code);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout.endsWith('example ran\n')).toBe(true);
  });

  it('a false claim fails (the check is real)', () => {
    const example = ALL.find((e) => claims(e.code).some((claim) => /=== \d+$/.test(claim)));
    expect(example).toBeDefined();
    const code = example!.code.replace(/^(\s*\/\/ .+ === )(\d+)$/m, (_m, head, n) => `${head}${Number(n) + 1}`);
    const out = run(dir, 'example-false.mjs', code);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain('claim is false:');
  });
});
