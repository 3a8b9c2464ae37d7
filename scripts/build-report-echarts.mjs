// Builds dist/echarts-report.min.js (rollup.report.config.mjs) unless it is
// newer than everything it is made from: bundling and minifying ECharts takes
// tens of seconds, and build:ts runs before every test run.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = `${root}dist/echarts-report.min.js`;
const inputs = [
  `${root}src/report/echarts-minimal.ts`,
  `${root}rollup.report.config.mjs`,
  createRequire(import.meta.url).resolve('echarts/package.json'),
];
const mtime = (file) => statSync(file).mtimeMs;
if (existsSync(output) && inputs.every((input) => mtime(input) < mtime(output))) {
  console.log('build-report-echarts: dist/echarts-report.min.js is up to date');
} else {
  execFileSync(process.execPath, [createRequire(import.meta.url).resolve('rollup/dist/bin/rollup'), '-c', 'rollup.report.config.mjs'], { cwd: root, stdio: 'inherit' });
}
