// The API reference is one people can use. typedoc runs here into a temporary
// directory (HTML and its JSON model, in one run) and the result is checked: every public export
// sits in one of the five groups the sidebar shows (never in a kind group such as "Interfaces",
// which is what an export without a @group tag lands in), the getting-started page is there, and
// no link is dead: relative links name files and anchors the reference carries, external links go
// to hosts on scripts/check-doc-links.mjs's list (the same check `npm run docs` runs).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkDocLinks } from '../../scripts/check-doc-links.mjs';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const GROUPS = ['Session', 'Planning', 'Formats', 'Files', 'Errors'];

interface Reflection {
  id: number;
  name: string;
  kind: number;
  groups?: { title: string; children?: number[] }[];
  children?: Reflection[];
}

describe('API reference (typedoc)', () => {
  const out = mkdtempSync(join(tmpdir(), 'tensorplan-api-docs-'));
  let project: Reflection;
  let log = '';

  beforeAll(() => {
    const typedoc = join(REPOSITORY, 'node_modules', 'typedoc', 'bin', 'typedoc');
    const run = spawnSync(process.execPath, [typedoc, '--out', join(out, 'html'), '--json', join(out, 'api.json')],
      { cwd: REPOSITORY, encoding: 'utf8', timeout: 120_000 });
    log = `${run.stdout}${run.stderr}`;
    expect(run.status, log).toBe(0);
    project = JSON.parse(readFileSync(join(out, 'api.json'), 'utf8')) as Reflection;
  }, 120_000);

  it('builds with no warnings', () => {
    expect(log).not.toMatch(/warning|error/i);
  });

  it('puts every public export in one of the five groups, in sidebar order, after the documents', () => {
    const groups = project.groups ?? [];
    expect(groups.map((g) => g.title)).toEqual(['Documents', ...GROUPS]);
    const grouped = new Map<number, string>();
    for (const group of groups) for (const id of group.children ?? []) grouped.set(id, group.title);
    const exports = project.children ?? [];
    expect(exports.length).toBeGreaterThan(100);
    expect(exports.filter((c) => !GROUPS.includes(grouped.get(c.id) ?? '')).map((c) => c.name)).toEqual([]);
    // The entry points land where the getting-started page says they are.
    const where = (name: string) => grouped.get(exports.find((c) => c.name === name)?.id ?? -1);
    expect(['init', 'Tensorplan', 'TensorplanWorker'].map(where)).toEqual(['Session', 'Session', 'Session']);
    expect(['GraphBuilder', 'parseGraph', 'importOnnx'].map(where)).toEqual(['Files', 'Files', 'Files']);
    expect(where('TensorplanError')).toBe('Errors');
  });

  it('opens with the getting-started page', () => {
    const page = readFileSync(join(out, 'html', 'documents', 'Getting_started.html'), 'utf8');
    expect(page.replace(/<[^>]*>/g, '')).toContain('npm install tensorplan');
    expect(page).toContain('href="../functions/init.html"');
    expect(readFileSync(join(out, 'html', 'index.html'), 'utf8')).toContain('href="documents/Getting_started.html"');
  });

  it('has no dead links and no links to unknown hosts', () => {
    expect(checkDocLinks(join(out, 'html'))).toEqual([]);
  });

  it('renders every markdown file it links to as a page (none is copied raw into media/)', () => {
    expect(readdirSync(join(out, 'html', 'media')).filter((name) => name.endsWith('.md'))).toEqual([]);
  });
});

describe('the link check (scripts/check-doc-links.mjs)', () => {
  it('finds placeholders, linkified file names, missing files and missing anchors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tensorplan-links-'));
    mkdirSync(join(dir, 'classes'));
    writeFileSync(join(dir, 'classes', 'A.html'), '<h2 id="plan">plan</h2>');
    writeFileSync(join(dir, 'index.html'), [
      '<a href="https://github.com/NVIDIA/TransformerEngine">TE</a>',
      '<a href="classes/A.html#plan">ok</a>',
      '<a href="#top" id="top">ok</a>',
      '<a href="https://example.com/docs">placeholder</a>',
      '<a href="http://FORMATS.md">linkified</a>',
      '<a href="media/README.md">missing</a>',
      '<a href="classes/A.html#validate">missing anchor</a>',
      '<a href="../outside.html">outside</a>',
    ].join('\n'));
    const problems = checkDocLinks(dir);
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(/example\.com is not on KNOWN_HOSTS/);
    expect(problems.join('\n')).toMatch(/FORMATS\.md is not on KNOWN_HOSTS/i);
    expect(problems.join('\n')).toMatch(/media\/README\.md: no such file/);
    expect(problems.join('\n')).toMatch(/has no id "validate"/);
    expect(problems.join('\n')).toMatch(/points outside the reference/);
  });
});
