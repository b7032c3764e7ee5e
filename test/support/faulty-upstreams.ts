// Upstreams that fail the way real ones do, for fault-isolation tests: a port that accepts
// connections and never answers (a hung token endpoint, a hung MCP server), and an HTTP proxy in
// front of a real upstream that holds or delays the requests it is told to.
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

export interface SilentPort {
  readonly url: string;
  /** Connections it accepted so far. */
  readonly connections: number;
  stop(): Promise<void>;
}

/** Accepts and never answers: `node -e "require('net').createServer(()=>{}).listen(P)"`, counted. */
export async function startSilentPort(path = '/'): Promise<SilentPort> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createNetServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    get connections() {
      return connections;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What the proxy does with one request: pass it on after `delayMs`, or hold it forever. */
export type ProxyDecision = { readonly delayMs: number } | 'hang';

export interface FaultyProxy {
  readonly url: string;
  /** Requests it received so far. */
  readonly requests: number;
  stop(): Promise<void>;
}

/** An HTTP proxy to `target` (same path) that decides per request, e.g. by its credential header. */
export async function startFaultyProxy(target: string, decide: (request: IncomingMessage) => ProxyDecision): Promise<FaultyProxy> {
  const upstream = new URL(target);
  const held = new Set<IncomingMessage>();
  let requests = 0;
  const server = createHttpServer((request, response) => {
    requests += 1;
    const decision = decide(request);
    if (decision === 'hang') {
      held.add(request);
      return;
    }
    setTimeout(() => {
      const forwarded = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers: { ...request.headers, host: upstream.host } },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forwarded.on('error', () => response.destroy());
      request.pipe(forwarded);
    }, decision.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    get requests() {
      return requests;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const request of held) request.socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
