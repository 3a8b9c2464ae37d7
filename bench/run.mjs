// `npm run bench`: runs every bench/*.bench.mjs (or those named on the command
// line) against every backend that loads, printing one table per benchmark.
// A name selects exactly that bench (`place` is place.bench.mjs, not
// place-hard too); a name ending in `*` selects every bench it begins
// (`place*`); several names run several benches.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem, type as osType, release } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadBackends } from './harness.mjs';

const dir = fileURLToPath(new URL('.', import.meta.url));
const SUFFIX = '.bench.mjs';
const names = readdirSync(dir).filter((f) => f.endsWith(SUFFIX)).map((f) => f.slice(0, -SUFFIX.length)).sort();

/** The bench names that `pattern` selects: itself, or with a trailing `*` every name it begins. */
function select(pattern) {
  return pattern.endsWith('*') ? names.filter((n) => n.startsWith(pattern.slice(0, -1))) : names.filter((n) => n === pattern);
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => select(w).length === 0);
if (unknown.length > 0) {
  console.error(`no bench named ${unknown.join(', ')}; the benches are: ${names.join(', ')} (a trailing * selects by prefix)`);
  process.exit(2);
}
const files = names.filter((n) => wanted.length === 0 || wanted.some((w) => select(w).includes(n))).map((n) => n + SUFFIX);

/** The commit measured, marked when the work tree differs from it; 'unknown' outside a git clone. */
function commitMeasured() {
  try {
    const git = (...args) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const commit = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? commit : `${commit} with uncommitted changes`;
  } catch {
    return 'unknown (not a git clone)';
  }
}

/** Date, commit and machine: what every figure below needs beside it. */
function runHeader() {
  const cores = cpus();
  const gib = (totalmem() / 2 ** 30).toFixed(0);
  return [
    `date: ${new Date().toISOString()}; commit: ${commitMeasured()}`,
    `machine: ${cores.length} x ${cores[0]?.model ?? 'unknown CPU'}, ${gib} GiB, ${osType()} ${release()}; ` +
      `load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  ];
}

const started = Date.now();
const { sessions, skipped } = await loadBackends();
console.log(`tensorplan benchmarks on ${Object.keys(sessions).join(', ')} (node ${process.version})`);
for (const line of runHeader()) console.log(line);
for (const [name, reason] of Object.entries(skipped)) console.log(`backend ${name} not measured: ${reason}`);
for (const file of files) {
  const { run } = await import(new URL(file, import.meta.url).href);
  await run({ sessions });
}
console.log(`\nall benchmarks: ${((Date.now() - started) / 1000).toFixed(0)} s wall time`);
