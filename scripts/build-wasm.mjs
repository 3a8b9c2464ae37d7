// Builds wasm/dist/tensorplan_core.{mjs,wasm} from core-cpp with Debian's
// Emscripten 3.1.6. The output is committed; CI rebuilds it and fails on any
// difference (the build is deterministic for a given emcc version).
//
// Why these flags:
//   EXPORT_ES6 + ENVIRONMENT=web,worker  ES-module glue with no Node branch: no
//       __dirname/require('fs') (broken in 3.1.6 ES6 output) and nothing that
//       installs process-wide handlers. Node callers pass wasmBinary instead.
//   FILESYSTEM=0, EXIT_RUNTIME=0         the core does no I/O and is a library.
//   ALLOW_MEMORY_GROWTH, MAXIMUM_MEMORY  large graphs; JS re-reads heap views.
//   -fno-exceptions                      the core returns errors as values.
//   -O3 -DNDEBUG -fno-rtti               planning speed: against -O2, the first call (init +
//       first plan in a fresh process) and warm plan() of 7 real models took 0.7-1.1x the
//       main-thread time (median about 0.9; bench/wasm-native.bench.mjs's models), at the
//       same binary size; the core uses no assert() and no RTTI. Tried and left out:
//       -msimd128 (the planner is graph code that does not vectorise: no gain, +13%
//       binary) and -flto (no gain beyond noise, 4x the link time).
//   BINARYEN_EXTRA_PASSES=--one-caller-inline-max-function-size=100   the first plan().
//       V8 runs WASM first as baseline (Liftoff) code and compiles a function with TurboFan, on
//       background threads, once that function alone has run long enough; the new code is used
//       from the function's next call. Binaryen inlines every function that has one caller, at
//       any size, so without the cap the baseline schedulers become one 15 KB run_baseline and
//       the placement solvers one 24 KB place: each crosses the threshold on the first plan,
//       costs TurboFan 50-200 ms (on a loaded 2-core machine, the main thread's time too), and
//       its optimised code is never called. Capped, they stay separate functions (the same job
//       inside one file is done by TP_NOINLINE, base/noinline.h). Warm plan() is the same with
//       and without the cap. Tried and left out: -fno-inline-functions outside the search
//       sources (first call as good, warm plan() of small models 1.7x slower), -Os and
//       -mllvm -inline-threshold=50 (no first-call gain), -sMALLOC=emmalloc and
//       -sINITIAL_MEMORY=64MB (no gain beyond noise).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { sourceDigests, WASM_SOURCES } from './build-sources.mjs';
import { coreSources } from './list-sources.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'wasm', 'dist');
mkdirSync(outDir, { recursive: true });

// Debian's emcc runs its JS optimizer with the system node, which must find acorn.
const acornDirs = ['/usr/share/nodejs', '/usr/lib/nodejs'].filter((dir) => existsSync(join(dir, 'acorn')));
const env = { ...process.env, NODE_PATH: [...acornDirs, process.env.NODE_PATH].filter(Boolean).join(':') };

const args = [
  '-O3',
  '-DNDEBUG',
  '-std=c++17',
  '-fno-exceptions',
  '-fno-rtti',
  '-Wall', '-Wextra', '-Werror',
  '-I', join(root, 'core-cpp', 'include'),
  '-I', join(root, 'core-cpp', 'src'),
  ...coreSources().map((file) => join(root, file)),
  '-o', join(outDir, 'tensorplan_core.mjs'),
  '-sMODULARIZE=1',
  '-sEXPORT_ES6=1',
  '-sEXPORT_NAME=createTensorplanCore',
  '-sENVIRONMENT=web,worker',
  '-sFILESYSTEM=0',
  '-sEXIT_RUNTIME=0',
  '-sALLOW_MEMORY_GROWTH=1',
  '-sMAXIMUM_MEMORY=4GB',
  '-sDYNAMIC_EXECUTION=0',
  '-sTEXTDECODER=2',
  '-sEXPORTED_FUNCTIONS=["_malloc","_free"]',
  '-sINCOMING_MODULE_JS_API=["wasmBinary","locateFile","instantiateWasm","print","printErr"]',
  '-sBINARYEN_EXTRA_PASSES=--one-caller-inline-max-function-size=100',
];

// Read before compiling: a file edited during the build then counts as
// changed, and scripts/check-builds-fresh.mjs rebuilds.
const sources = sourceDigests(root, WASM_SOURCES);
try {
  execFileSync('emcc', args, { cwd: root, env, stdio: 'inherit' });
} catch (error) {
  console.error(`build-wasm: emcc failed (${error.message}). Install Debian's emscripten and node-acorn.`);
  process.exit(1);
}
mkdirSync(join(root, 'build'), { recursive: true });
writeFileSync(join(root, 'build', 'wasm-status.json'), JSON.stringify({ built: true, sources }, null, 2) + '\n');
console.log(`build-wasm: wrote ${join('wasm', 'dist', 'tensorplan_core.{mjs,wasm}')}`);
