// The HTTP layer over the gateway core: open streams, the drain, tracing, access control and the
// two listeners (the node:http fast path and the Hono app), not yet listening.
import type { Config } from '../config/schema.js';
import { createAccessControl, type AccessControl } from '../http/access-control.js';
import { createHttpListeners, type HttpListeners } from '../http/app.js';
import { HttpDrain } from '../http/drain.js';
import { OpenStreams } from '../http/sse/open-streams.js';
import type { Logger } from '../observe/logger.js';
import { resolveTracing } from '../observe/tracing/settings.js';
import type { Tracing } from '../observe/tracing/tracing.js';
import type { DrainState } from './drain-state.js';
import type { GatewayCore } from './gateway-core.js';
import { startSignIn, type SignInSide } from './sign-in-side.js';
import { isStdioUpstream } from '../config/schema.js';
import { CLIENT_METADATA_PATH, CONNECT_CALLBACK_PATH } from '../connections/upstream-connector.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import { SessionSealer } from '../http/admin/session-cookie.js';
import type { ConnectionRoutesOptions } from '../http/connections/routes.js';
import { FormTokens } from '../http/connections/form-token.js';
import { auditAdmin } from '../observe/audit.js';
import type { StatusPageOAuth } from '../http/admin/browser-sign-in.js';
import { pagesSignIn, type PagesSignIn } from './pages-sign-in.js';

export interface HttpSide {
  readonly openStreams: OpenStreams;
  readonly drain: HttpDrain;
  readonly tracing: Tracing | undefined;
  readonly access: AccessControl;
  readonly listeners: HttpListeners;
  /** Sign-in mode's authorization server (auth.signIn), when configured. */
  readonly signIn: SignInSide | undefined;
  /** How browsers sign in to the status page and the connections pages, in either mode; undefined: they do not. */
  readonly pages: PagesSignIn | undefined;
}

export interface HttpSideDeps {
  readonly logger: Logger;
  readonly state: DrainState;
  readonly jwksCooldownMs: number | undefined;
  readonly traceExportDelayMs: number | undefined;
}

export async function buildHttpSide(config: Config, core: GatewayCore, { logger, state, jwksCooldownMs, traceExportDelayMs }: HttpSideDeps): Promise<HttpSide> {
  const { gateway, metrics, sessions } = core;
  const openStreams = new OpenStreams();
  // A session that ends on any replica (DELETE, or pushed out by its principal's cap) loses its streams here too.
  gateway.onSessionEnded((sessionId) => openStreams.closeSession(sessionId));
  metrics.countStreams(openStreams);
  metrics.countListens(gateway.listens);
  const drain = new HttpDrain({ isDraining: () => state.draining });
  const tracing = await startTracing(config, logger, traceExportDelayMs);
  const signIn = await startSignIn(config, logger);
  const pages = await pagesSignIn(config, signIn);
  const access = createAccessControl(config, {
    logger,
    ...(jwksCooldownMs !== undefined && { jwksCooldownMs }),
    ...(signIn && { signIn: { issuer: signIn.signIn.issuer, keys: signIn.signIn.keys } }),
  });
  const listeners = createHttpListeners({
    access,
    events: sessions.events,
    openStreams,
    mcpPath: config.server.path,
    endpoints: Object.entries(config.endpoints).map(([name, { path }]) => ({ name, path })),
    ssePath: config.server.ssePath,
    maxBodyBytes: config.server.maxBodyBytes,
    gateway,
    modern: core.modern,
    store: sessions.store,
    upstreams: core.upstreams,
    pinning: core.pinning,
    isolation: { leftOut: () => gateway.leftOutServers() },
    logger,
    isDraining: () => state.draining,
    storeRetryAfterSeconds: config.sessions.retryAfterSeconds,
    storeState: () => sessions.storeState(),
    notReadyWhileStoreDown: config.sessions.notReadyWhileDown,
    metrics,
    drain,
    ...(tracing && { tracing }),
    ...(signIn && { signIn: { signIn: signIn.signIn, registrations: signIn.registrations } }),
    ...(pages?.personPages && access.verifier && { connections: connectionRoutes(config, core, pages.personPages, pages.secret, access.verifier, logger) }),
  });
  return { openStreams, drain, tracing, access, listeners, signIn, pages };
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
  const { createOtelTracing } = await import('../observe/tracing/otel-tracing.js');
  return createOtelTracing(settings, { logger, ...(exportDelayMs !== undefined && { exportDelayMs }) });
}

/** The person's connections pages (a server whose credentials are connections; browsers sign in as pages-sign-in.ts says). */
function connectionRoutes(config: Config, core: GatewayCore, personPages: StatusPageOAuth, secret: string, verifier: TokenVerifier, logger: Logger): ConnectionRoutesOptions {
  const sealer = new SessionSealer(secret, 'person');
  const origin = new URL(config.server.publicUrl).origin;
  return {
    signIn: { oauth: personPages, sealer, verifier, pageOrigin: origin, onAction: auditAdmin(logger).action },
    sealer,
    connectorFor: (server) => {
      const upstream = config.mcpServers[server];
      const connection = upstream?.credentials?.connection;
      return upstream === undefined || connection === undefined || isStdioUpstream(upstream) ? undefined : core.connections.connectors.of(server, upstream.url, connection);
    },
    serverOf: (kind, id) => core.connections.connectors.serverOf(kind, id),
    servers: () => Object.entries(config.mcpServers).flatMap(([name, upstream]) => (upstream.enabled && upstream.credentials?.connection !== undefined && !isStdioUpstream(upstream) ? [name] : [])),
    formTokens: new FormTokens(secret),
    onConnected: (sub, _server, elicitationId) => {
      core.gateway.notifyElicitationComplete(sub, elicitationId).catch((error: unknown) => {
        logger.warn({ err: error }, 'the clients of a person who connected an account could not be told');
      });
    },
    clientMetadata: {
      client_id: `${origin}${CLIENT_METADATA_PATH}`,
      client_name: `Switchboard (${new URL(origin).host})`,
      redirect_uris: [`${origin}${CONNECT_CALLBACK_PATH}`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  };
}
