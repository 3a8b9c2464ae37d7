import type { LoadedBackend } from './registry.js';
import { wasmCoreBinding } from './wasm-core.js';
import { instantiateCore } from './wasm-module.js';
import { DEFAULT_WASM_URL, asBytes, takeWasmOptions } from './wasm-source.js';

/** Loads the WASM core in a browser or worker: given bytes, or fetched from a URL. */
export async function loadWasmBackendBrowser(): Promise<LoadedBackend> {
  const options = takeWasmOptions();
  if (options.bytes) {
    return { name: 'wasm', core: wasmCoreBinding(await instantiateCore(asBytes(options.bytes), 'wasm.bytes')), source: 'bytes given to init()' };
  }
  const url = new URL(options.url ?? DEFAULT_WASM_URL, import.meta.url).href;
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`fetching ${url} failed: ${(error as Error).message}`);
  }
  if (!response.ok) throw new Error(`fetching ${url} failed: HTTP ${response.status} ${response.statusText}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { name: 'wasm', core: wasmCoreBinding(await instantiateCore(bytes, url)), source: url };
}
