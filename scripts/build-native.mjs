// Builds the native addon (build/Release/tensorplan_native.node): the core
// compiled natively, plus the CUDA side where nvcc exists.
//
//   node scripts/build-native.mjs             build; exit 1 on failure
//   node scripts/build-native.mjs --optional  never fail (npm install): the SDK
//                                             then runs on WASM and `info` says why
//   TP_CUDA=0|1  force CUDA off, or require it (default: use nvcc when found)
//   NVCC=/path/to/nvcc  choose the CUDA compiler
//   TP_CUDA_ARCHS=80,90  the GPU architectures to compile device code for
//                        (default CUDA_ARCHS below; fewer is faster locally)
//
// scripts/prebuild.mjs reuses the CUDA step and the checks below to make the
// prebuilt binary that ships in the package (prebuilds/linux-x64).
//
// CUDA objects are compiled with nvcc, then linked with the static CUDA
// runtime; libcuda is never linked, so the addon loads without a driver.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNvcc } from './find-nvcc.mjs';
import { NATIVE_SOURCES, sourceDigests } from './build-sources.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const statusFile = join(root, 'build', 'native-status.json');

// The one list of GPU architectures: the data-centre GPUs in service (A100,
// H100/H200, B200) get cubins; the newest also gets PTX so later GPUs can JIT it.
export const CUDA_ARCHS = ['80', '90', '100'];

/** The architectures to build for: TP_CUDA_ARCHS (e.g. "90") or CUDA_ARCHS. */
export function cudaArchs() {
  const wanted = process.env.TP_CUDA_ARCHS?.split(',').map((a) => a.trim().replace(/^sm_/, '')).filter(Boolean);
  const archs = wanted?.length ? wanted : CUDA_ARCHS;
  for (const arch of archs) {
    if (!/^\d+[a-z]?$/.test(arch)) throw new Error(`TP_CUDA_ARCHS = ${JSON.stringify(process.env.TP_CUDA_ARCHS)}: "${arch}" is not an architecture like 90`);
  }
  return archs;
}

/** nvcc -gencode flags: a cubin per architecture, PTX for the last one. */
export function gencodeFlags(archs = cudaArchs()) {
  return archs.flatMap((arch, i) => ['-gencode',
    i === archs.length - 1 ? `arch=compute_${arch},code=[sm_${arch},compute_${arch}]` : `arch=compute_${arch},code=sm_${arch}`]);
}

function log(message) {
  console.log(`build-native: ${message}`);
}

function writeStatus(status) {
  mkdirSync(dirname(statusFile), { recursive: true });
  writeFileSync(statusFile, JSON.stringify(status, null, 2) + '\n');
}

export function findNodeGyp() {
  // npm tells lifecycle scripts where its bundled node-gyp is.
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    '/usr/share/nodejs/node-gyp/bin/node-gyp.js',
  ];
  try {
    candidates.push(createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // not installed as a package; the candidates above may still exist
  }
  return candidates.find((candidate) => candidate && existsSync(candidate)) ?? null;
}

export function compileCuda(nvcc) {
  const objDir = join(root, 'cuda', 'build', 'obj');
  mkdirSync(objDir, { recursive: true });
  const objects = [];
  // The kernels live in cuda/device and cuda/execute (cuda/tests has its own build).
  const sources = ['device', 'execute'].flatMap((dir) =>
    readdirSync(join(root, 'cuda', dir)).filter((f) => f.endsWith('.cu')).sort().map((f) => join(dir, f)));
  for (const name of sources) {
    const object = join(objDir, basename(name).replace(/\.cu$/, '.o'));
    execFileSync(nvcc, [
      '-c', '-O2', '-std=c++17', '--cudart', 'static',
      '-Xcompiler', '-fPIC,-Wall,-Werror',
      ...gencodeFlags(),
      '-I', join(root, 'core-cpp', 'include'), '-I', join(root, 'core-cpp', 'src'), '-I', join(root, 'cuda'),
      join(root, 'cuda', name), '-o', object,
    ], { stdio: 'inherit' });
    objects.push(object);
  }
  // nvcc may be a wrapper script outside the toolkit, so look in the usual places too.
  const libDirs = [
    process.env.CUDA_HOME && join(process.env.CUDA_HOME, 'lib64'),
    process.env.CUDA_PATH && join(process.env.CUDA_PATH, 'lib64'),
    join(dirname(nvcc), '..', 'lib64'),
    '/usr/local/cuda/lib64',
    '/usr/local/cuda/targets/x86_64-linux/lib',
  ].filter(Boolean);
  const libDir = libDirs.find((dir) => existsSync(join(dir, 'libcudart_static.a')));
  if (!libDir) throw new Error(`libcudart_static.a not found in ${libDirs.join(', ')}`);
  return { objects, libDir: realpathSync(libDir) };
}

export function neededLibraries(file) {
  const readelf = spawnSync('readelf', ['-d', file], { encoding: 'utf8' });
  if (readelf.status !== 0) return null;
  return [...readelf.stdout.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
}

/** Throws when the addon links libcuda or a shared CUDA runtime. */
export function checkLinkage(addon) {
  const needed = neededLibraries(addon);
  if (needed && needed.some((lib) => /^libcuda(rt)?\.so/.test(lib))) {
    throw new Error(`the addon links ${needed.join(', ')}: CUDA must be static and libcuda never linked`);
  }
  return needed;
}

/** The installed headers of the running Node, so node-gyp never downloads them (there may be no network). */
export function nodeDir() {
  return process.env.npm_config_nodedir ||
    [dirname(dirname(process.execPath))].find((dir) => existsSync(join(dir, 'include', 'node', 'node_api.h')));
}

function build() {
  // Read before compiling: a file edited during the build then counts as
  // changed, and the next check rebuilds.
  const sources = sourceDigests(root, NATIVE_SOURCES);
  const nodeGyp = findNodeGyp();
  if (!nodeGyp) throw new Error('node-gyp not found (it ships with npm; run through npm or install node-gyp)');
  const nvcc = findNvcc();
  if (!nvcc && process.env.TP_CUDA === '1') throw new Error('TP_CUDA=1 but nvcc was not found (set NVCC)');
  execFileSync(process.execPath, [join(root, 'scripts', 'gen-native-abi.mjs')], { stdio: 'inherit' });

  const gypArgs = [];
  let cuda = null;
  if (nvcc) {
    log(`compiling CUDA with ${nvcc} for sm_${cudaArchs().join(', sm_')}`);
    cuda = compileCuda(nvcc);
    gypArgs.push('-Dtp_cuda=true', `-Dtp_cuda_objects=${cuda.objects.join(' ')}`, `-Dtp_cuda_lib_dir=${cuda.libDir}`);
  } else {
    log('nvcc not found: building the addon without CUDA');
  }
  const headers = nodeDir();
  const nodeDirArgs = headers ? ['--nodedir', headers] : [];
  execFileSync(process.execPath, [nodeGyp, 'configure', '--directory', root, ...nodeDirArgs, '--', ...gypArgs], { stdio: 'inherit' });
  execFileSync(process.execPath, [nodeGyp, 'build', '--directory', root, '--jobs', '2'], { stdio: 'inherit' });

  const addon = join(root, 'build', 'Release', 'tensorplan_native.node');
  const needed = checkLinkage(addon);
  return { built: true, cuda: Boolean(cuda), nvcc, needed, reason: '', sources };
}

/** Builds, records the outcome in build/native-status.json, and exits 1 on failure unless optional. */
export function main({ optional = process.argv.includes('--optional') } = {}) {
  try {
    const status = build();
    writeStatus(status);
    log(`built build/Release/tensorplan_native.node (${status.cuda ? 'with CUDA' : 'without CUDA'})`);
  } catch (error) {
    const reason = String(error.message ?? error).split('\n')[0];
    writeStatus({ built: false, cuda: false, reason });
    if (optional) {
      log(`skipped (${reason}); tensorplan will use its WASM backend`);
      process.exit(0);
    }
    console.error(`build-native: failed: ${reason}`);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
