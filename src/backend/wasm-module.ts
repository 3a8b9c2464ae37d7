import createTensorplanCore from '../../wasm/dist/tensorplan_core.mjs';
import type { EmscriptenCoreModule } from './wasm-core.js';

/** Checks the first bytes so a wrong file (an HTML error page, say) is named plainly. */
export function checkWasmBytes(bytes: Uint8Array, source: string): void {
  const magic = [0x00, 0x61, 0x73, 0x6d];
  if (bytes.length < 4 || magic.some((value, i) => bytes[i] !== value)) {
    const found = [...bytes.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new Error(`${source} is not a WebAssembly module (expected magic 00 61 73 6d, found ${found || 'no bytes'})`);
  }
}

/**
 * Instantiates the Emscripten core from its bytes. The bytes are always passed
 * in (wasmBinary) rather than fetched by the glue, which in Emscripten 3.1.6
 * cannot load files under Node 18+.
 */
export async function instantiateCore(bytes: Uint8Array, source: string): Promise<EmscriptenCoreModule> {
  checkWasmBytes(bytes, source);
  return (await createTensorplanCore({ wasmBinary: bytes })) as EmscriptenCoreModule;
}
