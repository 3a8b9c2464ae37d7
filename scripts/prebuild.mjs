// Builds the prebuilt addon that ships in the package, so users install
// without a compiler: prebuilds/linux-x64/tensorplan.glibc.node, named
// and found the way prebuildify and node-gyp-build agree on (N-API, so one
// binary serves every Node version: no abi tag in the name). `npm pack` runs it (prepack).
//
//   node scripts/prebuild.mjs          build unless the last prebuild came from
//                                      the same sources, architectures and nvcc
//   node scripts/prebuild.mjs --force  always build
//   TP_CUDA_ARCHS=90  fewer architectures for a quick local build (the
//                     default list is CUDA_ARCHS in build-native.mjs)
//   TP_CUDA=0         a CPU-only prebuild (otherwise nvcc is required: the
//                     shipped binary must carry the CUDA executor)
//
// prebuildify runs node-gyp itself; the CUDA objects come first from
// build-native.mjs and reach binding.gyp through GYP_DEFINES, which gyp reads
// like -D arguments. node-gyp rebuild wipes build/, so the developer's own
// build (build:native) is set aside and put back.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLinkage, compileCuda, cudaArchs, findNodeGyp, nodeDir } from './build-native.mjs';
import { findNvcc } from './find-nvcc.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const work = join(root, 'build-prebuild');
const stampFile = join(work, 'stamp.json');
const builds = join(root, 'prebuilds', `${process.platform}-${process.arch}`);

function log(message) {
  console.log(`prebuild: ${message}`);
}

/** Every input of the binary, hashed, so an unchanged tree packs in a second. */
function fingerprint(nvcc) {
  const hash = createHash('sha256');
  const walk = (dir) => readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  const inputs = [
    ...['core-cpp/include', 'core-cpp/src', 'cuda/addon', 'cuda/device', 'cuda/execute'].flatMap((d) => walk(join(root, d))),
    ...['binding.gyp', 'scripts/build-native.mjs', 'scripts/prebuild.mjs', 'scripts/gen-native-abi.mjs', 'scripts/abi/parse-c-api.mjs'].map((f) => join(root, f)),
  ].sort();
  for (const file of inputs) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  // Of package.json only what reaches the binary, so editing a script does not rebuild it.
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const addonApi = JSON.parse(readFileSync(require.resolve('node-addon-api/package.json'), 'utf8')).version;
  hash.update(JSON.stringify({ archs: nvcc ? cudaArchs() : [], nvcc, version: pkg.version, addonApi, napi: process.versions.napi }));
  return hash.digest('hex');
}

function prebuildFiles() {
  return existsSync(builds) ? readdirSync(builds).filter((f) => f.endsWith('.node')) : [];
}

async function main() {
  const nvcc = findNvcc();
  if (!nvcc && process.env.TP_CUDA !== '0') {
    throw new Error('nvcc not found: the prebuilt binary must include the CUDA executor (set NVCC, or TP_CUDA=0 for a CPU-only prebuild)');
  }
  const stamp = fingerprint(nvcc);
  const previous = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, 'utf8')) : null;
  if (!process.argv.includes('--force') && previous?.stamp === stamp && prebuildFiles().includes(previous.file)) {
    log(`up to date: prebuilds/${relative(join(root, 'prebuilds'), join(builds, previous.file))} (--force rebuilds)`);
    return;
  }

  const started = Date.now();
  mkdirSync(work, { recursive: true });
  execFileSync(process.execPath, [join(root, 'scripts', 'gen-native-abi.mjs')], { stdio: 'inherit' });
  const defines = [];
  if (nvcc) {
    log(`compiling CUDA with ${nvcc} for sm_${cudaArchs().join(', sm_')} (+PTX)`);
    const cuda = compileCuda(nvcc);
    log(`CUDA objects in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    defines.push('tp_cuda=true', `tp_cuda_objects='${cuda.objects.join(' ')}'`, `tp_cuda_lib_dir='${cuda.libDir}'`);
  }

  const saved = join(work, 'saved-build');
  rmSync(saved, { recursive: true, force: true });
  if (existsSync(join(root, 'build'))) renameSync(join(root, 'build'), saved);
  rmSync(builds, { recursive: true, force: true });
  try {
    const prebuildify = require('prebuildify');
    const env = { GYP_DEFINES: defines.join(' '), JOBS: process.env.JOBS ?? '2' };
    const headers = nodeDir();
    if (headers) env.npm_config_nodedir = headers;
    Object.assign(process.env, env);
    await new Promise((resolve, reject) => prebuildify({
      cwd: root,
      napi: true,
      targets: [process.versions.node],
      strip: true,
      tagLibc: true,
      nodeGyp: findNodeGyp() ?? undefined,
    }, (error) => (error ? reject(error) : resolve())));
  } finally {
    rmSync(join(root, 'build'), { recursive: true, force: true });
    if (existsSync(saved)) renameSync(saved, join(root, 'build'));
  }

  const [file] = prebuildFiles();
  if (!file) throw new Error(`prebuildify left no .node file in ${builds}`);
  const path = join(builds, file);
  const needed = checkLinkage(path);
  const mb = statSync(path).size / 2 ** 20;
  if (mb >= 40) throw new Error(`${file} is ${mb.toFixed(1)} MiB: the prebuilt binary must stay under 40 MiB`);
  writeFileSync(stampFile, JSON.stringify({ stamp, file, cuda: Boolean(nvcc), archs: nvcc ? cudaArchs() : [], needed }, null, 2) + '\n');
  log(`built prebuilds/${process.platform}-${process.arch}/${file}: ${mb.toFixed(1)} MiB, ${nvcc ? `CUDA sm_${cudaArchs().join(', sm_')}` : 'no CUDA'}, ` +
    `needs ${needed?.join(', ') ?? '?'}, ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((error) => {
  console.error(`prebuild: failed: ${error.message ?? error}`);
  if (process.env.TP_DEBUG) console.error(error.stack);
  process.exit(1);
});
