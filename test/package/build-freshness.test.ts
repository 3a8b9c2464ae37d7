// The check that rebuilds the native addon and the WASM module when the
// tree's sources differ from the ones they were built from
// (scripts/check-builds-fresh.mjs), on a copy of the sources in a temporary
// folder, so the repository's own builds are never touched.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staleNativeReason, staleWasmReason } from '../../scripts/check-builds-fresh.mjs';
import { changedSources, NATIVE_SOURCES, sourceDigests, WASM_SOURCES } from '../../scripts/build-sources.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('build freshness', () => {
  let tree: string;

  beforeEach(() => {
    tree = mkdtempSync(join(tmpdir(), 'tp-builds-fresh-'));
    for (const path of ['core-cpp/include', 'core-cpp/src/placement', 'cuda/addon', 'binding.gyp', 'scripts/build-wasm.mjs']) {
      cpSync(join(root, path), join(tree, path), { recursive: true });
    }
  });
  afterEach(() => rmSync(tree, { recursive: true, force: true }));

  // What build-native.mjs leaves: an addon file and the status with the digests read before compiling.
  function recordNativeBuild(sources: Record<string, string>) {
    mkdirSync(join(tree, 'build', 'Release'), { recursive: true });
    writeFileSync(join(tree, 'build', 'Release', 'tensorplan_native.node'), 'not a real addon');
    writeFileSync(join(tree, 'build', 'native-status.json'), JSON.stringify({ built: true, cuda: false, reason: '', sources }));
  }
  function recordWasmBuild(sources: Record<string, string>) {
    mkdirSync(join(tree, 'build'), { recursive: true });
    writeFileSync(join(tree, 'build', 'wasm-status.json'), JSON.stringify({ built: true, sources }));
  }
  function edit(path: string) {
    writeFileSync(join(tree, path), readFileSync(join(tree, path), 'utf8') + '\n// an edit\n');
  }
  const nothingInGit = () => [];

  it('digests every file of a set, by path relative to the root, and only that set', () => {
    const native = sourceDigests(tree, NATIVE_SOURCES);
    expect(Object.keys(native)).toContain('core-cpp/src/placement/placement.cpp');
    expect(Object.keys(native)).toContain('core-cpp/include/tensorplan/c_api.h');
    expect(Object.keys(native)).toContain('binding.gyp');
    expect(Object.keys(native)).toContain('cuda/addon/addon.cpp');
    expect(Object.keys(native)).not.toContain('scripts/build-wasm.mjs');
    expect(Object.keys(native)).toEqual([...Object.keys(native)].sort());
    expect(Object.values(native).every((digest) => /^[0-9a-f]{64}$/.test(digest))).toBe(true);
    const wasm = sourceDigests(tree, WASM_SOURCES);
    expect(Object.keys(wasm)).toContain('scripts/build-wasm.mjs');
    expect(Object.keys(wasm).some((path) => path.startsWith('cuda/') || path === 'binding.gyp')).toBe(false);
  });

  it('finds nothing stale right after a build, and no addon at all is not stale', () => {
    expect(staleNativeReason(tree)).toBeNull();
    recordNativeBuild(sourceDigests(tree, NATIVE_SOURCES));
    expect(staleNativeReason(tree)).toBeNull();
    recordWasmBuild(sourceDigests(tree, WASM_SOURCES));
    expect(staleWasmReason(tree, nothingInGit)).toBeNull();
  });

  it('names a changed, an added and a removed source', () => {
    recordNativeBuild(sourceDigests(tree, NATIVE_SOURCES));
    edit('core-cpp/src/placement/placement.cpp');
    writeFileSync(join(tree, 'core-cpp/src/placement/placement_new_rule.cpp'), '// new\n');
    rmSync(join(tree, 'cuda/addon/addon.cpp'));
    const reason = staleNativeReason(tree);
    expect(reason).toContain('changed: core-cpp/src/placement/placement.cpp');
    expect(reason).toContain('added: core-cpp/src/placement/placement_new_rule.cpp');
    expect(reason).toContain('removed: cuda/addon/addon.cpp');
  });

  it('judges each build by its own sources: an edit to the addon does not make the WASM module stale', () => {
    recordNativeBuild(sourceDigests(tree, NATIVE_SOURCES));
    recordWasmBuild(sourceDigests(tree, WASM_SOURCES));
    edit('cuda/addon/addon.cpp');
    expect(staleNativeReason(tree)).toContain('changed: cuda/addon/addon.cpp');
    expect(staleWasmReason(tree, nothingInGit)).toBeNull();
    edit('core-cpp/src/placement/placement_exact.cpp');
    expect(staleWasmReason(tree, nothingInGit)).toContain('changed: core-cpp/src/placement/placement_exact.cpp');
  });

  it('without a recorded WASM build, trusts the committed module unless git sees its sources changed', () => {
    expect(staleWasmReason(tree, nothingInGit)).toBeNull();
    expect(staleWasmReason(tree, () => null)).toBeNull();
    const reason = staleWasmReason(tree, () => ['core-cpp/src/placement/placement.cpp']);
    expect(reason).toContain('core-cpp/src/placement/placement.cpp');
    expect(reason).toContain('no local build is recorded');
    // A recorded build wins over what git says.
    recordWasmBuild(sourceDigests(tree, WASM_SOURCES));
    expect(staleWasmReason(tree, () => ['core-cpp/src/placement/placement.cpp'])).toBeNull();
  });

  it('says the build is unknown when the status records no sources, and trusts a failed build to say why itself', () => {
    recordNativeBuild(sourceDigests(tree, NATIVE_SOURCES));
    writeFileSync(join(tree, 'build', 'native-status.json'), JSON.stringify({ built: true, cuda: false, reason: '' }));
    expect(staleNativeReason(tree)).toContain('records no sources');
    writeFileSync(join(tree, 'build', 'native-status.json'), JSON.stringify({ built: false, cuda: false, reason: 'no compiler' }));
    expect(staleNativeReason(tree)).toBeNull();
    writeFileSync(join(tree, 'build', 'wasm-status.json'), '{ not json');
    expect(staleWasmReason(tree, nothingInGit)).toContain('unknown');
  });

  it('lists four paths and counts the rest', () => {
    const recorded = { a: '1', b: '1', c: '1', d: '1', e: '1', f: '1' };
    const current = { a: '2', b: '2', c: '2', d: '2', e: '2', f: '1', g: '1' };
    expect(changedSources(recorded, current)).toEqual({ changed: ['a', 'b', 'c', 'd', 'e'], added: ['g'], removed: [] });
    recordNativeBuild(Object.fromEntries(Object.keys(sourceDigests(tree, NATIVE_SOURCES)).map((path) => [path, 'old'])));
    expect(staleNativeReason(tree)).toMatch(/changed: [^;]+ and \d+ more\)$/);
  });
});
