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
//   -O3 -DNDEBUG -fno-rtti               planning speed (#18): against -O2, the first call (init +
//       first plan in a fresh process) and warm plan() of 7 real models took 0.7-1.1x the
//       main-thread time (median about 0.9; bench/wasm-native.bench.mjs's models), at the
//       same binary size; the core uses no assert() and no RTTI. Tried and left out:
//       -msimd128 (the planner is graph code that does not vectorise: no gain, +13%
//       binary) and -flto (no gain beyond noise, 4x the link time).
//   -fno-inline-functions outside HOT_SEARCH_SOURCES, and binaryen's one-caller inlining capped at
//       100 bytes: the first plan() in a process (#18). V8 runs WASM first as baseline (Liftoff)
//       code and compiles a function with TurboFan, on background threads, once that function
//       alone has run long enough; it swaps the new code in at the function's next call. With
//       every single-caller helper inlined, build_planning_graph, place, run_baseline and
//       improve_schedule were 8-32 KB bodies run once per plan: each crossed the threshold, cost
//       TurboFan 50-200 ms (on a loaded 2-core machine that is the main thread's time too), and
//       the optimised code was never called. Split into their named functions, few reach the
//       threshold and those compile in a few ms. The search code that runs long (the files
//       below) keeps full inlining: without it warm plan() of Llama-3-8B x8 ran 1.5x slower.
//       Measured (5 fresh processes, median, busy 2-core machine): first-call CPU of all threads
//       bert_tiny 164 -> 128 ms, generated 1000-node ONNX 340 -> 257, Llama x8 400 -> 263.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { coreSources } from './list-sources.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'wasm', 'dist');
mkdirSync(outDir, { recursive: true });

// Debian's emcc runs its JS optimizer with the system node, which must find acorn.
const acornDirs = ['/usr/share/nodejs', '/usr/lib/nodejs'].filter((dir) => existsSync(join(dir, 'acorn')));
const env = { ...process.env, NODE_PATH: [...acornDirs, process.env.NODE_PATH].filter(Boolean).join(':') };

// The sources whose loops run long in one plan (local and exact search, liveness, placement
// searches): compiled with full -O3 inlining (see -fno-inline-functions above).
const HOT_SEARCH_SOURCES = new Set([
  'core-cpp/src/liveness/liveness.cpp',
  'core-cpp/src/placement/perfect_packing.cpp',
  'core-cpp/src/placement/placement_exact.cpp',
  'core-cpp/src/placement/placement_first_fit.cpp',
  'core-cpp/src/placement/placement_neighbourhood.cpp',
  'core-cpp/src/placement/placement_skyline.cpp',
  'core-cpp/src/schedule/schedule_cuts.cpp',
  'core-cpp/src/schedule/schedule_exact.cpp',
  'core-cpp/src/schedule/schedule_search.cpp',
  'core-cpp/src/schedule/schedule_state.cpp',
]);

const compileArgs = [
  '-O3',
  '-DNDEBUG',
  '-std=c++17',
  '-fno-exceptions',
  '-fno-rtti',
  '-Wall', '-Wextra', '-Werror',
  '-I', join(root, 'core-cpp', 'include'),
  '-I', join(root, 'core-cpp', 'src'),
];

const linkArgs = [
  '-O3',
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

const objDir = mkdtempSync(join(tmpdir(), 'tensorplan-wasm-'));
try {
  // Objects keep the sorted source order, so the link (and the binary) does not depend on the file system.
  const objects = coreSources().map((file, i) => {
    const object = join(objDir, `${String(i).padStart(3, '0')}.o`);
    const inlining = HOT_SEARCH_SOURCES.has(file) ? [] : ['-fno-inline-functions'];
    execFileSync('emcc', [...compileArgs, ...inlining, '-c', join(root, file), '-o', object], { cwd: root, env, stdio: 'inherit' });
    return object;
  });
  execFileSync('emcc', [...objects, ...linkArgs], { cwd: root, env, stdio: 'inherit' });
} catch (error) {
  console.error(`build-wasm: emcc failed (${error.message}). Install Debian's emscripten and node-acorn.`);
  process.exit(1);
} finally {
  rmSync(objDir, { recursive: true, force: true });
}
console.log(`build-wasm: wrote ${join('wasm', 'dist', 'tensorplan_core.{mjs,wasm}')}`);
