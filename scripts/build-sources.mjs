// The files each build of the core is compiled from, with a SHA-256 of each.
// scripts/build-native.mjs and scripts/build-wasm.mjs record them (in
// build/native-status.json and build/wasm-status.json) when they build;
// scripts/check-builds-fresh.mjs compares them with the tree before the tests
// and the benchmarks load the builds. Neither build reruns on its own, so
// without this an edit to the core would be tested and measured on the code
// from before it.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { filesUnder } from './list-sources.mjs';

/**
 * The native addon's sources: what binding.gyp and scripts/build-native.mjs
 * read (the core, the addon's and CUDA's folders but not cuda/tests, which
 * has its own build, and the scripts that generate or list sources).
 */
export const NATIVE_SOURCES = {
  folders: ['core-cpp/include', 'core-cpp/src', 'cuda/addon', 'cuda/device', 'cuda/execute'],
  files: ['binding.gyp', 'scripts/build-native.mjs', 'scripts/gen-native-abi.mjs', 'scripts/abi/parse-c-api.mjs',
    'scripts/list-sources.mjs', 'scripts/build-sources.mjs'],
};

/** The WASM build's sources: the core and the scripts that list and compile it. */
export const WASM_SOURCES = {
  folders: ['core-cpp/include', 'core-cpp/src'],
  files: ['scripts/build-wasm.mjs', 'scripts/list-sources.mjs'],
};

/** The paths of a source set under `root`, relative to it ('/'-separated), sorted; missing ones left out. */
export function sourcePaths(root, set) {
  return [
    ...set.folders.filter((folder) => existsSync(join(root, folder))).flatMap((folder) => filesUnder(join(root, folder))),
    ...set.files.map((file) => join(root, file)).filter((path) => existsSync(path)),
  ].map((path) => relative(root, path).split('\\').join('/')).sort();
}

/**
 * Every file of a source set under `root` (a repository or an unpacked
 * package), as an object from its relative path to the hex SHA-256 of its
 * bytes, in path order.
 */
export function sourceDigests(root, set) {
  const digests = {};
  for (const path of sourcePaths(root, set)) digests[path] = createHash('sha256').update(readFileSync(join(root, path))).digest('hex');
  return digests;
}

/**
 * The paths whose contents differ between two digest objects: changed,
 * added (only in `current`) and removed (only in `recorded`), each sorted.
 */
export function changedSources(recorded, current) {
  const changed = [];
  const added = [];
  const removed = [];
  for (const [path, digest] of Object.entries(current)) {
    if (!(path in recorded)) added.push(path);
    else if (recorded[path] !== digest) changed.push(path);
  }
  for (const path of Object.keys(recorded)) if (!(path in current)) removed.push(path);
  return { changed: changed.sort(), added: added.sort(), removed: removed.sort() };
}
