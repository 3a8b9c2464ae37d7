// The backends the shared suites run on: every one that loads here. With
// TP_REQUIRE_NATIVE=1 (CI) a native addon that fails to load is an error,
// not a quietly smaller matrix. TP_TEST_BACKENDS=native (a comma list) runs on
// those only (scripts/fuzz-asan.mjs: the sanitized addon, without WASM).
import { existsSync } from 'node:fs';
import { info, init } from '../../dist/index.mjs';
import type { Tensorplan } from '../../dist/index.mjs';

export type TestBackend = 'native' | 'wasm';

const sessions: Partial<Record<TestBackend, Tensorplan>> = {};
const wanted = process.env.TP_TEST_BACKENDS?.split(',').map((name) => name.trim());
for (const name of ['wasm', 'native'] as const) {
  if (wanted && !wanted.includes(name)) continue;
  try {
    sessions[name] = await init({ backend: name });
  } catch (error) {
    if (name === 'wasm' || process.env.TP_REQUIRE_NATIVE === '1') throw error;
    console.warn(`[tests] backend '${name}' skipped: ${(error as Error).message}`);
  }
}

/** Names of the backends that loaded, for describe.each. */
export const BACKENDS = Object.keys(sessions) as TestBackend[];

/** The session of a loaded backend. */
export function session(name: TestBackend): Tensorplan {
  const s = sessions[name];
  if (!s) throw new Error(`backend ${name} is not loaded`);
  return s;
}

/** True when both backends loaded, so parity can be checked. */
export const BOTH_BACKENDS = BACKENDS.length === 2;

/** Whether the native addon was built (for tests about the addon file itself). */
export const ADDON_PATH = new URL('../../build/Release/tensorplan_native.node', import.meta.url);
export const ADDON_BUILT = existsSync(ADDON_PATH);

/** The cuda backend on this machine: usable, or why not. */
const cudaStatus = (await info()).backends.find((b) => b.name === 'cuda')!;
export const CUDA = { available: cudaStatus.available, reason: cudaStatus.reason };
/** Name suffixes that say why a test runs only on one kind of host. */
export const SKIPPED_ON_GPU_HOST = CUDA.available ? ' (skipped: a CUDA device is usable here)' : '';
export const SKIPPED_WITHOUT_GPU = CUDA.available ? '' : ` (skipped: ${CUDA.reason})`;
