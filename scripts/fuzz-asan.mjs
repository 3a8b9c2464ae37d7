// `npm run fuzz:asan`: the seeded public fuzz suite and the ABI
// tests against a native addon built with AddressSanitizer and
// UndefinedBehaviorSanitizer. Too slow for .ci/run; run it by hand before a
// release or after touching the ABI boundary (docs/DEVELOPING.md).
//
//   node scripts/fuzz-asan.mjs                 build build-asan/, run the suites
//   TP_FUZZ_RUNS=<n> TP_FUZZ_SEED=<s>          cases per fuzz target, seed
//   node scripts/fuzz-asan.mjs --build-only    only build the addon
//   node scripts/fuzz-asan.mjs --clean         rebuild build-asan/ from scratch
//
// The addon is compiled straight with g++ (not node-gyp, whose output dir is
// always build/, the normal addon's) from the same sources binding.gyp lists,
// without CUDA (the stub executor). Node itself is not instrumented, so the
// ASan runtime is preloaded (LD_PRELOAD) into every process of the run, and
// leak detection is off: V8 keeps memory to process exit by design. Reports go
// to build-asan/reports/; any report fails the run, even when the tests pass
// (UBSan recovers and goes on, so one run shows every finding).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'build-asan');
const objDir = join(outDir, 'obj');
const reportDir = join(outDir, 'reports');
const addon = join(outDir, 'tensorplan_native.node');
const CXX = process.env.CXX || 'g++';
const JOBS = 2; // the build machines are shared (docs/DEVELOPING.md)

function log(message) {
  console.log(`fuzz-asan: ${message}`);
}

const SANITIZE = ['-fsanitize=address,undefined', '-fno-omit-frame-pointer'];
const nodeInclude = [join(dirname(dirname(process.execPath)), 'include', 'node'), process.env.npm_config_nodedir && join(process.env.npm_config_nodedir, 'include', 'node')]
  .find((dir) => dir && existsSync(join(dir, 'node_api.h')));
if (!nodeInclude) throw new Error('node_api.h not found next to the running node (set npm_config_nodedir)');
const CXXFLAGS = [
  '-std=c++17', '-O1', '-g', '-fPIC', '-fno-exceptions', ...SANITIZE,
  '-Wall', '-Wextra', '-Wno-unused-parameter', '-Wno-cast-function-type',
  '-DNAPI_VERSION=8', '-DNAPI_DISABLE_CPP_EXCEPTIONS', '-DNODE_ADDON_API_DISABLE_DEPRECATED',
  '-I', nodeInclude,
  // include_dir is relative to the working directory (node-addon-api's index.js)
  '-I', resolve(createRequire(import.meta.url)('node-addon-api').include_dir.replace(/^"|"$/g, '')),
  '-I', join(root, 'core-cpp', 'include'), '-I', join(root, 'core-cpp', 'src'), '-I', join(root, 'cuda'),
];

/** The addon's sources: the core list plus binding.gyp's own files (CUDA off). */
function sources() {
  const core = execFileSync(process.execPath, [join(root, 'scripts', 'list-sources.mjs')], { encoding: 'utf8' }).trim().split(/\s+/);
  const gyp = readFileSync(join(root, 'binding.gyp'), 'utf8');
  const own = [...gyp.matchAll(/"((?:cuda)\/[^"]+\.cpp)"/g)].map((m) => m[1]);
  return [...core, ...own];
}

function newer(a, b) {
  return !existsSync(b) || statSync(a).mtimeMs > statSync(b).mtimeMs;
}

/** The newest header time: any header change recompiles every unit (simple, and rare). */
function newestHeader() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(h|hpp)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ['core-cpp/include', 'core-cpp/src', 'cuda/addon', 'cuda/device', 'cuda/execute']) {
    if (existsSync(join(root, dir))) walk(join(root, dir));
  }
  return newest;
}

/** Compiles what changed (a source or any header), JOBS at a time, then links. */
async function build() {
  if (process.argv.includes('--clean')) rmSync(outDir, { recursive: true, force: true });
  execFileSync(process.execPath, [join(root, 'scripts', 'gen-native-abi.mjs')], { stdio: 'inherit' });
  mkdirSync(objDir, { recursive: true });
  const units = sources().map((src) => ({ src: join(root, src), obj: join(objDir, src.replace(/[/\\]/g, '__').replace(/\.cpp$/, '.o')) }));
  const headers = newestHeader();
  const todo = units.filter((u) => newer(u.src, u.obj) || statSync(u.obj).mtimeMs < headers);
  log(`compiling ${todo.length} of ${units.length} sources with ${SANITIZE[0]}`);
  let failed = null;
  const worker = async () => {
    for (let u = todo.shift(); u && !failed; u = todo.shift()) {
      const code = await new Promise((done) => spawn(CXX, [...CXXFLAGS, '-c', u.src, '-o', u.obj], { stdio: 'inherit' }).on('close', done));
      if (code !== 0) failed = u.src;
    }
  };
  await Promise.all(Array.from({ length: JOBS }, worker));
  if (failed) throw new Error(`compiling ${failed} failed`);
  if (units.some((u) => newer(u.obj, addon))) {
    execFileSync(CXX, ['-shared', ...SANITIZE, '-o', addon, ...units.map((u) => u.obj)], { stdio: 'inherit' });
  }
  log(`built ${addon}`);
}

function runtime(name) {
  const path = spawnSync(CXX, [`-print-file-name=${name}`], { encoding: 'utf8' }).stdout.trim();
  if (!path || path === name || !existsSync(path)) throw new Error(`${name} not found by ${CXX} -print-file-name`);
  return path;
}

function reports() {
  return existsSync(reportDir) ? readdirSync(reportDir).map((f) => join(reportDir, f)) : [];
}

async function main() {
  await build();
  if (process.argv.includes('--build-only')) return;
  if (!existsSync(join(root, 'dist', 'index.mjs'))) throw new Error('dist/ is not built (run `npm run build:ts`)');
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true });
  const env = {
    ...process.env,
    LD_PRELOAD: [runtime('libasan.so'), process.env.LD_PRELOAD].filter(Boolean).join(':'),
    ASAN_OPTIONS: `detect_leaks=0:log_path=${join(reportDir, 'asan')}`,
    UBSAN_OPTIONS: `print_stacktrace=1:log_path=${join(reportDir, 'ubsan')}`,
    TENSORPLAN_NATIVE_ADDON: addon,
    TP_TEST_BACKENDS: 'native',
    TP_REQUIRE_NATIVE: '1',
  };
  const suites = ['test/house/public-fuzz.test.ts', 'test/abi'];
  log(`running ${suites.join(' ')} on the sanitized addon (TP_FUZZ_RUNS=${process.env.TP_FUZZ_RUNS ?? 'default'})`);
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const started = Date.now();
  const result = spawnSync(process.execPath, [vitest, 'run', '--testTimeout=1800000', ...suites], { cwd: root, env, stdio: 'inherit' });
  log(`tests finished in ${((Date.now() - started) / 1000).toFixed(0)} s with exit status ${result.status ?? result.signal}`);
  const found = reports();
  for (const file of found) {
    console.error(`\n===== ${basename(file)} =====\n${readFileSync(file, 'utf8')}`);
  }
  if (found.length > 0) {
    console.error(`fuzz-asan: ${found.length} sanitizer report(s) in ${reportDir}`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(1);
  log('clean: no sanitizer reports');
}

main().catch((error) => {
  console.error(`fuzz-asan: failed: ${error.message}`);
  process.exit(1);
});
