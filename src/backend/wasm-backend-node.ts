import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { LoadedBackend } from './registry.js';
import { wasmCoreBinding } from './wasm-core.js';
import { instantiateCore } from './wasm-module.js';
import { DEFAULT_WASM_URL, asBytes, takeWasmOptions } from './wasm-source.js';

/** Loads the WASM core outside browsers: reads the bytes itself (Node, Deno, Bun). */
export async function loadWasmBackendNode(): Promise<LoadedBackend> {
  const options = takeWasmOptions();
  if (options.bytes) {
    return { name: 'wasm', core: wasmCoreBinding(await instantiateCore(asBytes(options.bytes), 'wasm.bytes')), source: 'bytes given to init()' };
  }
  const override = process.env.TENSORPLAN_WASM_PATH;
  const url = options.url ? new URL(options.url, import.meta.url) : new URL(DEFAULT_WASM_URL, import.meta.url);
  const path = override ?? fileURLToPath(url);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  return { name: 'wasm', core: wasmCoreBinding(await instantiateCore(bytes, path)), source: path };
}
