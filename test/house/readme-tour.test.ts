// The README's tour runs as written, so that it cannot rot. Every line of a
// ```sh block under "## Tour" is a `npx tensorplan ...` command; each runs
// through bin/tensorplan.mjs (what npx runs in a clone) in a fresh folder that
// sees the clone's examples/ and test/ by the same relative paths, one after
// another (a later command reads what an earlier one wrote), and must exit 0
// and write the files it names.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(REPOSITORY, 'bin', 'tensorplan.mjs');
const README = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');

/** The lines of the ```sh blocks between "## Tour" and the next "## " heading. */
function tourLines(): string[] {
  const start = README.indexOf('\n## Tour\n');
  if (start < 0) throw new Error('README.md has no "## Tour" section');
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1].split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The files a command says it writes (`-o FILE`, `--report FILE`, `--trace FILE`). */
function writtenFiles(args: string[]): string[] {
  return args.flatMap((arg, i) => (['-o', '--output', '--report', '--trace'].includes(arg) ? [args[i + 1]] : []));
}

describe("the README's tour", () => {
  const lines = tourLines();

  it('is made of tensorplan commands only: PyTorch, ONNX and layer-spec plans, a report, validate and execute among them', () => {
    expect(lines.filter((line) => !line.startsWith('npx tensorplan '))).toEqual([]);
    const joined = lines.join('\n');
    for (const part of ['plan ', '.pt2', '.onnx', '.layers.json', '--compare', 'fit ', '--report', 'validate ', 'execute ']) {
      expect(joined).toContain(part);
    }
  });

  it('runs as written: every command exits 0 and writes what it names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tensorplan-tour-'));
    symlinkSync(join(REPOSITORY, 'examples'), join(dir, 'examples'), 'dir');
    symlinkSync(join(REPOSITORY, 'test'), join(dir, 'test'), 'dir');
    for (const line of lines) {
      const args = line.slice('npx tensorplan '.length).split(/\s+/);
      const run = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
      expect({ line, status: run.status, stderr: run.stderr }).toEqual({ line, status: 0, stderr: '' });
      expect(run.stdout.length, line).toBeGreaterThan(0);
      for (const file of writtenFiles(args)) {
        expect(statSync(join(dir, file)).size, `${line}: ${file}`).toBeGreaterThan(0);
        if (file.endsWith('.html')) expect(readFileSync(join(dir, file), 'utf8'), file).toMatch(/^<!doctype html>/i);
      }
    }
  }, 300_000);
});
