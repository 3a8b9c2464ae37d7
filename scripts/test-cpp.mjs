// `npm run test:cpp`: configures and builds core-cpp with its GoogleTest suites
// and runs them with ctest. GoogleTest comes from Debian (libgtest-dev); on a
// fresh machine it is installed here when we may (root with apt), otherwise
// the error says exactly what to run. Where nvcc exists the build includes
// the GPU runners of cuda/tests.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNvcc } from './find-nvcc.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const buildDir = 'build-cpp/core';

function hasGTest() {
  return ['/usr/lib/x86_64-linux-gnu/cmake/GTest', '/usr/lib/aarch64-linux-gnu/cmake/GTest', '/usr/lib/cmake/GTest', '/usr/local/lib/cmake/GTest']
    .some((dir) => existsSync(dir));
}

function run(command, args) {
  execFileSync(command, args, { cwd: root, stdio: 'inherit' });
}

if (!hasGTest()) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).status === 0;
  if (!isRoot || !hasApt) {
    console.error('test-cpp: GoogleTest is missing. Install it with: sudo apt-get install -y libgtest-dev');
    process.exit(1);
  }
  console.log('test-cpp: installing GoogleTest (apt-get install libgtest-dev)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let install = spawnSync('apt-get', ['install', '-y', '-qq', 'libgtest-dev'], { stdio: 'inherit', env });
  if (install.status !== 0) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    install = spawnSync('apt-get', ['install', '-y', '-qq', 'libgtest-dev'], { stdio: 'inherit', env });
  }
  if (install.status !== 0) process.exit(1);
}

// With nvcc the CUDA executor's GPU runners build too (ctest shows them
// skipped, with the reason, where no GPU is usable).
const nvcc = findNvcc();
const gpuArgs = nvcc ? ['-DTP_GPU_TESTS=ON', `-DCMAKE_CUDA_COMPILER=${nvcc}`] : ['-DTP_GPU_TESTS=OFF'];
console.log(nvcc ? `test-cpp: building the GPU runners with ${nvcc}` : 'test-cpp: nvcc not found, GPU runners not built');
run('cmake', ['-S', 'core-cpp', '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release', ...gpuArgs]);
run('cmake', ['--build', buildDir, '-j2']);
run('ctest', ['--test-dir', buildDir, '--output-on-failure', '-j2']);

// ctest shows a skipped test without its output; print the runners' reason.
const log = join(root, buildDir, 'Testing', 'Temporary', 'LastTest.log');
if (nvcc && existsSync(log)) {
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (line.startsWith('SKIPPED:')) console.log(`test-cpp: GPU runner ${line}`);
  }
}
