import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type NativeAddon, nativeCoreBinding } from './native-core.js';
import type { LoadedBackend } from './registry.js';

/** The package root, relative to the built entry (dist/*.mjs). */
const PACKAGE_URL = '..';
const BUILD_STATUS_URL = '../build/native-status.json';

let addonAttempt: Promise<{ addon: NativeAddon; path: string }> | undefined;

/**
 * Where the addon is, by node-gyp-build's rule: a source build
 * (build/Release, made by `npm run build:native` or
 * `npm install --build-from-source`) wins, else the prebuilt binary for this
 * platform (prebuilds/linux-x64/tensorplan.glibc.node, made by
 * scripts/prebuild.mjs). TENSORPLAN_NATIVE_ADDON names a file instead.
 */
function resolveAddon(): string {
  const chosen = process.env.TENSORPLAN_NATIVE_ADDON;
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`TENSORPLAN_NATIVE_ADDON = ${chosen}: the file does not exist`);
    return chosen;
  }
  const root = fileURLToPath(new URL(PACKAGE_URL, import.meta.url));
  const nodeGypBuild = createRequire(import.meta.url)('node-gyp-build') as { resolve(dir: string): string };
  try {
    return nodeGypBuild.resolve(root);
  } catch (error) {
    throw new Error(missingAddonReason((error as Error).message.split('\n')[0]));
  }
}

/** Explains a missing addon using what scripts/build-native.mjs recorded. */
function missingAddonReason(searched: string): string {
  const statusPath = fileURLToPath(new URL(BUILD_STATUS_URL, import.meta.url));
  if (existsSync(statusPath)) {
    try {
      const status = JSON.parse(readFileSync(statusPath, 'utf8')) as { built?: boolean; reason?: string };
      if (status.built === false && status.reason) return `the native addon was not built: ${status.reason}`;
    } catch {
      // an unreadable status file says nothing more than the missing addon
    }
  }
  return `no native addon: ${searched} (reinstall with \`npm install --build-from-source\` to compile one, or use the WASM backend)`;
}

/** Loads the addon once, only when a native or cuda backend is asked for. */
function loadAddon(): Promise<{ addon: NativeAddon; path: string }> {
  addonAttempt ??= (async () => {
    const path = resolveAddon();
    try {
      return { addon: createRequire(import.meta.url)(path) as NativeAddon, path };
    } catch (error) {
      throw new Error(`loading ${path} failed: ${(error as Error).message}`);
    }
  })();
  return addonAttempt;
}

/** The core compiled natively, without the GPU. */
export async function loadNativeBackend(): Promise<LoadedBackend> {
  const { addon, path } = await loadAddon();
  return { name: 'native', core: nativeCoreBinding(addon), source: path, cuda: addon.cuda_probe(), addon };
}

/** The native core plus the CUDA executor; needs a CUDA build and a usable GPU. */
export async function loadCudaBackend(): Promise<LoadedBackend> {
  const { addon, path } = await loadAddon();
  const probe = addon.cuda_probe();
  if (!probe.compiled || probe.devices.length === 0) {
    throw new Error(probe.reason || 'no CUDA device is usable');
  }
  return { name: 'cuda', core: nativeCoreBinding(addon), source: path, cuda: probe, addon };
}

/** The loaded addon, for CUDA-only entry points (smoke test, executor). */
export async function nativeAddon(): Promise<NativeAddon> {
  return (await loadAddon()).addon;
}
