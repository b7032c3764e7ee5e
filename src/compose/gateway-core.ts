// Everything behind the HTTP layer, built in dependency order: the session store, the upstreams
// and their credentials, the catalogue with pinned tools, limits, metrics, and the Gateway with its
// 2026 era adapter. Nothing here listens on a port yet.
import type { Config } from '../config/schema.js';
import { LazyTokenCache } from '../credentials/lazy-token-cache.js';
import { tokenExchangeSource } from '../credentials/exchange-source.js';
import { CredentialSources } from '../credentials/sources.js';
import { connectionSource } from '../credentials/connection-source.js';
import type { AccessPolicy } from '../gateway/catalogue/access.js';
import { Catalog } from '../gateway/catalogue/catalog.js';
import type { ItemFilter } from '../gateway/catalogue/filter-view.js';
import { ServerLimits } from '../gateway/calls/server-limits.js';
import { Gateway } from '../gateway/gateway.js';
import { ModernAdapter } from '../gateway/modern/adapter.js';
import { ParkedCalls } from '../gateway/modern/parked-calls.js';
import { RequestStateSealer } from '../gateway/modern/request-state.js';
import { createQuotaLimiter } from '../limits/create-limiter.js';
import { auditConnections, auditObserver, auditWithheldTools } from '../observe/audit.js';
import type { Logger } from '../observe/logger.js';
import { GatewayMetrics } from '../observe/metrics.js';
import { RecentRates } from '../observe/recent-rates.js';
import { ToolPinning } from '../pinning/enforcer.js';
import type { LockFile } from '../pinning/lock-file.js';
import { policyAccess } from '../policy/policy.js';
import { compileSelection } from '../policy/selection.js';
import { createSessionBackend, type SessionBackend } from '../session/create-backend.js';
import { redisTargetOf } from '../session/redis-target.js';
import { UpstreamPool } from '../upstream/pool.js';
import { sessionUpstreamFactory } from '../upstream/session-upstreams.js';
import { SupervisedUpstream } from '../upstream/supervised-upstream.js';
import type { SuppliedTransports } from '../upstream/supplied-transports.js';
import type { ConfigInForce } from './config-in-force.js';
import { serverViews, type ServerViews } from './server-views.js';
import { connectionsSide, type ConnectionsSide } from './connections-side.js';
import { tasksStore } from './tasks-store.js';
import type { KeyValueStore } from '../session/key-value.js';

export interface GatewayCore {
  readonly sessions: SessionBackend;
  readonly upstreams: UpstreamPool;
  readonly tokenCache: LazyTokenCache;
  readonly views: ServerViews;
  readonly pinning: ToolPinning;
  readonly catalog: Catalog;
  readonly serverLimits: ServerLimits;
  readonly metrics: GatewayMetrics;
  readonly rates: RecentRates;
  readonly accessPolicy: AccessPolicy | undefined;
  readonly endpointSelections: ReadonlyMap<string, ItemFilter>;
  readonly gateway: Gateway;
  readonly parked: ParkedCalls;
  readonly modern: ModernAdapter;
  /** People's connections to servers with credentials.connection. */
  readonly connections: ConnectionsSide;
  /** The records of the task ids the gateway hands out (compose/tasks-store.ts). */
  readonly tasks: KeyValueStore;
}

export interface GatewayCoreDeps {
  readonly logger: Logger;
  readonly pins: LockFile | undefined;
  /** Transports for some stdio upstreams, in place of their children: tests' in-memory servers. */
  readonly upstreamTransports: SuppliedTransports | undefined;
  /** How long connect links live (credentials.connection); tests make it short. */
  readonly connectLinkSeconds?: number | undefined;
}

export function buildGatewayCore(config: Config, live: ConfigInForce, { logger, pins, upstreamTransports, connectLinkSeconds }: GatewayCoreDeps): GatewayCore {
  const sessions = openSessions(config, logger);
  const { store, events, bus } = sessions;
  // An upstream's 401s are counted (switchboard_upstream_auth_challenges_total); none comes before
  // the metrics below exist, since every connection is made asynchronously.
  const onAuthChallenge = (server: string, status: number) => metrics.countAuthChallenge(server, status);
  const upstreams = new UpstreamPool(config, logger, (name, server, log) => new SupervisedUpstream(name, server, log, { onAuthChallenge, suppliedTransports: upstreamTransports }));
  const tokenCache = new LazyTokenCache(config, logger);
  // Each connect, refresh failure, reconnect needed and disconnect: an audit line and the metrics
  // (created below; no connection event comes before a request does).
  const auditConnection = auditConnections(logger);
  const connections = connectionsSide(config, {
    bus,
    onEvent: (event) => {
      auditConnection(event);
      metrics.countConnectionEvent(event.server, event.event);
    },
    linkSeconds: connectLinkSeconds,
    onBusError: (error) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'a disconnect could not be told to the other replicas: their sessions keep the token until it is due for renewal (at most 30 s)'),
  });
  const credentials = new CredentialSources({
    logger,
    tokenExchange: (name, exchange) => tokenExchangeSource(name, exchange, tokenCache.get(), { logger }),
    connection: (name, url, connection) => connectionSource(connections.connectors.of(name, url, connection), connections.withdrawals),
  });
  const views = serverViews(live, upstreams, credentials);
  const pinning = new ToolPinning({
    logger,
    onWithheld: auditWithheldTools(logger),
    isServer: (name) => Object.hasOwn(live.current.mcpServers, name) && live.current.mcpServers[name]!.enabled,
  });
  pinning.configure(config.pinning, pins);
  const catalog = new Catalog(views.catalogServers(), config.namespace, logger, pinning, config.tasks.gatewayTasks);
  catalog.start();
  // limits.servers: read on every forwarded request, replaced by a reload; the counts live where
  // the sessions do (Redis for many replicas), asked for only once some server has a rate.
  const serverLimits = new ServerLimits(() => createQuotaLimiter(config, logger));
  serverLimits.configure(config.limits.servers);
  const withEndpoints = Object.keys(config.endpoints).length > 0;
  const metrics = new GatewayMetrics({ sessions: store, storeState: () => sessions.storeState(), logger, isServer: (name) => Object.hasOwn(live.current.mcpServers, name), endpoints: withEndpoints });
  metrics.watchPool(upstreams);
  metrics.countPins(pinning);
  // The status page's last minutes of traffic, sampled from the counters above on a timer.
  const rates = new RecentRates(() => metrics.rpcTotals());
  rates.start();
  const accessPolicy = config.policy && policyAccess(config.policy);
  const endpointSelections = new Map(Object.entries(config.endpoints).map(([name, endpoint]) => [name, compileSelection(endpoint)]));
  const tasks = tasksStore(config);
  const gateway = new Gateway({
    catalog,
    tasks,
    ...(config.tasks.gatewayTasks && { gatewayTasks: { maxPerPrincipal: config.tasks.maxPerPrincipal, maxResultBytes: config.tasks.maxResultBytes, maxTtlSeconds: config.tasks.maxTtlSeconds } }),
    isolation: {
      servers: views.isolatedServers,
      factory: sessionUpstreamFactory(() => live.current, logger, onAuthChallenge),
      idleTimeoutMs: config.sessions.idleTimeoutSeconds * 1000,
      lastLists: connections.lastLists,
    },
    upstreams,
    routing: views.routing,
    store,
    ...(config.sessions.maxPerPrincipal > 0 && { maxSessionsPerPrincipal: config.sessions.maxPerPrincipal }),
    logger,
    // Read per list request, so a reload changes it (config `lists.pageSize`).
    pageSize: () => live.current.lists.pageSize,
    waitForUpstreams: (maxWaitMs) => upstreams.whenSettled(maxWaitMs),
    ...(accessPolicy && { access: accessPolicy }),
    endpoints: endpointSelections,
    searchEndpoints: new Set(Object.entries(config.endpoints).flatMap(([name, endpoint]) => (endpoint.discovery === 'search' ? [name] : []))),
    observers: [auditObserver(logger, { endpoints: withEndpoints }), metrics.observer],
    events,
    bus,
    maxInputRounds: config.mrtr.maxRounds,
    serverLimits,
    askedSessions: connections.askedSessions,
  });
  gateway.start();
  const { parked, modern } = startModernAdapter(config, sessions, gateway, logger);
  upstreams.onChange((changes) => gateway.upstreamsChanged(changes));
  return { sessions, upstreams, tokenCache, views, pinning, catalog, serverLimits, metrics, rates, accessPolicy, endpointSelections, gateway, parked, modern, connections, tasks };
}

/** The session store, event log and bus: memory, or Redis (one URL or a Sentinel group). */
function openSessions(config: Config, logger: Logger): SessionBackend {
  // Every Redis connection (store, events, bus, limits, token cache) goes to the same target.
  const redis = redisTargetOf(config.sessions);
  return createSessionBackend(
    {
      store: config.sessions.store,
      ...(redis !== undefined && { redis }),
      idleTimeoutSeconds: config.sessions.idleTimeoutSeconds,
      unusedIdleTimeoutSeconds: config.sessions.unusedIdleTimeoutSeconds,
      keyPrefix: config.sessions.keyPrefix,
      deadlineMs: config.sessions.deadlineMs,
    },
    { logger },
  );
}

/** The 2026-07-28 era adapter, with the calls it parks while a 2025 upstream waits for input. */
function startModernAdapter(config: Config, sessions: SessionBackend, gateway: Gateway, logger: Logger): { parked: ParkedCalls; modern: ModernAdapter } {
  if (config.mrtr.stateSecret === undefined && sessions.store.kind === 'redis') {
    logger.warn(
      'mrtr.stateSecret (SWITCHBOARD_STATE_SECRET) is not set: this replica seals 2026 requestState with a key of its own, so a client retry that reaches another replica is refused; give every replica the same secret',
    );
  }
  const inputTimeoutMs = config.mrtr.inputTimeoutSeconds * 1000;
  const parked = new ParkedCalls(sessions.bus, inputTimeoutMs, logger);
  parked.start();
  const modern = new ModernAdapter({ gateway, sealer: new RequestStateSealer(config.mrtr.stateSecret, inputTimeoutMs), parked });
  return { parked, modern };
}
