// npm install's step for the native addon (the package's `install` script).
// A prebuilt binary that loads here (prebuilds/, see scripts/prebuild.mjs)
// makes it a no-op of well under a second: no compiler, no nvcc needed.
// Otherwise, or with `npm install --build-from-source`, it compiles the addon
// (scripts/build-native.mjs --optional: a failed build leaves the WASM
// backend, and `info` says why). This follows node-gyp-build's own install
// step, which cannot be used as it is because the source build has a CUDA step.
//
// Newer npm (11.x) skips dependencies' install scripts unless the project
// allows them, so nothing may depend on this script having run: the runtime
// finds the prebuilt binary by itself (src/backend/native-backend.ts).
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main as buildNative } from './build-native.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const fromSource = process.env.npm_config_build_from_source === 'true' || process.argv.includes('--build-from-source');

function prebuiltThatLoads() {
  try {
    const path = require('node-gyp-build').resolve(root);
    require(path);
    return { path };
  } catch (error) {
    return { reason: String(error.message ?? error).split('\n')[0] };
  }
}

if (fromSource) {
  console.log('install-native: --build-from-source: compiling the addon');
  buildNative({ optional: true });
} else {
  const found = prebuiltThatLoads();
  if (found.path) {
    console.log(`install-native: using ${relative(root, found.path)}`);
  } else {
    console.log(`install-native: no addon that loads here (${found.reason}): compiling one`);
    buildNative({ optional: true });
  }
}
