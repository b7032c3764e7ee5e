// The MCP endpoint's GET (the standalone SSE stream) and DELETE (ending a session), per the
// Streamable HTTP transport of 2025-11-25, and 405 for any other method but POST. POSTs, the hot
// path, never reach Hono: the node:http fast path serves them (fast-path/post-listener.ts).
import type { Context, Hono } from 'hono';
import type { Gateway } from '../../gateway/gateway.js';
import type { SessionStore } from '../../session/store.js';
import type { Logger } from '../../observe/logger.js';
import type { SessionEvents } from '../../session/events.js';
import { acceptsEventStream } from '../accept.js';
import type { OpenStreams } from '../sse/open-streams.js';
import { openStandaloneStream } from '../sse/standalone-stream.js';
import type { AppEnv } from '../app-env.js';
import { refuseWithHono } from '../request-head.js';
import { noBody, responder } from '../responder.js';
import { findSession, isRefusal, PROTOCOL_VERSION_HEADER } from '../session-lookup.js';
import { catalogueRefusal } from '../../protocol/error-catalogue.js';
import { transportError } from '../transport-errors.js';
import { isModernVersion } from '../../gateway/modern/versions.js';

export interface McpRouteOptions {
  readonly path: string;
  /**
   * The configured endpoint this path serves (config `endpoints`); absent: the default one
   * (server.path). Sessions started here exist only here.
   */
  readonly endpoint?: string;
  readonly gateway: Gateway;
  readonly store: SessionStore;
  readonly events: SessionEvents;
  readonly openStreams: OpenStreams;
  readonly logger: Logger;
  /** How often an idle GET stream gets a comment, so proxies keep it open. */
  readonly keepAliveMs: number;
}

/** Streams start with a priming event for clients that know it (2025-11-25 and later). */
const PRIMING_SINCE = '2025-11-25';

export function registerMcpRoutes(app: Hono<AppEnv>, options: McpRouteOptions): void {
  const { path, endpoint, gateway, store, events, openStreams, logger } = options;

  app.delete(path, async (c) => {
    if (isModernVersion(c.req.header(PROTOCOL_VERSION_HEADER))) return noSessionsIn2026(c);
    const session = await findSession(store, (name) => c.req.header(name), c.get('principal'), endpoint);
    if (isRefusal(session)) return refuseWithHono(c, session);
    await gateway.closeSession(session);
    openStreams.closeSession(session.id);
    return noBody(c, 200);
  });

  app.get(path, async (c) => {
    if (isModernVersion(c.req.header(PROTOCOL_VERSION_HEADER))) return noSessionsIn2026(c);
    if (!acceptsEventStream(c.req.header('accept'))) {
      return transportError(c, catalogueRefusal('NotAcceptable', 'text/event-stream'));
    }
    const session = await findSession(store, (name) => c.req.header(name), c.get('principal'), endpoint);
    if (isRefusal(session)) return refuseWithHono(c, session);
    const lastEventId = c.req.header('last-event-id');
    return openStandaloneStream({
      sessionId: session.id,
      lastEventId: lastEventId === undefined || lastEventId === '' ? undefined : lastEventId,
      events,
      openStreams,
      admits: (message) => gateway.admits(session.id, message),
      prime: session.protocolVersion >= PRIMING_SINCE,
      respond: responder(c),
      keepAliveMs: options.keepAliveMs,
      logger,
    });
  });

  app.all(path, (c) =>
    transportError(c, catalogueRefusal('MethodNotAllowed', c.req.method), { Allow: 'GET, POST, DELETE' }),
  );
}

/** 2026-07-28 has no GET stream and no session to delete (its transport says: 405). */
function noSessionsIn2026(c: Context<AppEnv>): Response {
  return transportError(c, catalogueRefusal('ModernGetNotAllowed', c.req.method), {
    Allow: 'POST',
  });
}
