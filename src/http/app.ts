// The HTTP listeners of the gateway: the node:http fast path for POSTs to the MCP paths (the hot
// path, fast-path/post-listener.ts), and the Hono app for everything else: middleware in the order
// design.md gives, then the routes. Both run the same access checks (middleware/access-checks.ts).
import type { RequestListener } from 'node:http';
import { Hono } from 'hono';
import type { Gateway } from '../gateway/gateway.js';
import type { ModernAdapter } from '../gateway/modern/adapter.js';
import type { Logger } from '../observe/logger.js';
import type { GatewayMetrics } from '../observe/metrics.js';
import type { SessionEvents } from '../session/events.js';
import type { SessionStore } from '../session/store.js';
import type { OpenStreams } from './sse/open-streams.js';
import type { Upstream } from '../upstream/types.js';
import type { AccessControl } from './access-control.js';
import type { AppEnv } from './app-env.js';
import type { HttpDrain } from './drain.js';
import { accessChecks } from './middleware/access-checks.js';
import { observeRequests, RequestRecorder } from './middleware/observe-requests.js';
import { postListener, type MessagePath } from './fast-path/post-listener.js';
import { McpPost } from './fast-path/mcp-post.js';
import { requestId } from './middleware/request-id.js';
import { trustProxies } from './client-address.js';
import { traceRequests } from './middleware/trace-requests.js';
import type { Tracing } from '../observe/tracing/tracing.js';
import { registerHealthRoutes, type HealthRouteOptions } from './routes/health.js';
import { legacyMessagePath, registerLegacySseRoutes } from './routes/legacy-sse.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { registerMetricsRoute } from './routes/metrics.js';
import { registerWellKnownRoutes } from './routes/well-known.js';
import type { StoreState } from '../session/store-outages.js';
import { isStoreUnavailable } from '../session/store-unavailable.js';
import { storeUnavailableAnswer, storeUnavailableResponse, transportError, type StoreUnavailableAnswer } from './transport-errors.js';
import { catalogueRefusal } from '../protocol/error-catalogue.js';
import { signInListener, type SignInListenerOptions } from './sign-in/listener.js';
import { registerConnectionRoutes, type ConnectionRoutesOptions } from './connections/routes.js';

export interface AppOptions {
  readonly mcpPath: string;
  /**
   * More MCP endpoints (config `endpoints`): each path serves both eras like mcpPath, behind the same
   * middleware, with the endpoint's own token check and metadata (access.endpoints).
   */
  readonly endpoints?: readonly { readonly name: string; readonly path: string }[];
  /** The 2024-11-05 HTTP+SSE transport's GET path (server.ssePath); absent or "": off. */
  readonly ssePath?: string;
  readonly maxBodyBytes: number;
  readonly gateway: Gateway;
  /** The 2026-07-28 era adapter: requests that carry the per-request envelope. */
  readonly modern: ModernAdapter;
  readonly store: SessionStore;
  readonly events: SessionEvents;
  readonly openStreams: OpenStreams;
  readonly upstreams: { readonly all: readonly Upstream[] };
  /** Pinned tool definitions, shown in /readyz (pinning/enforcer.ts). */
  readonly pinning?: { report(): unknown };
  /** Session-isolated servers that lists went without lately, shown in /readyz (gateway/isolation/left-out-servers.ts). */
  readonly isolation?: HealthRouteOptions['isolation'];
  readonly logger: Logger;
  /** Origin/Host guard, bearer auth, rate limit, RFC 9728 metadata (access-control.ts). */
  readonly access?: AccessControl;
  /** GET /metrics and the HTTP request counter (observe/metrics.ts). */
  readonly metrics?: GatewayMetrics;
  /** Refuses new sessions and streams while draining, and counts requests in flight (drain.ts). */
  readonly drain?: HttpDrain;
  /** A span per request to an MCP path (middleware/trace-requests.ts); absent: tracing is off. */
  readonly tracing?: Tracing;
  /** Retry-After of the 503 a request gets while the session store does not answer (config `sessions.retryAfterSeconds`); default 1. */
  readonly storeRetryAfterSeconds?: number;
  /** Sign-in mode (auth.signIn): the authorization server's endpoints and pages, in front of the Hono app. */
  readonly signIn?: Omit<SignInListenerOptions, 'recorder' | 'logger'>;
  /** credentials.connection in sign-in mode: the person's connect links, the upstreams' callback, the metadata document. */
  readonly connections?: ConnectionRoutesOptions;
  /** Whether the store serves, for /readyz (routes/health.ts); absent: it is asked only by a ping. */
  readonly storeState?: () => StoreState;
  /** /readyz answers 503 while the store does not serve (config `sessions.notReadyWhileDown`); default false. */
  readonly notReadyWhileStoreDown?: boolean;
  isDraining(): boolean;
}

/** How often an idle stream (a GET stream, a 2026 listen) gets a comment, so proxies keep it open. */
const KEEP_ALIVE_MS = 25_000;

export interface HttpListeners {
  /** Everything but the POSTs to MCP paths. */
  readonly app: Hono<AppEnv>;
  /** The server's listener: the POSTs to MCP paths, and `next` (the app, or what wraps it) for the rest. */
  listener(next: RequestListener): RequestListener;
}

export function createHttpListeners(options: AppOptions): HttpListeners {
  // The legacy transport's two paths sit behind the same middleware as the MCP endpoint.
  const legacyPaths = options.ssePath ? [options.ssePath, legacyMessagePath(options.ssePath)] : [];
  const endpoints = options.endpoints ?? [];
  const recorder = new RequestRecorder({
    logger: options.logger,
    mcpPath: options.mcpPath,
    legacyPaths,
    endpointPaths: endpoints.map((endpoint) => endpoint.path),
    ...(options.metrics && { metrics: options.metrics }),
  });
  const unavailable = storeUnavailableAnswer(options.storeRetryAfterSeconds);
  const app = createApp(options, recorder, legacyPaths, unavailable);
  const paths = new Map<string, MessagePath>([
    [options.mcpPath, { endpoint: undefined, auth: options.access?.auth }],
    ...endpoints.map(({ name, path }): [string, MessagePath] => [path, { endpoint: name, auth: options.access?.endpoints?.get(name)?.auth ?? options.access?.auth }]),
  ]);
  const post = new McpPost({
    gateway: options.gateway,
    modern: options.modern,
    store: options.store,
    events: options.events,
    openStreams: options.openStreams,
    logger: options.logger,
    maxBodyBytes: options.maxBodyBytes,
    keepAliveMs: KEEP_ALIVE_MS,
    unavailable,
  });
  return {
    app,
    listener: (next) =>
      postListener(
        {
          paths,
          post,
          recorder,
          maxBodyBytes: options.maxBodyBytes,
          logger: options.logger,
          ...(options.access && { origin: options.access.origin, trustedProxies: options.access.trustedProxies }),
          ...(options.access?.rateLimit && { rateLimit: options.access.rateLimit }),
          ...(options.drain && { drain: options.drain }),
          ...(options.tracing && { tracing: options.tracing }),
          unavailable,
        },
        options.signIn
          ? signInListener(
              {
                ...options.signIn,
                recorder,
                logger: options.logger,
                ...(options.access && { trustedProxies: options.access.trustedProxies }),
                ...(options.access?.rateLimit && { rateLimit: options.access.rateLimit }),
              },
              next,
            )
          : next,
      ),
  };
}

function createApp(options: AppOptions, recorder: RequestRecorder, legacyPaths: readonly string[], unavailable: StoreUnavailableAnswer): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  if (options.access?.trustedProxies.any) app.use('*', trustProxies(options.access.trustedProxies));
  app.use('*', requestId());
  const endpoints = options.endpoints ?? [];
  app.use('*', observeRequests(recorder));
  const guarded = [
    ...[options.mcpPath, ...legacyPaths].map((path) => ({ path, auth: options.access?.auth })),
    ...endpoints.map(({ name, path }) => ({ path, auth: options.access?.endpoints?.get(name)?.auth ?? options.access?.auth })),
  ];
  const { access } = options;
  for (const { path, auth } of guarded) {
    // First on the path, so that a request refused by what follows has its span too.
    if (options.tracing) app.use(path, traceRequests(options.tracing));
    if (options.drain) app.use(path, options.drain.middleware);
    app.use(
      path,
      accessChecks({
        ...(access && { origin: access.origin }),
        ...(auth && { auth }),
        ...(access?.rateLimit && { rateLimit: access.rateLimit }),
        maxBodyBytes: options.maxBodyBytes,
      }),
    );
  }

  registerHealthRoutes(app, options);
  if (options.metrics) registerMetricsRoute(app, options.metrics);
  if (options.access?.wellKnown) registerWellKnownRoutes(app, options.access.wellKnown);
  for (const endpoint of options.access?.endpoints?.values() ?? []) registerWellKnownRoutes(app, endpoint.wellKnown);
  if (options.connections) registerConnectionRoutes(app, options.connections);
  const mcpRoute = {
    gateway: options.gateway,
    store: options.store,
    events: options.events,
    openStreams: options.openStreams,
    logger: options.logger,
    keepAliveMs: KEEP_ALIVE_MS,
  };
  registerMcpRoutes(app, { ...mcpRoute, path: options.mcpPath });
  // The same routes over the same gateway at each endpoint's path: a view, not a second gateway.
  for (const { name, path } of endpoints) registerMcpRoutes(app, { ...mcpRoute, path, endpoint: name });
  const { drain } = options;
  if (options.ssePath) {
    registerLegacySseRoutes(app, {
      ssePath: options.ssePath,
      gateway: options.gateway,
      store: options.store,
      events: options.events,
      openStreams: options.openStreams,
      logger: options.logger,
      maxBodyBytes: options.maxBodyBytes,
      ...(drain && { track: (work: Promise<unknown>) => drain.track(work) }),
    });
  }

  app.notFound((c) => c.json({ error: 'not found' }, 404));
  app.onError((error, c) => {
    // The store logs its outage once; each refused request has its access line (503).
    if (isStoreUnavailable(error)) return storeUnavailableResponse(c, unavailable, c.get('messageId') ?? null);
    options.logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error in HTTP handler');
    return transportError(c, catalogueRefusal('InternalError'));
  });
  return app;
}
