// Prints the core's C++ sources, one per line, relative to the repository root.
// binding.gyp calls this so new core files join the addon without edits there.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));

export function coreSources() {
  const dir = join(root, 'core-cpp', 'src');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.cpp'))
    .sort()
    .map((name) => relative(root, join(dir, name)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(coreSources().join('\n') + '\n');
}
