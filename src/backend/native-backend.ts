import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type NativeAddon, nativeCoreBinding } from './native-core.js';
import type { LoadedBackend } from './registry.js';

/** Default addon location relative to the built entry (dist/*.mjs). */
const ADDON_URL = '../build/Release/tensorplan_native.node';
const BUILD_STATUS_URL = '../build/native-status.json';

let addonAttempt: Promise<{ addon: NativeAddon; path: string }> | undefined;

/** Explains a missing addon using what scripts/build-native.mjs recorded. */
function missingAddonReason(path: string): string {
  const statusPath = fileURLToPath(new URL(BUILD_STATUS_URL, import.meta.url));
  if (existsSync(statusPath)) {
    try {
      const status = JSON.parse(readFileSync(statusPath, 'utf8')) as { built?: boolean; reason?: string };
      if (status.built === false && status.reason) return `the native addon was not built: ${status.reason}`;
    } catch {
      // an unreadable status file says nothing more than the missing addon
    }
  }
  return `the native addon is not built (${path} does not exist; run \`npm run build:native\`)`;
}

/** Loads the addon once, only when a native or cuda backend is asked for. */
function loadAddon(): Promise<{ addon: NativeAddon; path: string }> {
  addonAttempt ??= (async () => {
    const path = process.env.TENSORPLAN_NATIVE_ADDON ?? fileURLToPath(new URL(ADDON_URL, import.meta.url));
    if (!existsSync(path)) throw new Error(missingAddonReason(path));
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
