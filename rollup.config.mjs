// Builds the package: Node entry (ESM + CJS), browser entry (ESM, WASM only),
// the CLI, and one bundled .d.ts. The Emscripten glue is bundled in; the
// .wasm file stays in wasm/dist and is located relative to dist/ at run time.
import typescript from '@rollup/plugin-typescript';
import { builtinModules } from 'node:module';
import { dts } from 'rollup-plugin-dts';
import pkg from './package.json' with { type: 'json' };

const external = [
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
  ...Object.keys(pkg.dependencies),
];
const ts = () => typescript({ tsconfig: './tsconfig.json', declaration: false, outDir: 'dist', rootDir: '.' });

export default [
  {
    input: 'src/index.ts',
    external,
    plugins: [ts()],
    output: [
      { file: 'dist/index.mjs', format: 'es', sourcemap: true },
      { file: 'dist/index.cjs', format: 'cjs', sourcemap: true, exports: 'named' },
    ],
  },
  {
    input: 'src/browser.ts',
    // Anything Node-only reaching this bundle is a bug: fail the build instead.
    external: (id) => id.startsWith('node:') || builtinModules.includes(id),
    plugins: [ts()],
    output: { file: 'dist/browser.mjs', format: 'es', sourcemap: true },
  },
  {
    input: 'src/cli/main.ts',
    external,
    plugins: [ts()],
    output: { file: 'dist/cli.mjs', format: 'es', sourcemap: true },
  },
  {
    input: 'src/index.ts',
    external,
    plugins: [dts({ tsconfig: './tsconfig.json' })],
    output: { file: 'dist/index.d.ts', format: 'es' },
  },
];
