// Builds the package: Node entry (ESM + CJS), browser entry (ESM, WASM only),
// the CLI, and one bundled .d.ts. The Emscripten glue is bundled in; the
// .wasm file stays in wasm/dist and is located relative to dist/ at run time.
// No source maps: six bundles' maps would double what an install takes
// (test/package/install.test.ts holds it under 20 MiB besides the addon).
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import typescript from '@rollup/plugin-typescript';
import { builtinModules } from 'node:module';
import { dts } from 'rollup-plugin-dts';
import pkg from './package.json' with { type: 'json' };

const dependencies = Object.keys(pkg.dependencies);
// Node builds leave builtins and dependencies (and their subpaths) to Node.
const external = (id) =>
  id.startsWith('node:') || builtinModules.includes(id) || dependencies.some((dep) => id === dep || id.startsWith(`${dep}/`));
// The Emscripten glue has its own `new URL("tensorplan_core.wasm", import.meta.url)`
// (its default file location). tensorplan always passes the bytes in (wasmBinary),
// so that URL is never fetched, but bundlers that follow the pattern (webpack 5,
// Vite) would look for dist/tensorplan_core.wasm and fail or warn. The one URL
// they must see is the facade's (src/backend/wasm-backend-browser.ts).
const GLUE_WASM_URL = 'new URL("tensorplan_core.wasm",import.meta.url).toString()';
const unlocatedGlue = () => ({
  name: 'tensorplan-unlocated-glue',
  transform(code, id) {
    if (!id.endsWith('tensorplan_core.mjs')) return null;
    if (!code.includes(GLUE_WASM_URL)) this.error(`${id}: the glue no longer contains ${GLUE_WASM_URL}; update rollup.config.mjs`);
    return { code: code.replace(GLUE_WASM_URL, '"tensorplan_core.wasm"'), map: null };
  },
});
const ts = () => typescript({ tsconfig: './tsconfig.json', declaration: false, outDir: 'dist', rootDir: '.' });

export default [
  {
    input: 'src/index.ts',
    external,
    plugins: [unlocatedGlue(), ts()],
    output: [
      { file: 'dist/index.mjs', format: 'es' },
      { file: 'dist/index.cjs', format: 'cjs', exports: 'named' },
    ],
  },
  {
    input: 'src/browser.ts',
    // Anything Node-only reaching this bundle is a bug: fail the build instead.
    // Browsers load this file as it is, so its dependencies (ajv) are bundled in.
    external: (id) => id.startsWith('node:') || builtinModules.includes(id),
    plugins: [unlocatedGlue(), ts(), nodeResolve({ browser: true }), commonjs(), json()],
    output: { file: 'dist/browser.mjs', format: 'es' },
  },
  {
    // init({ worker: true }) in Node: the worker thread's script, beside dist/index.mjs.
    input: 'src/worker/node-worker.ts',
    external,
    plugins: [unlocatedGlue(), ts()],
    output: { file: 'dist/worker.mjs', format: 'es' },
  },
  {
    // init({ worker: true }) in browsers: the module Web Worker, self-contained like dist/browser.mjs.
    input: 'src/worker/browser-worker.ts',
    external: (id) => id.startsWith('node:') || builtinModules.includes(id),
    plugins: [unlocatedGlue(), ts(), nodeResolve({ browser: true }), commonjs(), json()],
    output: { file: 'dist/browser-worker.mjs', format: 'es' },
  },
  {
    input: 'src/cli/main.ts',
    external,
    plugins: [ts()],
    output: { file: 'dist/cli.mjs', format: 'es' },
  },
  {
    input: 'src/index.ts',
    external,
    plugins: [dts({ tsconfig: './tsconfig.json' })],
    output: { file: 'dist/index.d.ts', format: 'es' },
  },
];
