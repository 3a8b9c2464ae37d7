// The tree speaks of the product. A number in our own tracker or of a work
// stop means nothing to a user, who cannot look it up; the rule's
// source, the measured fact or nothing stands in its place, and history lives
// in git. Every tracked text file is read, so a new file cannot slip past.
// Hand-written TypeScript stays small enough to read: one concept per file.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));

/** The most lines a hand-written .ts file may have. */
const MAX_TS_LINES = 600;

/**
 * What a tracker or work-stop reference looks like. A CSS colour (`#555;`,
 * `'#111'`) or an HTML entity (`&#39;`) is not one: the `#` rule wants a
 * space, bracket or quote before it and no hex digit, `;` or quote after.
 * Another project's pull request is a citation, written "PR #2900" beside
 * the project's name.
 */
const HISTORY_PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'tracker number', pattern: /\b(?:issues?|tasks?|tickets?)\s*#?\s*\d+/i },
  { name: 'tracker reference', pattern: /(?<!\bPR)(?:^|[\s([`'"])#\d+\b(?![0-9a-fA-F;'"])/ },
  { name: 'work-stop number', pattern: /\bstops?[\s_-]+\d+\b(?![.%])/i },
  { name: 'work-stop word', pattern: /\b(?:this|that|last|next|previous|earlier|each|every|a later) stop\b/i },
  { name: 'work wave', pattern: /\bwave-\d/i },
];

/** The first history pattern a line matches, or null. */
function historyIn(line: string): string | null {
  for (const { name, pattern } of HISTORY_PATTERNS) {
    const match = pattern.exec(line);
    if (match) return `${name}: "${match[0].trim()}"`;
  }
  return null;
}

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: REPOSITORY, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  return out.split('\0').filter((path) => path !== '');
}

/** The file's text, or null for a binary file (one with a NUL byte) or one gone from the work tree. */
function textOf(path: string): string | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(REPOSITORY, path));
  } catch {
    return null;
  }
  return bytes.includes(0) ? null : bytes.toString('utf8');
}

describe('the product speaks of the product', () => {
  it('recognises tracker and work-stop references, and leaves colours, entities and percentages alone', () => {
    // Built from parts so that this file itself holds none of them.
    const stop = 'st' + 'op';
    const issue = 'iss' + 'ue';
    for (const line of [`fixed in ${stop} 27`, `(${issue} #${18})`, `${issue} 7 item 6`, 'see (#' + '18)', '#' + '17 item 7',
      '`#' + '15.${rule}`', `#on-an-h100-${stop}-35`, `before ${stop}s 32 and 33`, `what this ${stop} did`, 'the wave-' + '2 move']) {
      expect(historyIn(line), line).not.toBeNull();
    }
    for (const line of ["color: '#111',", 'body { color: #222; }', "'&#39;'", 'it stops 15.95% above its bound',
      'stops when the budget is spent', "TE's bulk_allocate (PR #2900)", '#include <vector>', 'a bus stop']) {
      expect(historyIn(line), line).toBeNull();
    }
  });

  it('no tracked text file names a tracker issue or a work stop', () => {
    const found: string[] = [];
    for (const path of trackedFiles()) {
      if (path === 'package-lock.json') continue;   // npm's file: integrity hashes and versions only
      const text = textOf(path);
      if (text === null) continue;
      text.split('\n').forEach((line, index) => {
        const what = historyIn(line);
        if (what !== null) found.push(`${path}:${index + 1}: ${what}`);
      });
    }
    expect(found, 'say what the reference stands for (the rule\'s source, the measured fact) or nothing').toEqual([]);
  });

  it(`no hand-written TypeScript file is over ${MAX_TS_LINES} lines`, () => {
    const long = trackedFiles()
      .filter((path) => path.endsWith('.ts') && !path.endsWith('.generated.ts'))
      .map((path) => ({ path, lines: (textOf(path) ?? '').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_TS_LINES)
      .map(({ path, lines }) => `${path}: ${lines} lines`);
    expect(long, 'split it by concept').toEqual([]);
  });
});
