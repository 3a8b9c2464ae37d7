// What ships: entries, exports, the browser bundle's hygiene, versions, and
// the rule that both builds expose exactly the C ABI.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../dist/index.mjs';
import { parseOperations } from '../../scripts/gen-native-abi.mjs';
import { ADDON_BUILT, ADDON_PATH } from '../support/backends';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const header = readFileSync(new URL('core-cpp/include/tensorplan/c_api.h', root), 'utf8');

describe('package', () => {
  it('versions agree: package.json, the facade, the core header', () => {
    expect(VERSION).toBe(pkg.version);
    const core = readFileSync(new URL('core-cpp/src/base/version.h', root), 'utf8');
    expect(core).toContain(`"${pkg.version}"`);
  });

  it('exports have types first and node/browser conditions', () => {
    const main = pkg.exports['.'];
    expect(Object.keys(main)[0]).toBe('types');
    expect(main.node.import).toBe('./dist/index.mjs');
    expect(main.node.require).toBe('./dist/index.cjs');
    expect(main.browser).toBe('./dist/browser.mjs');
  });

  it('the CommonJS build works', () => {
    const cjs = createRequire(import.meta.url)('../../dist/index.cjs');
    expect(cjs.VERSION).toBe(pkg.version);
    const script = `require(${JSON.stringify(new URL('dist/index.cjs', root).pathname)}).init({ backend: 'wasm' }).then((tp) => console.log(tp.bulkLayout([{ shape: [3], dtype: 'fp32' }]).usedBytes))`;
    expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim()).toBe('12');
  });

  it('the browser entry never mentions the file system, Node modules or the addon', () => {
    // Code only: doc comments kept in the bundle may show Node usage (the @example of
    // importOnnx reads a file with node:fs), which no browser runs.
    const browser = readFileSync(new URL('dist/browser.mjs', root), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    // (ajv's code generator carries `require("ajv/...")` as strings it never runs.)
    for (const forbidden of ["from 'node:", 'import("node:', "from 'fs'", 'createRequire', 'tensorplan_native', 'readFile', 'process.env']) {
      expect(browser, forbidden).not.toContain(forbidden);
    }
  });

  it('npm pack ships the JS, types and WASM, and no tests, benchmarks or build trees', () => {
    const out = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    const files: string[] = JSON.parse(out.stdout)[0].files.map((f: { path: string }) => f.path);
    for (const required of ['dist/index.mjs', 'dist/index.cjs', 'dist/index.d.ts', 'dist/browser.mjs', 'dist/cli.mjs',
      'wasm/dist/tensorplan_core.wasm', 'bin/tensorplan.mjs', 'binding.gyp', 'core-cpp/include/tensorplan/c_api.h']) {
      expect(files, required).toContain(required);
    }
    for (const file of files) {
      expect(file, file).not.toMatch(/^(test|bench|core-cpp\/tests|build|docs|examples|src)\//);
    }
  });
});

describe('one C ABI, two builds', () => {
  const operations = parseOperations(header).map((op) => op.name);
  const declared = [...header.matchAll(/TP_API\s+[\w\s*]+?\b(tp_\w+)\s*\(/g)].map((m) => m[1]);

  it('c_api.h declares operations', () => {
    expect(operations).toContain('tp_bulk_layout');
  });

  it('the WASM build exports every function of c_api.h', () => {
    const glue = readFileSync(new URL('wasm/dist/tensorplan_core.mjs', root), 'utf8');
    for (const name of declared) expect(glue, name).toContain(`_${name}`);
  });

  it.skipIf(!ADDON_BUILT)('the native addon wraps every function of c_api.h', () => {
    const addon = createRequire(import.meta.url)(ADDON_PATH.pathname);
    const wrapped = new Set(Object.keys(addon));
    for (const name of operations) expect(wrapped.has(name), name).toBe(true);
    for (const name of ['tp_abi_version', 'tp_core_version', 'tp_last_error']) expect(wrapped.has(name), name).toBe(true);
  });

  it.skipIf(!ADDON_BUILT)('the addon links neither libcuda nor a shared CUDA runtime', () => {
    const readelf = spawnSync('readelf', ['-d', ADDON_PATH.pathname], { encoding: 'utf8' });
    if (readelf.status !== 0) return; // no binutils: the build script checked it already
    const needed = [...readelf.stdout.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
    expect(needed.length).toBeGreaterThan(0);
    for (const lib of needed) expect(lib).not.toMatch(/^libcuda(rt)?\.so/);
  });
});
