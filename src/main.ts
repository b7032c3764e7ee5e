// The composition root: config -> session store, upstreams, catalogue, gateway -> HTTP server ->
// drain on close. Everything is built here and handed down; nothing below reaches for globals.
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Config } from './config/schema.js';
import { Catalog } from './gateway/catalog.js';
import { Gateway } from './gateway/gateway.js';
import type { Routing } from './gateway/routing.js';
import { createApp } from './http/app.js';
import type { Logger } from './observe/logger.js';
import { createSessionStore } from './session/create-store.js';
import { startUpstreams } from './upstream/pool.js';

export interface RunningGateway {
  /** The MCP endpoint's URL, with the port actually bound (port 0 picks a free one). */
  readonly url: string;
  close(reason?: string): Promise<void>;
}

export interface GatewayDeps {
  readonly logger: Logger;
  /** Items per page of the merged lists; tests make it small to exercise paging. */
  readonly pageSize?: number;
}

export async function runGateway(config: Config, { logger, pageSize }: GatewayDeps): Promise<RunningGateway> {
  const store = createSessionStore(
    {
      store: config.sessions.store,
      ...(config.sessions.redisUrl !== undefined && { redisUrl: config.sessions.redisUrl }),
      idleTimeoutSeconds: config.sessions.idleTimeoutSeconds,
    },
    { logger },
  );
  const upstreams = startUpstreams(config, logger);
  const prefixOf = (name: string) => config.mcpServers[name]?.prefix ?? name;
  const catalog = new Catalog(
    upstreams.all.map((upstream) => ({ upstream, prefix: prefixOf(upstream.name) })),
    config.namespace.separator,
    logger,
  );
  catalog.start();
  const routing: Routing = {
    separator: config.namespace.separator,
    servers: upstreams.all.map((upstream) => ({
      name: upstream.name,
      prefix: prefixOf(upstream.name),
      isReady: () => upstream.state === 'ready',
    })),
  };
  const gateway = new Gateway({
    catalog,
    upstreams,
    routing,
    store,
    logger,
    ...(pageSize !== undefined && { pageSize }),
    waitForUpstreams: (maxWaitMs) => upstreams.whenSettled(maxWaitMs),
  });

  let draining = false;
  const app = createApp({
    mcpPath: config.server.path,
    maxBodyBytes: config.server.maxBodyBytes,
    gateway,
    store,
    upstreams: upstreams.all,
    logger,
    isDraining: () => draining,
  });

  const server = await listen(app.fetch, config.server.host, config.server.port);
  const { port } = server.address() as AddressInfo;
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
  const url = `http://${host}:${port}${config.server.path}`;
  logger.info({ url, upstreams: upstreams.all.map((upstream) => upstream.name), store: store.kind }, 'switchboard listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    close(reason = 'shutdown') {
      closing ??= (async () => {
        draining = true;
        logger.info({ reason }, 'switchboard shutting down');
        await closeServer(server, config.server.shutdownTimeoutSeconds * 1000);
        catalog.stop();
        await upstreams.stop();
        await store.close();
        logger.info('switchboard stopped');
      })();
      return closing;
    },
  };
}

function listen(fetch: Parameters<typeof serve>[0]['fetch'], hostname: string, port: number): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, hostname, port }, () => resolve(server));
    server.once('error', reject);
  });
}

/** Stops accepting, lets in-flight requests finish for up to graceMs, then drops what is left. */
function closeServer(server: ServerType, graceMs: number): Promise<void> {
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
