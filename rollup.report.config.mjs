// Builds dist/echarts-report.min.js: the minimal ECharts that HTML reports
// inline (src/report/echarts-minimal.ts), as one minified script defining the
// global `echarts`. Separate from rollup.config.mjs because it bundles a
// dependency in, for the page, where the other builds leave dependencies to Node.
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import typescript from '@rollup/plugin-typescript';

// ECharts guards its development warnings with process.env.NODE_ENV, which
// does not exist in a page: fix it to production, as ECharts' own dist build
// does, so the checks and their messages are dropped.
const production = {
  name: 'node-env-production',
  transform: (code) => (code.includes('process.env.NODE_ENV') ? { code: code.replaceAll('process.env.NODE_ENV', '"production"'), map: null } : null),
};

export default {
  input: 'src/report/echarts-minimal.ts',
  plugins: [
    typescript({ tsconfig: './tsconfig.json', declaration: false, outDir: 'dist', rootDir: '.', include: ['src/report/echarts-minimal.ts'] }),
    nodeResolve({ browser: true }),
    production,
    terser({ format: { comments: false } }),
  ],
  output: { file: 'dist/echarts-report.min.js', format: 'iife', name: 'echarts' },
};
