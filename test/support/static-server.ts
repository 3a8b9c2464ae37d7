// A minimal static file server on 127.0.0.1 for browser tests: serves the
// repository so a page can import dist/browser.mjs and fetch the .wasm.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.wasm': 'application/wasm', '.json': 'application/json', '.map': 'application/json',
};

/** Serves `pages` (path -> HTML) and the files under `root` (default: the repository). */
export async function startStaticServer(pages: Record<string, string> = {}, root = REPOSITORY): Promise<{ url: string; server: Server }> {
  const base = root.endsWith(sep) ? root : `${root}${sep}`;
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    if (pages[path] !== undefined) {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(pages[path]);
      return;
    }
    const file = normalize(join(base, path));
    if (!file.startsWith(base) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>not found</title>');
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server };
}
