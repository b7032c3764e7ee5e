// The 2024-11-05 HTTP+SSE transport, for clients older than Streamable HTTP. GET {ssePath} opens
// the session's one stream, whose first event, `endpoint`, names where the client POSTs
// ({ssePath}/message?sessionId=...); a POST is answered 202 Accepted, and every answer,
// notification and server-to-client request comes on the stream. The session is an ordinary one
// in the store (initialize negotiates its protocol version as on the MCP endpoint); what differs is
// the way back: answers go into the session's queue, which the stream takes from on whichever
// replica holds it, so any replica may take the POST.
//
// The stream comes before initialize, so the session id is minted when it opens, and the session
// record is created by initialize under that id. Ending the stream ends the session, as DELETE does
// on the MCP endpoint: the 2024-11-05 transport has no DELETE and no way to resume a stream, so
// nothing could ever reach the session again, and its upstream work should stop now rather than
// after the idle timeout.
import type { Context, Hono } from 'hono';
import type { Gateway } from '../../gateway/gateway.js';
import { isSupportedProtocolVersion } from '../../gateway/sessions/initialize.js';
import { classifyMessage, errorResponse, type JsonRpcId } from '../../protocol/json-rpc.js';
import type { Logger } from '../../observe/logger.js';
import type { EventMessage, SessionEvents } from '../../session/events.js';
import { isWellFormedSessionId, newSessionId } from '../../session/session-id.js';
import type { SessionStore } from '../../session/store.js';
import type { AppEnv } from '../app-env.js';
import { noBody, responder } from '../responder.js';
import { isJsonContentType, readJson } from '../json-body.js';
import { tooLargeRefusal } from '../middleware/body-size.js';
import { refuseWithHono } from '../request-head.js';
import type { OpenStreams } from '../sse/open-streams.js';
import { QueuedReply } from '../sse/queued-reply.js';
import { openStandaloneStream } from '../sse/standalone-stream.js';
import { catalogueError, catalogueRefusal, ERRORS } from '../../protocol/error-catalogue.js';
import { transportError } from '../transport-errors.js';
import { metaTraceContext } from '../../protocol/trace-meta.js';

export interface LegacySseRouteOptions {
  readonly ssePath: string;
  readonly gateway: Gateway;
  readonly store: SessionStore;
  readonly events: SessionEvents;
  readonly openStreams: OpenStreams;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  readonly keepAliveMs?: number;
  /** Holds shutdown for work that outlives its HTTP exchange: an answer queued after the 202. */
  readonly track?: (work: Promise<unknown>) => void;
}

/** Where the clients of a stream opened at `ssePath` POST their messages. */
export function legacyMessagePath(ssePath: string): string {
  return `${ssePath.replace(/\/$/, '')}/message`;
}

export function registerLegacySseRoutes(app: Hono<AppEnv>, options: LegacySseRouteOptions): void {
  const { ssePath, gateway, store, events, openStreams, logger } = options;
  const messagePath = legacyMessagePath(ssePath);

  /** Runs work whose outcome goes to the stream, not to the HTTP exchange that started it. */
  function later(work: Promise<unknown>, what: string): void {
    const settled = work.catch((error: unknown) => {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, `legacy SSE: could not ${what}`);
    });
    options.track?.(settled);
  }

  app.get(ssePath, (c) => {
    const opener = c.get('principal')?.sub;
    const sessionId = newSessionId();
    let owned = false;
    return openStandaloneStream({
      sessionId,
      lastEventId: undefined,
      events,
      openStreams,
      admits: async (message) => {
        // The endpoint is a secret of the stream's opener, but whoever initializes under it owns the
        // session record: the stream carries only a session of its opener's, and ends any other.
        if (!owned) {
          const session = await store.get(sessionId);
          if (session !== undefined && session.principal !== opener) {
            openStreams.closeSession(sessionId);
            return false;
          }
          owned = session !== undefined;
        }
        return gateway.admits(sessionId, message);
      },
      prime: false,
      endpoint: `${messagePath}?sessionId=${sessionId}`,
      respond: responder(c),
      ...(options.keepAliveMs !== undefined && { keepAliveMs: options.keepAliveMs }),
      logger,
      onClose: () => later(endSession(sessionId), 'end a session whose stream closed'),
    });
  });

  app.post(messagePath, async (c) => {
    if (!isJsonContentType(c.req.header('content-type'))) {
      return transportError(c, catalogueRefusal('UnsupportedMediaType'));
    }
    const sessionId = c.req.query('sessionId');
    if (sessionId === undefined || sessionId === '') {
      return transportError(c, catalogueRefusal('SessionIdQueryRequired'));
    }
    // 2025 clients that fall back to this transport send the header they negotiated.
    const version = c.req.header('mcp-protocol-version');
    if (version !== undefined && !isSupportedProtocolVersion(version)) {
      return transportError(c, catalogueRefusal('ProtocolVersionHeaderUnsupported', version.slice(0, 40)));
    }
    const parsed = await readJson(c, options.maxBodyBytes);
    if (!parsed.ok && parsed.tooLarge) return refuseWithHono(c, tooLargeRefusal(options.maxBodyBytes));
    if (!parsed.ok) return transportError(c, catalogueRefusal('ParseError', parsed.reason));
    if (Array.isArray(parsed.value)) {
      return transportError(c, catalogueRefusal('InvalidRequest', 'JSON-RPC batches are not part of protocol version 2024-11-05'));
    }
    const classified = classifyMessage(parsed.value);
    if (classified.kind === 'invalid') {
      return c.json(errorResponse(classified.id, catalogueError('InvalidRequest', classified.reason)), ERRORS.InvalidRequest.status);
    }
    const id = classified.kind === 'request' ? classified.message.id : null;
    if (id !== null) c.set('messageId', id);

    const principal = c.get('principal');
    const session = isWellFormedSessionId(sessionId) ? await store.get(sessionId) : undefined;
    // Another principal's session is answered exactly like an unknown one: it does not exist for them.
    // So is a session of a configured endpoint: this transport serves the default endpoint only.
    if (session !== undefined && (session.principal !== principal?.sub || session.endpoint !== undefined)) return notFound(c, id);

    if (classified.kind === 'request' && classified.message.method === 'initialize') {
      if (!isWellFormedSessionId(sessionId)) return notFound(c, id);
      const { message } = classified;
      const answer = session
        ? Promise.resolve(errorResponse(message.id, catalogueError('InvalidRequest', 'the session is already initialized')))
        : gateway.initialize(message, principal, sessionId, undefined, c.get('trace')?.parentFor(metaTraceContext(message.params))).then((outcome) => outcome.response);
      later(answer.then((response) => events.enqueue([sessionId], response as unknown as EventMessage)), 'answer initialize');
      return accepted(c);
    }
    if (!session) return notFound(c, id);

    switch (classified.kind) {
      case 'request': {
        const reply = new QueuedReply(session.id, events, logger);
        later(
          gateway
            .handleRequest({
              session,
              principal,
              request: classified.message,
              related: reply.related,
              requestId: c.get('requestId'),
              parentSpan: c.get('trace')?.parentFor(metaTraceContext(classified.message.params)),
            })
            .then((response) => reply.finish(response)),
          'answer a request',
        );
        break;
      }
      case 'notification':
        await gateway.handleNotification(session, classified.message);
        break;
      case 'response':
        // A client's answer to a request the gateway relayed from an upstream.
        await gateway.handleResponse(session, classified.message);
        break;
    }
    return accepted(c);
  });

  app.all(ssePath, (c) => transportError(c, catalogueRefusal('MethodNotAllowed', c.req.method), { Allow: 'GET' }));
  app.all(messagePath, (c) => transportError(c, catalogueRefusal('MethodNotAllowed', c.req.method), { Allow: 'POST' }));

  async function endSession(sessionId: string): Promise<void> {
    const session = await store.get(sessionId);
    // Never initialized (or already gone): only its queue may be left.
    if (!session) return events.drop(sessionId);
    await gateway.closeSession(session);
  }
}

function notFound(c: Context<AppEnv>, id: JsonRpcId | null = null): Response {
  return c.json(errorResponse(id, catalogueError('SessionNotFound')), ERRORS.SessionNotFound.status);
}

function accepted(c: Context<AppEnv>): Response {
  return noBody(c, 202);
}

