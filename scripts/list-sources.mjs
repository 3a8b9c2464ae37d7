// Prints the core's C++ sources, one per line, relative to the repository root.
// binding.gyp and the WASM build call this so new core files join both builds
// without edits there. The core is one folder per concept (core-cpp/src/<concept>/),
// so the walk is recursive; the list is sorted by path so the WASM link order,
// and with it the committed binary, does not depend on the file system.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The files under `dir`, recursively, whose name `keep` accepts (all by default), as full paths. */
export function filesUnder(dir, keep = () => true) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, keep);
    return entry.isFile() && keep(entry.name) ? [path] : [];
  });
}

export function coreSources() {
  return filesUnder(join(root, 'core-cpp', 'src'), (name) => name.endsWith('.cpp'))
    .map((path) => relative(root, path).split('\\').join('/'))
    .sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(coreSources().join('\n') + '\n');
}
