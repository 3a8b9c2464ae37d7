import type { LoadedBackend } from './registry.js';
import { wasmCoreBinding } from './wasm-core.js';
import { instantiateCore } from './wasm-module.js';
import { asBytes, takeWasmOptions } from './wasm-source.js';

/**
 * The shipped .wasm, next to the package's wasm glue. Written as one literal
 * URL constructor call over a string and import.meta.url on purpose: Vite,
 * webpack 5 and Parcel recognise exactly that expression, copy the file into the build and
 * rewrite the URL (Vite "Static Asset Handling: new URL(url, import.meta.url)";
 * webpack 5 "Asset Modules: URL assets"). Any indirection (a constant, a
 * variable, `??`) hides it from them. The path is relative to dist/browser.mjs.
 */
function defaultWasmUrl(): URL {
  return new URL('../wasm/dist/tensorplan_core.wasm', import.meta.url);
}

/**
 * What to do when the default URL misses: the usual cause is a tool that moved
 * dist/browser.mjs without its .wasm (Vite's dev server pre-bundles
 * dependencies into its cache folder, vitejs/vite#8427; esbuild does not copy
 * URL assets at all).
 */
const MOVED_HINT = ' (a bundler or dev server moved tensorplan without its .wasm: under `vite` dev add'
  + ' `optimizeDeps: { exclude: [\'tensorplan\'] }` to vite.config; with esbuild import \'tensorplan/wasm\' with'
  + ' `loader: { \'.wasm\': \'file\' }` and pass it as init({ wasm: { url } }); see README "Browsers and bundlers")';

/** A dev server's single-page fallback (index.html) where the .wasm should be. */
function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = new TextDecoder().decode(bytes.subarray(0, 64)).trimStart().toLowerCase();
  return head.startsWith('<!doctype') || head.startsWith('<html');
}

/**
 * A URL the application gave, resolved as fetch() resolves it: against the
 * page (or worker script), where the application's assets are. Not against
 * import.meta.url: bundlers rewrite or inline that, and webpack turns a
 * computed URL beside it into a "critical dependency" warning.
 */
function pageRelative(url: string | URL): string {
  const given = typeof url === 'string' ? url : url.href;
  try {
    return new URL(given, (globalThis as { location?: { href: string } }).location?.href).href;
  } catch {
    return given;
  }
}

/** Loads the WASM core in a browser or worker: given bytes, or fetched from a URL. */
export async function loadWasmBackendBrowser(): Promise<LoadedBackend> {
  const options = takeWasmOptions();
  if (options.bytes) {
    return { name: 'wasm', core: wasmCoreBinding(await instantiateCore(asBytes(options.bytes), 'wasm.bytes')), source: 'bytes given to init()' };
  }
  const url = options.url === undefined ? defaultWasmUrl().href : pageRelative(options.url);
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`fetching ${url} failed: ${(error as Error).message}`);
  }
  if (!response.ok) throw new Error(`fetching ${url} failed: HTTP ${response.status} ${response.statusText}${options.url === undefined ? MOVED_HINT : ''}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (options.url === undefined && looksLikeHtml(bytes)) {
    throw new Error(`${url} answered an HTML page, not tensorplan_core.wasm${MOVED_HINT}`);
  }
  return { name: 'wasm', core: wasmCoreBinding(await instantiateCore(bytes, url)), source: url };
}
