/**
 * Where the WASM core's bytes come from. In Node the facade reads the file
 * shipped in the package; in browsers it fetches the URL, or uses bytes the
 * application already has (a bundler asset, a cache, a service worker).
 *
 * @group Session
 */
export interface WasmOptions {
  /** URL of `tensorplan_core.wasm`; in browsers relative to the page, in Node to the package entry (default: the file shipped in the package, `tensorplan/wasm`). */
  url?: string | URL;
  /** The module's bytes; skips any file or network access. */
  bytes?: ArrayBuffer | Uint8Array;
}

let configured: WasmOptions | undefined;
let used = false;

/** Records the WASM source for the first load; later changes are an error. */
export function configureWasm(options: WasmOptions | undefined): void {
  if (options === undefined) return;
  if (used && options !== configured) {
    throw new Error('the wasm backend is already initialised: pass `wasm` options to the first init() call');
  }
  configured = options;
}

/** The WASM source to load now (marks it as used). */
export function takeWasmOptions(): WasmOptions {
  used = true;
  return configured ?? {};
}

/** Normalises user-given bytes to a Uint8Array view. */
export function asBytes(bytes: ArrayBuffer | Uint8Array): Uint8Array {
  return bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
}

/** Default location of the .wasm, relative to the built entry (dist/*.mjs). */
export const DEFAULT_WASM_URL = '../wasm/dist/tensorplan_core.wasm';
