// The composition root: config -> session store, upstreams, catalogue, gateway -> HTTP server ->
// drain on close. Everything is built here and handed down; nothing below reaches for globals.
// Each step is a function of its own under compose/; this file says in which order they run.
import type { Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { localOriginOf } from './http/admin/listener.js';
import type { Config } from './config/schema.js';
import { startAdminListener, type AdminListener } from './http/admin/listener.js';
import type { Logger } from './observe/logger.js';
import { configuredSecrets } from './observe/redact-text.js';
import { loadPins } from './pinning/load.js';
import type { ReloadSource } from './reload.js';
import type { SuppliedTransports } from './upstream/supplied-transports.js';
import type { ConfigInForce } from './compose/config-in-force.js';
import type { DrainState } from './compose/drain-state.js';
import { buildGatewayCore } from './compose/gateway-core.js';
import { buildHttpSide } from './compose/http-side.js';
import { closeServer, gatewayUrls, listen } from './compose/listening.js';
import { operatorWindow } from './compose/operator.js';
import { startConfigReloading } from './compose/reloading.js';
import { shutdown } from './compose/shutdown.js';

export interface RunningGateway {
  /** The MCP endpoint's URL, with the port actually bound (port 0 picks a free one). */
  readonly url: string;
  /** The status page's URL (admin listener, or the MCP port with admin.onServerPort); undefined with admin.enabled false. */
  readonly adminUrl?: string;
  close(reason?: string): Promise<void>;
}

export interface GatewayDeps {
  readonly logger: Logger;
  /** How soon a token with an unknown key may make the JWKS be fetched again; tests make it short. */
  readonly jwksCooldownMs?: number;
  /** Where the config came from, to reload it on change or SIGHUP; absent: no reloading. */
  readonly reload?: ReloadSource;
  /** How long finished spans wait to be exported in a batch (the SDK's 5 s); tests make it short. */
  readonly traceExportDelayMs?: number;
  /** Transports for some stdio upstreams, in place of their children: tests' in-memory servers. */
  readonly upstreamTransports?: SuppliedTransports;
  /** How long connect links of credentials.connection live (10 minutes); tests make it short. */
  readonly connectLinkSeconds?: number;
}

export async function runGateway(config: Config, { logger, jwksCooldownMs, reload, traceExportDelayMs, upstreamTransports, connectLinkSeconds }: GatewayDeps): Promise<RunningGateway> {
  const startedAt = new Date();
  // Before anything starts: a lock file that cannot be read stops the gateway (ConfigError), rather
  // than one that enforces nothing.
  const pins = await loadPins(config);
  const live: ConfigInForce = { current: config };
  // Before any upstream starts: its first connection error may quote one of these. Released when
  // the gateway closes, not when it fails to start: the line that says why may quote them too.
  const secrets = configuredSecrets(config);
  const core = buildGatewayCore(config, live, { logger, pins, upstreamTransports, connectLinkSeconds });
  await core.sessions.ready();

  const state: DrainState = { draining: false, closing: undefined };
  const http = await buildHttpSide(config, core, { logger, state, jwksCooldownMs, traceExportDelayMs });
  const reloading = reload && startConfigReloading(reload, live, core, logger, secrets);
  const operator = operatorWindow({ startedAt, live, state, core, http, reload, reloading, logger });
  const admin = config.admin.enabled ? startAdminListener(config, {
        sources: operator.sources,
        logger,
        access: http.access,
        mcpApp: http.listeners.app,
        ...(http.pages?.statusPage && { statusPage: http.pages.statusPage, pagesSecret: http.pages.secret }),
      }) : undefined;

  let server: Server;
  try {
    const hono = getRequestListener(admin?.onServerPort ?? http.listeners.app.fetch, { hostname: config.server.host });
    server = await listen(http.listeners.listener(hono), config.server.host, config.server.port);
  } catch (error) {
    reloading?.close();
    throw error;
  }
  const urls = gatewayUrls(config, server);
  operator.setUrls(urls);
  // The connections pages exchange their sign-in's code on this listener's own address.
  http.signIn?.personPages?.useLocalOrigin(localOriginOf(urls.mcp));
  let adminListener: AdminListener | undefined;
  try {
    adminListener = await admin?.listen(urls.mcp);
  } catch (error) {
    reloading?.close();
    await closeServer(server, 0);
    throw error;
  }
  const adminUrl = adminListener?.statusUrl;
  operator.setUrls({ ...urls, status: adminUrl ?? null });
  logger.info(
    {
      url: urls.mcp,
      ...(Object.keys(config.endpoints).length > 0 && { endpoints: urls.endpoints }),
      ...(adminUrl !== undefined && { admin: adminUrl }),
      upstreams: core.upstreams.all.map((upstream) => upstream.name),
      store: core.sessions.store.kind,
    },
    'switchboard listening',
  );

  const parts = { config, state, server, core, http, reloading, adminListener, logger };
  return {
    url: urls.mcp,
    ...(adminUrl !== undefined && { adminUrl }),
    close: (reason = 'shutdown') => shutdown(parts, reason).finally(() => secrets.release()),
  };
}
