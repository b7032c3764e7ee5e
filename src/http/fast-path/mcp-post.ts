// A POST to an MCP endpoint, per the Streamable HTTP transport of 2025-11-25: header rules, one read
// and one parse of the body, the session; then the message goes to the gateway and its answer comes
// back as JSON or as an SSE stream (PostReply). A message carrying the 2026 envelope goes to the 2026
// era adapter instead (modern-post.ts). No MCP semantics live here beyond telling initialize from
// the rest.
import type { Gateway } from '../../gateway/gateway.js';
import { classifyMessage, errorResponse, type ClassifiedMessage, type JsonRpcResponse } from '../../protocol/json-rpc.js';
import type { ModernAdapter } from '../../gateway/modern/adapter.js';
import { metaTraceContext } from '../../protocol/trace-meta.js';
import type { Logger } from '../../observe/logger.js';
import type { SessionEvents } from '../../session/events.js';
import type { SessionRecord, SessionStore } from '../../session/store.js';
import { acceptsJsonAndEventStream } from '../accept.js';
import { isJsonContentType, parseJsonBody } from '../json-body.js';
import { tooLargeRefusal } from '../middleware/body-size.js';
import { findSession, isRefusal, PROTOCOL_VERSION_HEADER } from '../session-lookup.js';
import type { OpenStreams } from '../sse/open-streams.js';
import { PostReply } from '../sse/post-reply.js';
import { catalogueError, catalogueRefusal, ERRORS } from '../../protocol/error-catalogue.js';
import type { StoreUnavailableAnswer } from '../transport-errors.js';
import { isModernMessage, serveModern } from './modern-post.js';
import type { NodeExchange } from './node-exchange.js';

export interface McpPostOptions {
  readonly gateway: Gateway;
  /** The 2026-07-28 era adapter: requests that carry the per-request envelope. */
  readonly modern: ModernAdapter;
  readonly store: SessionStore;
  readonly events: SessionEvents;
  readonly openStreams: OpenStreams;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  /** How often an idle 2026 listen stream gets a comment, so proxies keep it open. */
  readonly keepAliveMs: number;
  /** The 503 when the session store did not answer. */
  readonly unavailable: StoreUnavailableAnswer;
}

/** Streams start with a priming event for clients that know it (2025-11-25 and later). */
const PRIMING_SINCE = '2025-11-25';
/** Batches were part of 2025-03-26 only; later revisions removed them. */
const BATCH_PROTOCOL_VERSION = '2025-03-26';

export class McpPost {
  constructor(private readonly options: McpPostOptions) {}

  /** Serves one POST on `endpoint`'s path (undefined: server.path), access control already passed. */
  async serve(exchange: NodeExchange, endpoint: string | undefined): Promise<void> {
    const { gateway, maxBodyBytes } = this.options;
    if (!acceptsJsonAndEventStream(exchange.header('accept'))) {
      return exchange.refuse(catalogueRefusal('NotAcceptable', 'application/json and text/event-stream'));
    }
    if (!isJsonContentType(exchange.header('content-type'))) {
      return exchange.refuse(catalogueRefusal('UnsupportedMediaType'));
    }
    const body = await exchange.readBody(maxBodyBytes);
    if (!body.ok) {
      if (!body.tooLarge) return exchange.abandon();
      return exchange.refuse(tooLargeRefusal(maxBodyBytes));
    }
    const parsed = parseJsonBody(body.bytes);
    if (!parsed.ok) return exchange.refuse(catalogueRefusal('ParseError', parsed.reason));
    if (Array.isArray(parsed.value)) return this.#batch(exchange, parsed.value, endpoint);

    const classified = classifyMessage(parsed.value);
    if (classified.kind === 'invalid') {
      return exchange.json(errorResponse(classified.id, catalogueError('InvalidRequest', classified.reason)), ERRORS.InvalidRequest.status);
    }
    if (classified.kind === 'request') exchange.messageId = classified.message.id;
    // A 2026 request describes itself in its envelope (or at least its headers) and has no session
    // (an Mcp-Session-Id is ignored).
    if ((classified.kind === 'request' || classified.kind === 'notification') && isModernMessage(classified.message, exchange.header(PROTOCOL_VERSION_HEADER))) {
      return serveModern(exchange, classified.message, endpoint, this.options);
    }
    const { trace } = exchange;
    if (classified.kind === 'request' && classified.message.method === 'initialize') {
      const parentSpan = trace?.parentFor(metaTraceContext(classified.message.params));
      const outcome = await gateway.initialize(classified.message, exchange.principal, undefined, endpoint, parentSpan);
      return exchange.json(outcome.response, 200, outcome.session ? { 'Mcp-Session-Id': outcome.session.id } : undefined);
    }

    const session = await findSession(this.options.store, (name) => exchange.header(name), exchange.principal, endpoint);
    if (isRefusal(session)) return exchange.refuse(session);
    if (classified.kind === 'request') return this.#request(exchange, session, classified.message);
    await this.#dispatch(exchange, session, classified);
    exchange.accepted();
  }

  /** A request of a session: its answer as JSON, or as a stream once something related goes out first. */
  #request(exchange: NodeExchange, session: SessionRecord, request: Extract<ClassifiedMessage, { kind: 'request' }>['message']): void {
    const { events, openStreams, logger, gateway, unavailable } = this.options;
    const reply = new PostReply({ sessionId: session.id, events, openStreams, prime: session.protocolVersion >= PRIMING_SINCE, respond: exchange.respond, logger, unavailable });
    const { trace } = exchange;
    const parentSpan = trace?.parentFor(metaTraceContext(request.params));
    // A streamed answer's span ends with its response, not with the stream's first bytes.
    const release = trace?.hold();
    const answered = gateway
      .handleRequest({ session, principal: exchange.principal, request, related: reply.related, requestId: exchange.requestId, parentSpan })
      .then(
        (response) => reply.finish(response),
        (error: unknown) => reply.fail(request.id, error),
      );
    // Only traced requests pay for the extra promise.
    if (release) void answered.finally(release);
  }

  async #dispatch(exchange: NodeExchange, session: SessionRecord, classified: ClassifiedMessage): Promise<JsonRpcResponse | undefined> {
    const { gateway } = this.options;
    switch (classified.kind) {
      case 'request':
        if (classified.message.method === 'initialize') {
          return errorResponse(classified.message.id, catalogueError('InvalidRequest', 'initialize cannot be batched or repeated in a session'));
        }
        return gateway.handleRequest({
          session,
          principal: exchange.principal,
          request: classified.message,
          requestId: exchange.requestId,
          parentSpan: exchange.trace?.parentFor(metaTraceContext(classified.message.params)),
        });
      case 'notification':
        await gateway.handleNotification(session, classified.message);
        return undefined;
      case 'response':
        // A client's answer to a request the gateway relayed from an upstream.
        await gateway.handleResponse(session, classified.message);
        return undefined;
      case 'invalid':
        return errorResponse(classified.id, catalogueError('InvalidRequest', classified.reason));
    }
  }

  async #batch(exchange: NodeExchange, messages: unknown[], endpoint: string | undefined): Promise<void> {
    if (messages.length === 0) return exchange.refuse(catalogueRefusal('InvalidRequest', 'an empty batch'));
    const session = await findSession(this.options.store, (name) => exchange.header(name), exchange.principal, endpoint);
    if (isRefusal(session)) return exchange.refuse(session);
    if (session.protocolVersion !== BATCH_PROTOCOL_VERSION) {
      return exchange.refuse(catalogueRefusal('InvalidRequest', `JSON-RPC batches are not part of protocol version ${session.protocolVersion} (only ${BATCH_PROTOCOL_VERSION})`));
    }
    const responses = await Promise.all(messages.map((message) => this.#dispatch(exchange, session, classifyMessage(message))));
    const answered = responses.filter((response): response is JsonRpcResponse => response !== undefined);
    if (answered.length === 0) exchange.accepted();
    else exchange.json(answered);
  }
}
