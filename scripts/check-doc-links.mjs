#!/usr/bin/env node
// Checks every link in the generated API reference: a relative link must
// name a file typedoc wrote, and an external link must go to a host on KNOWN_HOSTS, hosts
// that exist and that the docs mean to cite. This catches what a reader would hit as a dead
// link: markdown-it turning `FORMATS.md` into http://FORMATS.md (.md is a real TLD), a
// placeholder such as example.com, or a relative link to a file (or a page anchor) the
// reference does not carry.
// No network: a host is judged by the list, not by resolving it (CI and the sandbox are offline).
// Usage: node scripts/check-doc-links.mjs [DIR]   (default docs/api; `npm run docs` runs it)
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Hosts the reference may link to. Add one only for a page that exists. */
export const KNOWN_HOSTS = new Set([
  'typedoc.org', // typedoc's own footer
  'github.com', // cited projects (TransformerEngine, protobuf.js, ...)
  'numpy.org', // the .npy format (docs/execute-cli.md)
  'onnx.ai',
  'pytorch.org',
  'docs.nvidia.com',
  'developer.nvidia.com',
  'nodejs.org',
  'ui.perfetto.dev', // the trace viewer (docs/plans.md)
  'developer.mozilla.org',
  'vitejs.dev',
  'webpack.js.org',
  'esbuild.github.io',
  'json-schema.org',
  'www.npmjs.com',
  'arxiv.org',
]);

const ids = new Map();
/** The ids a page defines (headings, members), which `page.html#id` links must name. */
function idsOf(file) {
  if (!ids.has(file)) ids.set(file, new Set([...readFileSync(file, 'utf8').matchAll(/\sid="([^"]*)"/g)].map((m) => m[1])));
  return ids.get(file);
}

function htmlFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return htmlFiles(path);
    return name.endsWith('.html') ? [path] : [];
  });
}

/** Every problem with the links of the reference in `dir`, as `file: link: why` lines. */
export function checkDocLinks(dir) {
  const root = resolve(dir);
  const problems = [];
  for (const file of htmlFiles(root)) {
    const html = readFileSync(file, 'utf8');
    const where = relative(root, file);
    for (const match of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      const link = match[1].replaceAll('&amp;', '&');
      if (link === '' || link.startsWith('data:') || link.startsWith('javascript:')) continue;
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(link);
      if (scheme || link.startsWith('//')) {
        let url;
        try {
          url = new URL(link.startsWith('//') ? `https:${link}` : link);
        } catch {
          problems.push(`${where}: ${link}: not a URL`);
          continue;
        }
        if (url.protocol !== 'https:' && url.protocol !== 'http:') {
          problems.push(`${where}: ${link}: only http(s) links are expected`);
        } else if (!KNOWN_HOSTS.has(url.hostname)) {
          problems.push(`${where}: ${link}: host ${url.hostname} is not on KNOWN_HOSTS (scripts/check-doc-links.mjs)`);
        }
        continue;
      }
      const [path, fragment] = link.split('#');
      const target = path.split('?')[0] === '' ? file : resolve(dirname(file), decodeURIComponent(path.split('?')[0]));
      if (target !== root && !target.startsWith(root + sep)) {
        problems.push(`${where}: ${link}: points outside the reference`);
      } else if (!existsSync(target)) {
        problems.push(`${where}: ${link}: no such file in the reference`);
      } else if (fragment && target.endsWith('.html') && !idsOf(target).has(decodeURIComponent(fragment))) {
        problems.push(`${where}: ${link}: ${relative(root, target)} has no id ${JSON.stringify(fragment)}`);
      }
    }
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? 'docs/api';
  const problems = checkDocLinks(dir);
  if (problems.length > 0) {
    console.error(`${problems.length} bad link(s) in ${dir}:\n${problems.join('\n')}`);
    process.exit(1);
  }
  console.log(`links in ${dir}: all relative links resolve, every external host is known`);
}
