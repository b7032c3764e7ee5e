// A small MCP Apps host page for browser tests, served on 127.0.0.1: host.html, and host.js, which is
// ext-apps' AppBridge and the official MCP client bundled for the browser by Vite (vitest's own
// bundler; no other tool). The page's `renderApp(gatewayUrl, toolName, args, search)` renders a
// tool's app as a host does (see host.html).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const HERE = new URL('./', import.meta.url);

export interface AppsHost {
  /** The host page's origin, e.g. http://127.0.0.1:41234 (the gateway must allow it). */
  readonly origin: string;
  /** The host page. */
  readonly url: string;
  close(): Promise<void>;
}

async function bundle(): Promise<string> {
  const built = await build({
    configFile: false,
    logLevel: 'warn',
    root: fileURLToPath(new URL('../../../', import.meta.url)),
    build: { write: false, minify: false, lib: { entry: fileURLToPath(new URL('host-entry.ts', HERE)), formats: ['es'], fileName: 'host' } },
  });
  const outputs = (Array.isArray(built) ? built : [built]) as { output: { type: string; code?: string }[] }[];
  const chunk = outputs.flatMap((output) => output.output).find((item) => item.type === 'chunk');
  if (chunk?.code === undefined) throw new Error('the host bundle has no code');
  return chunk.code;
}

export async function startAppsHost(): Promise<AppsHost> {
  const script = await bundle();
  const page = readFileSync(new URL('host.html', HERE), 'utf8');
  const server = createServer((request, response) => {
    const [type, body] = request.url === '/host.js' ? ['text/javascript', script] : request.url === '/' ? ['text/html', page] : [undefined, undefined];
    if (body === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': `${type}; charset=utf-8` }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
