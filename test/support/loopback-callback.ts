// The loopback redirect URI of a native MCP client (RFC 8252): an HTTP server on 127.0.0.1 that
// the authorization server sends the browser back to, handing the query (code, state, iss, or
// error) to the test, as a desktop client's callback listener hands it to its SDK.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackCallback {
  /** `http://127.0.0.1:<port>/callback` */
  readonly redirectUrl: string;
  /** The query of the next request to the callback (one that came before is kept for this). */
  next(timeoutMs?: number): Promise<URLSearchParams>;
  stop(): Promise<void>;
}

export async function startLoopbackCallback(path = '/callback'): Promise<LoopbackCallback> {
  const arrived: URLSearchParams[] = [];
  const waiting: ((params: URLSearchParams) => void)[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== path) {
      response.writeHead(404).end();
      return;
    }
    const failed = url.searchParams.has('error');
    response
      .writeHead(failed ? 400 : 200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><title>${failed ? 'Sign-in failed' : 'Signed in'}</title><h1>${failed ? 'Sign-in failed' : 'Signed in: you can close this window'}</h1>`);
    const waiter = waiting.shift();
    if (waiter === undefined) arrived.push(url.searchParams);
    else waiter(url.searchParams);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const redirectUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;

  return {
    redirectUrl,
    next(timeoutMs = 30_000) {
      const early = arrived.shift();
      if (early !== undefined) return Promise.resolve(early);
      return new Promise<URLSearchParams>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(deliver), 1);
          reject(new Error(`nothing came back to ${redirectUrl} within ${timeoutMs} ms`));
        }, timeoutMs);
        const deliver = (params: URLSearchParams) => {
          clearTimeout(timer);
          resolve(params);
        };
        waiting.push(deliver);
      });
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
