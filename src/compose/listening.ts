// The MCP port: listening on it, the URLs the gateway then has, and closing it with a grace period.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayUrls } from '../admin/sources.js';
import type { Config } from '../config/schema.js';

export function listen(listener: RequestListener, hostname: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(listener);
    server.once('error', reject);
    server.listen(port, hostname, () => resolve(server));
  });
}

/** Every URL the gateway answers on, with the port actually bound (port 0 picks a free one). */
export function gatewayUrls(config: Config, server: Server): GatewayUrls {
  const { port } = server.address() as AddressInfo;
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
  const url = `http://${host}:${port}${config.server.path}`;
  return {
    mcp: url,
    endpoints: Object.fromEntries(Object.entries(config.endpoints).map(([name, endpoint]) => [name, new URL(endpoint.path, url).toString()])),
    legacySse: config.server.ssePath ? new URL(config.server.ssePath, url).toString() : null,
    health: new URL('/healthz', url).toString(),
    readiness: new URL('/readyz', url).toString(),
    metrics: new URL('/metrics', url).toString(),
    status: null,
  };
}

/** Stops accepting, lets in-flight requests finish for up to graceMs, then drops what is left. */
export function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      if ('closeAllConnections' in server) server.closeAllConnections();
    }, graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    if ('closeIdleConnections' in server) server.closeIdleConnections();
  });
}
