// README's API snippet runs as written. The first ```js block under
// "Tour" is saved as a module beside a node_modules/tensorplan that is this
// package, run from the repository root (its example paths are relative to a
// clone), and the claims its comments make (`// layout.x === n`) are checked.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');

/** The snippet: the first fenced js block after the "## Tour" heading. */
function snippet(): string {
  const section = README.slice(README.indexOf('## Tour'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('README.md: no ```js block under "## Tour"');
  return match[1];
}

/** `// a.b === 1, c.d === 2` comments become checks that throw when a claim is false. */
function claims(code: string): string[] {
  return [...code.matchAll(/^\/\/ (.*===.*)$/gm)].flatMap((m) => m[1].split(/,\s*/)).map((claim) => claim.trim());
}

describe("README's API snippet", () => {
  it('runs as written, and what its comments claim holds', () => {
    const code = snippet();
    const checks = claims(code);
    expect(checks.length).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), 'tensorplan-readme-'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(REPOSITORY, join(dir, 'node_modules', 'tensorplan'), 'dir');
    const file = join(dir, 'snippet.mjs');
    const tail = checks.map((claim) => `if (!(${claim})) throw new Error(${JSON.stringify(`README claim is false: ${claim}`)});`);
    writeFileSync(file, `${code}\n${tail.join('\n')}\nconsole.log('snippet ran');\n`);
    const out = spawnSync(process.execPath, [file], { cwd: REPOSITORY, encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout).toBe('snippet ran\n');
  });

  it('a false claim would fail (the check is real)', () => {
    const code = snippet().replace(/=== (\d+)/, (_m, n) => `=== ${Number(n) + 1}`);
    const dir = mkdtempSync(join(tmpdir(), 'tensorplan-readme-'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(REPOSITORY, join(dir, 'node_modules', 'tensorplan'), 'dir');
    const file = join(dir, 'snippet.mjs');
    writeFileSync(file, `${code}\n${claims(code).map((claim) => `if (!(${claim})) throw new Error('false: ${claim}');`).join('\n')}\n`);
    const out = spawnSync(process.execPath, [file], { cwd: REPOSITORY, encoding: 'utf8' });
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain('false:');
  });
});
