// The packed tarball installed as a user installs it: `npm pack` (which runs
// prepack: the prebuilt addon, and prepare: dist/), then `npm install
// tensorplan-*.tgz` into a fresh project under the temp directory, used there
// through ESM import, require, TypeScript types (tsc --noEmit) and the CLI
// through npx. Three toolchains:
//   - neither a C++ compiler nor nvcc on PATH: installs in seconds and runs the
//     native backend from prebuilds/ (the cuda backend says why it is off);
//   - a compiler, no nvcc, `--build-from-source`: a CPU-only source build;
//   - a compiler and nvcc, `--build-from-source`: a source build with CUDA.
// Only the project's node_modules is visible to the installed package, so
// anything it needs outside `files` fails here.
//
// Slow (a pack, three installs, two source builds: minutes), and `npm pack`
// rewrites dist/ that every other test file imports, so it runs as its own CI
// step (`npm run test:package`, .ci/run) rather than inside `npm test`.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const SKIP = process.env.TP_PACKAGE_INSTALL === '1' ? '' : 'runs as its own CI step: npm run test:package';
const hasNvcc = spawnSync('sh', ['-c', 'command -v nvcc'], { encoding: 'utf8' }).status === 0 || existsSync('/usr/local/cuda/bin/nvcc');
const MINUTES = 60_000;

interface Run { code: number | null; stdout: string; stderr: string; seconds: number }

/** Runs a command without blocking this worker (a blocked worker misses vitest's RPC deadlines during minutes of builds). */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, seconds: (Date.now() - started) / 1000 }));
  });
}

/** A PATH holding only node, npm, npx and sh (no cc, c++, make, python or nvcc). */
function barePath(dir: string): string {
  const bin = join(dir, 'bare-bin');
  mkdirSync(bin, { recursive: true });
  for (const tool of ['node', 'npm', 'npx', 'sh']) {
    const found = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    symlinkSync(found, join(bin, tool));
  }
  return bin;
}

/** PATH without the directories that hold nvcc; the compiler stays. */
function pathWithoutNvcc(): string {
  return (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && !existsSync(join(dir, 'nvcc'))).join(delimiter);
}

const USE_ESM = `
import { info, init } from 'tensorplan';
const tp = await init({ backend: process.argv[2] });
const layout = tp.bulkLayout([{ shape: [3], dtype: 'fp32' }, { shape: [5], dtype: 'bf16' }]);
console.log(JSON.stringify({ backend: tp.backend, usedBytes: layout.usedBytes, info: await info() }));
`;
const USE_CJS = `
const { init, VERSION } = require('tensorplan');
init({ backend: 'wasm' }).then((tp) => console.log(JSON.stringify({ version: VERSION, usedBytes: tp.bulkLayout([{ shape: [3], dtype: 'fp32' }]).usedBytes })));
`;
const USE_TS = `
import { init, TensorplanError, type Tensorplan } from 'tensorplan';
async function peak(): Promise<number> {
  const tp: Tensorplan = await init({ backend: 'wasm' });
  return tp.bulkLayout([{ shape: [3], dtype: 'fp32' }]).usedBytes;
}
const wrong: TensorplanError | undefined = undefined;
void wrong;
void peak();
`;
const TSCONFIG = (typeRoots: string) => JSON.stringify({
  compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, typeRoots: [typeRoots], types: ['node'] },
  files: ['use.ts'],
});

describe.skipIf(SKIP !== '')(`the packed tarball installs and works${SKIP ? ` (skipped: ${SKIP})` : ''}`, () => {
  let dir: string;
  let tarball: string;
  let packSeconds = 0;
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tp-install-'));
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], root, process.env);
    expect(packed.code, packed.stderr).toBe(0);
    packSeconds = packed.seconds;
    const [entry] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')));
    tarball = join(dir, entry.filename);
    figures.pack = { seconds: packSeconds, tarballBytes: entry.size, unpackedBytes: entry.unpackedSize, files: entry.entryCount };
    figures.files = entry.files.map((f: { path: string }) => f.path);
  }, 30 * MINUTES);

  afterAll(() => {
    const { files, ...shown } = figures;
    void files;
    console.log(`[package] ${JSON.stringify(shown, null, 1)}`);
    if (dir && process.env.TP_KEEP_INSTALL !== '1') rmSync(dir, { recursive: true, force: true });
  });

  it('ships the prebuilt addon, the report\'s ECharts and every install script, and no ECharts package', async () => {
    const files = figures.files as string[];
    for (const required of ['prebuilds/linux-x64/tensorplan.glibc.node', 'dist/echarts-report.min.js', 'scripts/install-native.mjs',
      'scripts/build-native.mjs', 'scripts/find-nvcc.mjs', 'cuda/device/device_common.cuh']) {
      expect(files, required).toContain(required);
    }
    expect(pkg.dependencies.echarts).toBeUndefined();
  });

  /** A fresh project with the tarball installed under `env`; returns its directory and the install's timing. */
  async function install(name: string, env: NodeJS.ProcessEnv, extra: string[] = [], allowScripts = true): Promise<{ project: string; result: Run }> {
    const project = join(dir, name);
    mkdirSync(project);
    // allowScripts: npm 11 runs a dependency's install script only when the project allows it (a
    // registry install names the package, a tarball its file: spec); older npm ignores the field.
    writeFileSync(join(project, 'package.json'), JSON.stringify({
      name: `try-${name}`, version: '1.0.0', private: true, type: 'module', ...(allowScripts ? { allowScripts: { [`file:${tarball}`]: true } } : {}),
    }));
    const result = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...extra, tarball], project, env);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    return { project, result };
  }

  /** ESM, require, tsc and npx in an installed project; returns what the ESM script printed. */
  async function exercise(project: string, env: NodeJS.ProcessEnv, backend: string) {
    writeFileSync(join(project, 'use.mjs'), USE_ESM);
    writeFileSync(join(project, 'use.cjs'), USE_CJS);
    writeFileSync(join(project, 'use.ts'), USE_TS);
    writeFileSync(join(project, 'tsconfig.json'), TSCONFIG(join(root, 'node_modules', '@types')));

    const esm = await run('node', ['use.mjs', backend], project, env);
    expect(esm.code, esm.stderr).toBe(0);
    const used = JSON.parse(esm.stdout);
    expect(used.backend).toBe(backend);
    expect(used.usedBytes).toBeGreaterThanOrEqual(22);

    const cjs = await run('node', ['use.cjs'], project, env);
    expect(cjs.code, cjs.stderr).toBe(0);
    expect(JSON.parse(cjs.stdout)).toEqual({ version: pkg.version, usedBytes: 12 });

    // The compiler of this repository, checking the installed package's types as a user's project sees them.
    const tsc = await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project, env);
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
    // ... and a wrong use of them fails, so the check above checked something.
    writeFileSync(join(project, 'use.ts'), `import { init } from 'tensorplan';\nconst n: number = init({ backend: 'wasm' });\nvoid n;\n`);
    expect((await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project, env)).code).not.toBe(0);

    const cliInfo = await run('npx', ['--no-install', 'tensorplan', 'info', '--json'], project, env);
    expect(cliInfo.code, cliInfo.stderr).toBe(0);
    cpSync(join(root, 'examples', 'moe-layer.json'), join(project, 'moe-layer.json'));
    const plan = await run('npx', ['--no-install', 'tensorplan', 'plan', 'moe-layer.json', '--backend', backend, '--report', 'report.html'], project, env);
    expect(plan.code, plan.stderr).toBe(0);
    const report = readFileSync(join(project, 'report.html'), 'utf8');
    expect(report).toContain(readFileSync(join(project, 'node_modules', 'tensorplan', 'dist', 'echarts-report.min.js'), 'utf8').slice(0, 200));
    return { used, info: JSON.parse(cliInfo.stdout) };
  }

  function installedBytes(project: string): number {
    const walk = (d: string): number => readdirSync(d, { withFileTypes: true }).reduce((sum, e) => {
      const p = join(d, e.name);
      return sum + (e.isDirectory() ? walk(p) : e.isFile() ? statSync(p).size : 0);
    }, 0);
    return walk(join(project, 'node_modules'));
  }

  it('with neither a compiler nor nvcc: installs in seconds, native from the prebuilt binary, CUDA says why it is off', async () => {
    const env = { ...process.env, PATH: barePath(dir), CC: 'no-cc', CXX: 'no-cxx', CUDA_HOME: '/nonexistent', NVCC: '' };
    expect((await run('sh', ['-c', 'command -v c++ || command -v g++ || command -v nvcc'], dir, env)).code).not.toBe(0);
    const { project, result } = await install('bare', env, ['--foreground-scripts']);
    expect(result.stdout).toContain('install-native: using prebuilds/linux-x64/tensorplan.glibc.node');
    const { used, info } = await exercise(project, env, 'native');
    const addon = join(project, 'node_modules', 'tensorplan', 'prebuilds', 'linux-x64', 'tensorplan.glibc.node');
    expect(used.info.backends.find((b: { name: string }) => b.name === 'native').source).toBe(addon);
    expect(existsSync(join(project, 'node_modules', 'tensorplan', 'build'))).toBe(false);
    // The prebuilt binary carries the CUDA executor; without a usable GPU it says why.
    expect(used.info.cuda?.compiled).toBe(true);
    const cuda = info.backends.find((b: { name: string }) => b.name === 'cuda');
    if (!cuda.available) expect(cuda.reason).toMatch(/\w{6,}/);
    const addonBytes = statSync(addon).size;
    figures.bare = {
      installSeconds: result.seconds, installedBytes: installedBytes(project), addonBytes,
      installedBytesWithoutAddon: installedBytes(project) - addonBytes, cudaReason: cuda.reason,
    };
    expect(addonBytes).toBeLessThan(40 * 2 ** 20);
    expect(installedBytes(project) - addonBytes).toBeLessThan(20 * 2 ** 20);
  }, 10 * MINUTES);

  it('with npm\'s default policy (npm 11: install scripts not allowed) or --ignore-scripts: the prebuilt binary still loads', async () => {
    const env = { ...process.env, PATH: barePath(join(dir, 'p2')), CUDA_HOME: '/nonexistent' };
    const { project } = await install('no-scripts', env, ['--ignore-scripts'], false);
    const { used } = await exercise(project, env, 'native');
    expect(used.backend).toBe('native');
  }, 10 * MINUTES);

  it('with a compiler and no nvcc, --build-from-source: a CPU-only source build, loaded before the prebuilt one', async () => {
    const env = { ...process.env, PATH: pathWithoutNvcc(), CUDA_HOME: '/nonexistent', NVCC: '', JOBS: '2' };
    expect((await run('sh', ['-c', 'command -v nvcc'], dir, env)).code).not.toBe(0);
    const { project, result } = await install('no-nvcc', env, ['--build-from-source', '--foreground-scripts']);
    const installed = join(project, 'node_modules', 'tensorplan');
    const status = JSON.parse(readFileSync(join(installed, 'build', 'native-status.json'), 'utf8'));
    expect(status, result.stdout + result.stderr).toMatchObject({ built: true, cuda: false });
    // The digests of what it was built from, read by the packaged scripts/build-sources.mjs.
    expect(Object.keys(status.sources)).toContain('core-cpp/src/placement/placement.cpp');
    const { used } = await exercise(project, env, 'native');
    expect(used.info.backends.find((b: { name: string }) => b.name === 'native').source).toBe(join(installed, 'build', 'Release', 'tensorplan_native.node'));
    expect(used.info.cuda?.compiled).toBe(false);
    figures.noNvcc = { installSeconds: result.seconds };
  }, 20 * MINUTES);

  it.skipIf(!hasNvcc)('with a compiler and nvcc, --build-from-source: a source build with CUDA', async () => {
    // One architecture keeps this build short; the full list is the prebuild's business.
    const env = { ...process.env, TP_CUDA_ARCHS: process.env.TP_CUDA_ARCHS ?? '90', JOBS: '2' };
    const { project, result } = await install('nvcc', env, ['--build-from-source', '--foreground-scripts']);
    const installed = join(project, 'node_modules', 'tensorplan');
    const status = JSON.parse(readFileSync(join(installed, 'build', 'native-status.json'), 'utf8'));
    expect(status, result.stdout + result.stderr).toMatchObject({ built: true, cuda: true });
    const { used } = await exercise(project, env, 'native');
    expect(used.info.backends.find((b: { name: string }) => b.name === 'native').source).toBe(join(installed, 'build', 'Release', 'tensorplan_native.node'));
    expect(used.info.cuda?.compiled).toBe(true);
    figures.nvcc = { installSeconds: result.seconds };
  }, 30 * MINUTES);
});


