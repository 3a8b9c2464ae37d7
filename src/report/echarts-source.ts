import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let cached: string | undefined;

/** The minified ECharts bundle that reports inline (read once from the installed package). */
export function loadEchartsSource(): string {
  cached ??= readFileSync(createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js'), 'utf8');
  return cached;
}
