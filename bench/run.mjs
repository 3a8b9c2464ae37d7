// `npm run bench`: runs every bench/*.bench.mjs (or those named on the command
// line) against every backend that loads, printing one table per benchmark.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadBackends } from './harness.mjs';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

const { sessions, skipped } = await loadBackends();
console.log(`tensorplan benchmarks on ${Object.keys(sessions).join(', ')} (node ${process.version})`);
for (const [name, reason] of Object.entries(skipped)) console.log(`backend ${name} not measured: ${reason}`);
for (const file of files) {
  const { run } = await import(new URL(file, import.meta.url).href);
  await run({ sessions });
}
