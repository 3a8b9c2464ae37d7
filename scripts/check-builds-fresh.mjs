// Rebuilds the native addon and the WASM module when they were built from
// other sources than the tree's, before `npm test` and `npm run bench` load
// them (scripts/build-sources.mjs says why).
//
// - Native: build/native-status.json records the sources of the addon in
//   build/Release. A tree without a built addon is left as it is: the tests
//   then run on WASM or fail where the native backend is required
//   (TP_REQUIRE_NATIVE=1), each saying why.
// - WASM: wasm/dist is committed, and CI rebuilds it and fails on any
//   difference, so a clean checkout's module matches its sources. Where
//   build/wasm-status.json records a local build, its sources are compared;
//   where none does, the module is stale when git sees the core's sources
//   changed in the working tree.
//
//   node scripts/check-builds-fresh.mjs          rebuild what is stale
//   node scripts/check-builds-fresh.mjs --check  exit 1 when something is stale instead
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { changedSources, NATIVE_SOURCES, sourceDigests, WASM_SOURCES } from './build-sources.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

function listed(paths) {
  return paths.length <= 4 ? paths.join(', ') : `${paths.slice(0, 4).join(', ')} and ${paths.length - 4} more`;
}

/** What differs between a build's recorded sources and the tree's, or null. */
function differences(recorded, current) {
  const { changed, added, removed } = changedSources(recorded, current);
  const parts = [
    changed.length ? `changed: ${listed(changed)}` : '',
    added.length ? `added: ${listed(added)}` : '',
    removed.length ? `removed: ${listed(removed)}` : '',
  ].filter(Boolean);
  return parts.length ? `sources differ from the build's (${parts.join('; ')})` : null;
}

/**
 * Why a recorded build under `treeRoot` is stale, judged by its status file
 * in build/ (`statusName`) against the tree's `set`, or null when it is
 * fresh or the status says the build failed (it then says why itself).
 */
function staleAgainstRecord(treeRoot, statusName, set) {
  let status;
  try {
    status = JSON.parse(readFileSync(join(treeRoot, 'build', statusName), 'utf8'));
  } catch {
    return `build/${statusName} is missing or unreadable, so what the build was made from is unknown`;
  }
  if (status.built !== true) return null;
  if (typeof status.sources !== 'object' || status.sources === null) {
    return `build/${statusName} records no sources, so what the build was made from is unknown`;
  }
  return differences(status.sources, sourceDigests(treeRoot, set));
}

/**
 * Why the native addon under `treeRoot` is stale, or null when it was built
 * from the tree's sources or there is no built addon to judge.
 */
export function staleNativeReason(treeRoot = root) {
  if (!existsSync(join(treeRoot, 'build', 'Release', 'tensorplan_native.node'))) return null;
  return staleAgainstRecord(treeRoot, 'native-status.json', NATIVE_SOURCES);
}

/**
 * Why the WASM module under `treeRoot` is stale, or null. `gitChanged`
 * lists the WASM sources that git sees changed or untracked (null outside a
 * git checkout); it is asked only where no local build is recorded.
 */
export function staleWasmReason(treeRoot = root, gitChanged = () => wasmSourcesChangedInGit(treeRoot)) {
  if (existsSync(join(treeRoot, 'build', 'wasm-status.json'))) {
    return staleAgainstRecord(treeRoot, 'wasm-status.json', WASM_SOURCES);
  }
  const changed = gitChanged();
  if (changed === null || changed.length === 0) return null;
  return `the committed module predates sources changed in the working tree (${listed(changed)}) and no local build is recorded`;
}

/** The WASM sources git sees modified, added or untracked, or null outside a git checkout. */
function wasmSourcesChangedInGit(treeRoot) {
  const paths = [...WASM_SOURCES.folders, ...WASM_SOURCES.files];
  const result = spawnSync('git', ['status', '--porcelain', '--untracked-files=all', '--', ...paths], { cwd: treeRoot, encoding: 'utf8' });
  if (result.status !== 0) return null;
  return result.stdout.split('\n').filter(Boolean).map((line) => line.slice(3)).sort();
}

async function main() {
  const stale = [
    { name: 'the native addon', reason: staleNativeReason(), rebuild: 'build:native' },
    { name: 'the WASM module', reason: staleWasmReason(), rebuild: 'build:wasm' },
  ].filter((build) => build.reason !== null);
  if (stale.length === 0) return;
  if (process.argv.includes('--check')) {
    for (const build of stale) console.error(`check-builds-fresh: ${build.name} is stale: ${build.reason}. Run \`npm run ${build.rebuild}\`.`);
    process.exit(1);
  }
  for (const build of stale) {
    console.log(`check-builds-fresh: ${build.name}: ${build.reason}: running npm run ${build.rebuild}`);
    execFileSync('npm', ['run', build.rebuild], { cwd: root, stdio: 'inherit' });
  }
  const after = [staleNativeReason(), staleWasmReason()].filter((reason) => reason !== null);
  if (after.length > 0) {
    console.error(`check-builds-fresh: still stale after the build: ${after.join('; ')}`);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
