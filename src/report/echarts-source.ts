import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Next to the built entries: the minimal ECharts made by rollup.report.config.mjs. */
const ECHARTS_URL = './echarts-report.min.js';

let cached: string | undefined;

/**
 * The minified ECharts that reports inline: only the line and custom series,
 * the components and the canvas renderer the report uses (read once from
 * dist/, so ECharts is not an install-time dependency).
 *
 * @group Files
 */
export function loadEchartsSource(): string {
  cached ??= readFileSync(fileURLToPath(new URL(ECHARTS_URL, import.meta.url)), 'utf8');
  return cached;
}
