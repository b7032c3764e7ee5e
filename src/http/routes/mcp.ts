// The MCP endpoint, per the Streamable HTTP transport of 2025-11-25: header rules, session lookup,
// and one parse of the body; then the message goes to the gateway and its answer comes back as
// JSON. No MCP semantics live here beyond telling initialize from the rest.
import type { Context, Hono } from 'hono';
import type { Gateway } from '../../gateway/gateway.js';
import { isSupportedProtocolVersion } from '../../gateway/initialize.js';
import {
  classifyMessage,
  errorResponse,
  type ClassifiedMessage,
  type JsonRpcResponse,
} from '../../gateway/json-rpc.js';
import type { SessionRecord, SessionStore } from '../../session/store.js';
import { isWellFormedSessionId } from '../../session/session-id.js';
import type { Logger } from '../../observe/logger.js';
import type { SessionEvents } from '../../session/events.js';
import { acceptsEventStream, acceptsJsonAndEventStream } from '../accept.js';
import { tooLarge } from '../middleware/body-size.js';
import type { OpenStreams } from '../sse/open-streams.js';
import { PostReply } from '../sse/post-reply.js';
import { openStandaloneStream } from '../sse/standalone-stream.js';
import type { AppEnv } from '../app-env.js';
import { responder } from '../responder.js';
import { isJsonContentType, readJson } from '../json-body.js';
import { TransportCode, transportError } from '../transport-errors.js';
import { isModernVersion } from '../../gateway/modern/versions.js';
import { metaTraceContext } from '../../gateway/trace-meta.js';
import type { ModernFront } from '../../gateway/modern/front.js';
import { isModernMessage, serveModern, type ModernRouteOptions } from './mcp-modern.js';

export interface McpRouteOptions {
  readonly path: string;
  /**
   * The configured endpoint this path serves (config `endpoints`); absent: the default one
   * (server.path). Sessions started here exist only here.
   */
  readonly endpoint?: string;
  readonly gateway: Gateway;
  readonly modern: ModernFront;
  readonly store: SessionStore;
  readonly events: SessionEvents;
  readonly openStreams: OpenStreams;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  /** How often an idle GET stream gets a comment, so proxies keep it open. */
  readonly keepAliveMs?: number;
}

/** Streams start with a priming event for clients that know it (2025-11-25 and later). */
const PRIMING_SINCE = '2025-11-25';
const DEFAULT_KEEP_ALIVE_MS = 25_000;

const SESSION_HEADER = 'mcp-session-id';
const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';
/** Batches were part of 2025-03-26 only; later revisions removed them. */
const BATCH_PROTOCOL_VERSION = '2025-03-26';

export function registerMcpRoutes(app: Hono<AppEnv>, options: McpRouteOptions): void {
  const { path, endpoint, gateway, store, events, openStreams, logger } = options;
  const modernRoute: ModernRouteOptions = {
    endpoint,
    front: options.modern,
    listens: gateway.listens,
    logger,
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    respond: responder,
  };

  app.post(path, async (c) => {
    if (!acceptsJsonAndEventStream(c.req.header('accept'))) {
      return transportError(c, 406, TransportCode.BadRequest, 'Not Acceptable: the Accept header must list application/json and text/event-stream');
    }
    if (!isJsonContentType(c.req.header('content-type'))) {
      return transportError(c, 415, TransportCode.BadRequest, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const parsed = await readJson(c, options.maxBodyBytes);
    if (!parsed.ok && parsed.tooLarge) return tooLarge(c, options.maxBodyBytes);
    if (!parsed.ok) return transportError(c, 400, TransportCode.ParseError, `Parse error: ${parsed.reason}`);

    if (Array.isArray(parsed.value)) return handleBatch(c, parsed.value);

    const classified = classifyMessage(parsed.value);
    if (classified.kind === 'invalid') {
      return c.json(errorResponse(classified.id, { code: TransportCode.InvalidRequest, message: `Invalid Request: ${classified.reason}` }), 400);
    }
    // A 2026 request describes itself in its envelope (or at least its headers) and has no session
    // (an Mcp-Session-Id is ignored).
    if ((classified.kind === 'request' || classified.kind === 'notification') && isModernMessage(classified.message, c.req.header(PROTOCOL_VERSION_HEADER))) {
      return serveModern(c, classified.message, modernRoute);
    }
    // With tracing on: what the message's span goes under (request-trace.ts).
    const trace = c.get('trace');
    if (classified.kind === 'request' && classified.message.method === 'initialize') {
      const parentSpan = trace?.parentFor(metaTraceContext(classified.message.params));
      const outcome = await gateway.initialize(classified.message, c.get('principal'), undefined, endpoint, parentSpan);
      if (outcome.session) c.header('Mcp-Session-Id', outcome.session.id);
      return c.json(outcome.response);
    }

    const session = await loadSession(c);
    if (session instanceof Response) return session;
    if (classified.kind === 'request' && classified.message.method !== 'initialize') {
      const reply = new PostReply({
        sessionId: session.id,
        events,
        openStreams,
        prime: session.protocolVersion >= PRIMING_SINCE,
        respond: responder(c),
        logger,
      });
      const parentSpan = trace?.parentFor(metaTraceContext(classified.message.params));
      // A streamed answer's span ends with its response, not with the stream's first bytes.
      const release = trace?.hold();
      const answered = gateway
        .handleRequest({ session, principal: c.get('principal'), request: classified.message, related: reply.related, requestId: c.get('requestId'), parentSpan })
        .then(
          (response) => reply.finish(response),
          (error: unknown) => reply.fail(classified.message.id, error),
        );
      // Only traced requests pay for the extra promise.
      if (release) void answered.finally(release);
      return reply.response;
    }
    const response = await dispatch(c, session, classified);
    return response === undefined ? c.body(null, 202) : c.json(response);
  });

  app.delete(path, async (c) => {
    if (isModernVersion(c.req.header(PROTOCOL_VERSION_HEADER))) return noSessionsIn2026(c);
    const session = await loadSession(c);
    if (session instanceof Response) return session;
    await gateway.closeSession(session);
    openStreams.closeSession(session.id);
    return c.body(null, 200);
  });

  app.get(path, async (c) => {
    if (isModernVersion(c.req.header(PROTOCOL_VERSION_HEADER))) return noSessionsIn2026(c);
    if (!acceptsEventStream(c.req.header('accept'))) {
      return transportError(c, 406, TransportCode.BadRequest, 'Not Acceptable: the Accept header must list text/event-stream');
    }
    const session = await loadSession(c);
    if (session instanceof Response) return session;
    const lastEventId = c.req.header('last-event-id');
    return openStandaloneStream({
      sessionId: session.id,
      lastEventId: lastEventId === undefined || lastEventId === '' ? undefined : lastEventId,
      events,
      openStreams,
      admits: (message) => gateway.admits(session.id, message),
      prime: session.protocolVersion >= PRIMING_SINCE,
      respond: responder(c),
      keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
      logger,
    });
  });

  app.all(path, (c) =>
    transportError(c, 405, TransportCode.BadRequest, `Method Not Allowed: ${c.req.method}`, { Allow: 'GET, POST, DELETE' }),
  );

  async function dispatch(c: Context<AppEnv>, session: SessionRecord, classified: ClassifiedMessage): Promise<JsonRpcResponse | undefined> {
    switch (classified.kind) {
      case 'request':
        if (classified.message.method === 'initialize') {
          return errorResponse(classified.message.id, { code: TransportCode.InvalidRequest, message: 'Invalid Request: initialize cannot be batched or repeated in a session' });
        }
        return gateway.handleRequest({
          session,
          principal: c.get('principal'),
          request: classified.message,
          requestId: c.get('requestId'),
          parentSpan: c.get('trace')?.parentFor(metaTraceContext(classified.message.params)),
        });
      case 'notification':
        await gateway.handleNotification(session, classified.message);
        return undefined;
      case 'response':
        // A client's answer to a request the gateway relayed from an upstream.
        await gateway.handleResponse(session, classified.message);
        return undefined;
      case 'invalid':
        return errorResponse(classified.id, { code: TransportCode.InvalidRequest, message: `Invalid Request: ${classified.reason}` });
    }
  }

  async function handleBatch(c: Context<AppEnv>, messages: unknown[]): Promise<Response> {
    if (messages.length === 0) return transportError(c, 400, TransportCode.InvalidRequest, 'Invalid Request: an empty batch');
    const session = await loadSession(c);
    if (session instanceof Response) return session;
    if (session.protocolVersion !== BATCH_PROTOCOL_VERSION) {
      return transportError(
        c,
        400,
        TransportCode.InvalidRequest,
        `Invalid Request: JSON-RPC batches are not part of protocol version ${session.protocolVersion} (only ${BATCH_PROTOCOL_VERSION})`,
      );
    }
    const responses = await Promise.all(messages.map((message) => dispatch(c, session, classifyMessage(message))));
    const answered = responses.filter((response): response is JsonRpcResponse => response !== undefined);
    return answered.length === 0 ? c.body(null, 202) : c.json(answered);
  }

  /** The session named by the header, or the response that refuses the request. */
  async function loadSession(c: Context<AppEnv>): Promise<SessionRecord | Response> {
    const version = c.req.header(PROTOCOL_VERSION_HEADER);
    if (version !== undefined && !isSupportedProtocolVersion(version)) {
      return transportError(c, 400, TransportCode.BadRequest, `Bad Request: unsupported MCP-Protocol-Version "${version.slice(0, 40)}"`);
    }
    const id = c.req.header(SESSION_HEADER);
    if (id === undefined || id === '') {
      return transportError(c, 400, TransportCode.BadRequest, 'Bad Request: Mcp-Session-Id header is required');
    }
    const session = isWellFormedSessionId(id) ? await store.get(id) : undefined;
    // Another principal's session, or one started on another endpoint, is answered exactly like an
    // unknown one: it does not exist for them, or there.
    if (!session || session.principal !== c.get('principal')?.sub || session.endpoint !== endpoint) {
      return transportError(c, 404, TransportCode.SessionNotFound, 'Session not found');
    }
    return session;
  }
}

/** 2026-07-28 has no GET stream and no session to delete (its transport says: 405). */
function noSessionsIn2026(c: Context<AppEnv>): Response {
  return transportError(c, 405, TransportCode.BadRequest, `Method Not Allowed: ${c.req.method} is not part of protocol version 2026-07-28 (use subscriptions/listen)`, {
    Allow: 'POST',
  });
}


