// The composition root: config -> session store, upstreams, catalogue, gateway -> HTTP server ->
// drain on close. Everything is built here and handed down; nothing below reaches for globals.
import type { AddressInfo } from 'node:net';
import { createServer, type RequestListener, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { isStdioUpstream, type Config } from './config/schema.js';
import { serverSlug } from './config/server-names.js';
import { Catalog } from './gateway/catalogue/catalog.js';
import { Gateway } from './gateway/gateway.js';
import { ServerLimits } from './gateway/calls/server-limits.js';
import { ModernAdapter } from './gateway/modern/adapter.js';
import { ParkedCalls } from './gateway/modern/parked-calls.js';
import { RequestStateSealer } from './gateway/modern/request-state.js';
import type { IsolatedServer } from './gateway/isolation/isolated-servers.js';
import type { Routing } from './gateway/calls/routing.js';
import { toolOverridesFrom } from './gateway/catalogue/tool-overrides.js';
import { createAccessControl } from './http/access-control.js';
import { createHttpListeners } from './http/app.js';
import { createQuotaLimiter } from './limits/create-limiter.js';
import { HttpDrain } from './http/drain.js';
import { OpenStreams } from './http/sse/open-streams.js';
import { auditObserver, auditWithheldTools } from './observe/audit.js';
import type { Logger } from './observe/logger.js';
import { GatewayMetrics } from './observe/metrics.js';
import { ToolPinning } from './pinning/enforcer.js';
import { loadPins, pinningFiles } from './pinning/load.js';
import { policyAccess } from './policy/policy.js';
import { compileSelection } from './policy/selection.js';
import { createSessionBackend } from './session/create-backend.js';
import { redisTargetOf } from './session/redis-target.js';
import { startReloading, type ReloadSource } from './reload.js';
import { UpstreamPool } from './upstream/pool.js';
import { sessionUpstreamFactory } from './upstream/session-upstreams.js';
import { SupervisedUpstream } from './upstream/supervised-upstream.js';
import type { SuppliedTransports } from './upstream/supplied-transports.js';
import { CredentialSources } from './credentials/sources.js';
import { LazyTokenCache } from './credentials/lazy-token-cache.js';
import { tokenExchangeSource } from './credentials/exchange-source.js';
import { RecentRates } from './observe/recent-rates.js';
import type { GatewayUrls, OperatorSources } from './admin/sources.js';
import { startAdminListener, type AdminListener } from './http/admin/listener.js';
import { resolveTracing } from './observe/tracing/settings.js';
import type { Tracing } from './observe/tracing/tracing.js';

export interface RunningGateway {
  /** The MCP endpoint's URL, with the port actually bound (port 0 picks a free one). */
  readonly url: string;
  /** The status page's URL (admin listener, or the MCP port with admin.onServerPort); undefined with admin.enabled false. */
  readonly adminUrl?: string;
  close(reason?: string): Promise<void>;
}

export interface GatewayDeps {
  readonly logger: Logger;
  /** Items per page of the merged lists; tests make it small to exercise paging. */
  readonly pageSize?: number;
  /** How soon a token with an unknown key may make the JWKS be fetched again; tests make it short. */
  readonly jwksCooldownMs?: number;
  /** Where the config came from, to reload it on change or SIGHUP; absent: no reloading. */
  readonly reload?: ReloadSource;
  /** How long finished spans wait to be exported in a batch (the SDK's 5 s); tests make it short. */
  readonly traceExportDelayMs?: number;
  /** Transports for some stdio upstreams, in place of their children: tests' in-memory servers. */
  readonly upstreamTransports?: SuppliedTransports;
}

export async function runGateway(config: Config, { logger, pageSize, jwksCooldownMs, reload, traceExportDelayMs, upstreamTransports }: GatewayDeps): Promise<RunningGateway> {
  const startedAt = new Date();
  // Before anything starts: a lock file that cannot be read stops the gateway (ConfigError), rather
  // than one that enforces nothing.
  const pins = await loadPins(config);
  // One URL or a Sentinel group; every Redis connection (store, events, bus, limits, token cache) goes there.
  const redis = redisTargetOf(config.sessions);
  const sessions = createSessionBackend(
    {
      store: config.sessions.store,
      ...(redis !== undefined && { redis }),
      idleTimeoutSeconds: config.sessions.idleTimeoutSeconds,
      keyPrefix: config.sessions.keyPrefix,
    },
    { logger },
  );
  const { store, events, bus } = sessions;
  // The config in force: a reload replaces it, and everything below reads it through here.
  let current = config;
  // An upstream's 401s are counted (switchboard_upstream_auth_challenges_total); none comes before
  // the metrics below exist, since every connection is made asynchronously.
  const onAuthChallenge = (server: string, status: number) => metrics.countAuthChallenge(server, status);
  const upstreams = new UpstreamPool(config, logger, (name, server, log) => new SupervisedUpstream(name, server, log, { onAuthChallenge, suppliedTransports: upstreamTransports }));
  const tokenCache = new LazyTokenCache(config, logger);
  const credentials = new CredentialSources({
    logger,
    tokenExchange: (name, exchange) => tokenExchangeSource(name, exchange, tokenCache.get(), { logger }),
  });
  // The default prefix is the name's slug: tool names must fit [A-Za-z0-9_-], names as users write them need not.
  const prefixOf = (name: string) => current.mcpServers[name]?.prefix ?? serverSlug(name);
  const toolOverridesOf = (name: string) => toolOverridesFrom(current.mcpServers[name]?.tools);
  const catalogServers = () =>
    upstreams.all.map((upstream) => {
      const server = current.mcpServers[upstream.name];
      return {
        upstream,
        prefix: prefixOf(upstream.name),
        seenByAllReplicas: server !== undefined && !isStdioUpstream(server),
        tools: toolOverridesOf(upstream.name),
      };
    });
  const pinning = new ToolPinning({
    logger,
    onWithheld: auditWithheldTools(logger),
    isServer: (name) => Object.hasOwn(current.mcpServers, name) && current.mcpServers[name]!.enabled,
  });
  pinning.configure(config.pinning, pins);
  const catalog = new Catalog(catalogServers(), config.namespace.separator, logger, pinning);
  catalog.start();
  // Asked on every forwarded request and every view: computed once per config in force.
  let isolated: { config?: Config; servers: IsolatedServer[] } = { servers: [] };
  const isolatedServers = (): readonly IsolatedServer[] => {
    if (isolated.config !== current) {
      isolated = {
        config: current,
        servers: Object.entries(current.mcpServers)
          .filter(([, server]) => server.enabled && server.isolation === 'session')
          .map(([name, server]) => ({
            name,
            prefix: prefixOf(name),
            transport: isStdioUpstream(server) ? 'stdio' : 'http',
            maxSessions: server.maxSessions,
            ...(server.credentials && { credentials: credentials.of(name, server) }),
          })),
      };
    }
    return isolated.servers;
  };
  let routedServers: { config?: Config; upstreams?: readonly unknown[]; servers: Routing['servers'] } = { servers: [] };
  const routing: Routing = {
    get separator() {
      return current.namespace.separator;
    },
    // Every enabled server in config order; a session-isolated one is ready whenever a session asks.
    // Read on every call, so it is rebuilt only when a reload changed the config or the upstreams.
    get servers() {
      if (routedServers.config !== current || routedServers.upstreams !== upstreams.all) {
        routedServers = {
          config: current,
          upstreams: upstreams.all,
          servers: Object.entries(current.mcpServers)
            .filter(([, server]) => server.enabled)
            .map(([name, server]) => {
              const upstream = server.isolation === 'shared' ? upstreams.get(name) : undefined;
              return {
                name,
                prefix: prefixOf(name),
                tools: toolOverridesOf(name),
                isReady: () => server.isolation === 'session' || upstream?.state === 'ready',
                unavailability: () => upstream?.unavailability(),
              };
            }),
        };
      }
      return routedServers.servers;
    },
  };
  // limits.servers: read on every forwarded request, replaced by a reload; the counts live where
  // the sessions do (Redis for many replicas), asked for only once some server has a rate.
  const serverLimits = new ServerLimits(() => createQuotaLimiter(config, logger));
  serverLimits.configure(config.limits.servers);
  const withEndpoints = Object.keys(config.endpoints).length > 0;
  const metrics = new GatewayMetrics({ sessions: store, logger, isServer: (name) => Object.hasOwn(current.mcpServers, name), endpoints: withEndpoints });
  metrics.watchPool(upstreams);
  metrics.countPins(pinning);
  // The status page's last minutes of traffic, sampled from the counters above on a timer.
  const rates = new RecentRates(() => metrics.rpcTotals());
  rates.start();
  const accessPolicy = config.policy && policyAccess(config.policy);
  const endpointSelections = new Map(Object.entries(config.endpoints).map(([name, endpoint]) => [name, compileSelection(endpoint)]));
  const gateway = new Gateway({
    catalog,
    isolation: {
      servers: isolatedServers,
      factory: sessionUpstreamFactory(() => current, logger, onAuthChallenge),
      idleTimeoutMs: config.sessions.idleTimeoutSeconds * 1000,
    },
    upstreams,
    routing,
    store,
    logger,
    ...(pageSize !== undefined && { pageSize }),
    waitForUpstreams: (maxWaitMs) => upstreams.whenSettled(maxWaitMs),
    ...(accessPolicy && { access: accessPolicy }),
    endpoints: endpointSelections,
    searchEndpoints: new Set(Object.entries(config.endpoints).flatMap(([name, endpoint]) => (endpoint.discovery === 'search' ? [name] : []))),
    observers: [auditObserver(logger, { endpoints: withEndpoints }), metrics.observer],
    events,
    bus,
    maxInputRounds: config.mrtr.maxRounds,
    serverLimits,
  });
  gateway.start();
  if (config.mrtr.stateSecret === undefined && store.kind === 'redis') {
    logger.warn(
      'mrtr.stateSecret (SWITCHBOARD_STATE_SECRET) is not set: this replica seals 2026 requestState with a key of its own, so a client retry that reaches another replica is refused; give every replica the same secret',
    );
  }
  const inputTimeoutMs = config.mrtr.inputTimeoutSeconds * 1000;
  const parked = new ParkedCalls(bus, inputTimeoutMs, logger);
  parked.start();
  const modern = new ModernAdapter({ gateway, sealer: new RequestStateSealer(config.mrtr.stateSecret, inputTimeoutMs), parked });
  upstreams.onChange((changes) => gateway.upstreamsChanged(changes));
  await sessions.ready();

  let draining = false;
  let closing: Promise<void> | undefined;
  const openStreams = new OpenStreams();
  metrics.countStreams(openStreams);
  metrics.countListens(gateway.listens);
  const drain = new HttpDrain({ isDraining: () => draining });
  const tracing = await startTracing(config, logger, traceExportDelayMs);
  const access = createAccessControl(config, { logger, ...(jwksCooldownMs !== undefined && { jwksCooldownMs }) });
  const listeners = createHttpListeners({
    access,
    events,
    openStreams,
    mcpPath: config.server.path,
    endpoints: Object.entries(config.endpoints).map(([name, { path }]) => ({ name, path })),
    ssePath: config.server.ssePath,
    maxBodyBytes: config.server.maxBodyBytes,
    gateway,
    modern,
    store,
    upstreams,
    pinning,
    logger,
    isDraining: () => draining,
    metrics,
    drain,
    ...(tracing && { tracing }),
  });

  const reloading =
    reload &&
    startReloading(
      reload,
      {
        current: () => current,
        apply: async (next) => {
          // First, so that a lock file that cannot be read refuses the reload before anything changed.
          const nextPins = await loadPins(next);
          const previous = current;
          current = next;
          const changes = await upstreams.reconcile(previous, next);
          pinning.configure(next.pinning, nextPins);
          catalog.reconfigure(catalogServers(), next.namespace.separator);
          serverLimits.configure(next.limits.servers);
          return changes;
        },
        companionFiles: pinningFiles,
      },
      logger,
    );

  // The operator's window (admin/): read at each request, so it follows reloads. The URLs are known
  // once listening, before the first request the window can get.
  let urls: GatewayUrls | undefined;
  const operator: OperatorSources = {
    startedAt,
    config: () => current,
    ...(reload && { configFile: reload.file }),
    isDraining: () => draining,
    upstreams,
    catalog,
    pinning: { report: () => pinning.report() },
    sessions: store,
    listens: gateway.listens,
    streams: openStreams,
    traffic: rates,
    urls: () => urls!,
    ...(accessPolicy && { access: accessPolicy }),
    endpointSelections,
    ...(reloading && { reload: () => reloading.reload('admin') }),
    setDraining: (on) => {
      if (closing || on === draining) return;
      draining = on;
      if (!on) {
        logger.warn('drain ended by an operator: this replica takes new sessions and streams again');
        return;
      }
      logger.warn('draining on an operator\'s request: /readyz answers 503, new sessions and streams are refused, open GET streams and listens end');
      drain.closeStandaloneStreams();
      gateway.listens.endAll();
    },
  };
  const admin = config.admin.enabled ? startAdminListener(config, { sources: operator, logger, access, mcpApp: listeners.app }) : undefined;

  let server: Server;
  try {
    const hono = getRequestListener(admin?.onServerPort ?? listeners.app.fetch, { hostname: config.server.host });
    server = await listen(listeners.listener(hono), config.server.host, config.server.port);
  } catch (error) {
    reloading?.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
  const url = `http://${host}:${port}${config.server.path}`;
  const endpointUrls = Object.fromEntries(Object.entries(config.endpoints).map(([name, endpoint]) => [name, new URL(endpoint.path, url).toString()]));
  urls = {
    mcp: url,
    endpoints: endpointUrls,
    legacySse: config.server.ssePath ? new URL(config.server.ssePath, url).toString() : null,
    health: new URL('/healthz', url).toString(),
    readiness: new URL('/readyz', url).toString(),
    metrics: new URL('/metrics', url).toString(),
    status: null,
  };
  let adminListener: AdminListener | undefined;
  try {
    adminListener = await admin?.listen(url);
  } catch (error) {
    reloading?.close();
    await closeServer(server, 0);
    throw error;
  }
  const adminUrl = adminListener?.statusUrl;
  urls = { ...urls, status: adminUrl ?? null };
  logger.info(
    {
      url,
      ...(withEndpoints && { endpoints: endpointUrls }),
      ...(adminUrl !== undefined && { admin: adminUrl }),
      upstreams: upstreams.all.map((upstream) => upstream.name),
      store: store.kind,
    },
    'switchboard listening',
  );

  return {
    url,
    ...(adminUrl !== undefined && { adminUrl }),
    close(reason = 'shutdown') {
      closing ??= (async () => {
        draining = true;
        reloading?.close();
        logger.info({ reason }, 'switchboard shutting down');
        const graceMs = config.server.shutdownTimeoutSeconds * 1000;
        const stopped = closeServer(server, graceMs);
        // GET streams never end by themselves: they close now, and their clients reconnect elsewhere
        // with Last-Event-ID. Requests in flight, POSTs answered as a stream too, get the grace period.
        drain.closeStandaloneStreams();
        // 2026 listens end gracefully: their result, then the stream closes, and clients listen elsewhere.
        gateway.listens.endAll();
        if (!(await drain.whenIdle(graceMs))) {
          logger.warn({ inFlight: drain.inFlight, graceMs }, 'requests still in flight at the end of the shutdown grace period: they are cut off');
        }
        openStreams.closeAll();
        // Keep-alive connections that served the last requests are idle now: no need to wait them out.
        if ('closeIdleConnections' in server) server.closeIdleConnections();
        await stopped;
        // The status page stays up through the drain, so an operator can watch it.
        await adminListener?.close();
        rates.stop();
        parked.stop();
        gateway.stop();
        catalog.stop();
        await upstreams.stop();
        await sessions.close();
        await access.close();
        await serverLimits.close();
        await tokenCache.close();
        // Last: the spans of everything above are finished and go out in the final batch.
        await tracing?.shutdown();
        logger.info('switchboard stopped');
      })();
      return closing;
    },
  };
}

/**
 * Tracing, when the config or the OTEL_* environment asks for it (observe/tracing/settings.ts);
 * else undefined, and the OpenTelemetry SDK is not even loaded.
 */
async function startTracing(config: Config, logger: Logger, exportDelayMs: number | undefined): Promise<Tracing | undefined> {
  const { settings, warnings } = resolveTracing(config.telemetry, process.env);
  for (const warning of warnings) logger.warn(warning);
  if (!settings) return undefined;
  // The URL without its query or user part, which could hold a credential; never the headers.
  const { origin, pathname } = new URL(settings.endpoint);
  logger.info({ endpoint: `${origin}${pathname}`, protocol: settings.protocol, serviceName: settings.serviceName, sampler: settings.sampler }, 'traces go to an OTLP endpoint');
  const { createOtelTracing } = await import('./observe/tracing/otel-tracing.js');
  return createOtelTracing(settings, { logger, ...(exportDelayMs !== undefined && { exportDelayMs }) });
}

function listen(listener: RequestListener, hostname: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(listener);
    server.once('error', reject);
    server.listen(port, hostname, () => resolve(server));
  });
}

/** Stops accepting, lets in-flight requests finish for up to graceMs, then drops what is left. */
function closeServer(server: Server, graceMs: number): Promise<void> {
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
