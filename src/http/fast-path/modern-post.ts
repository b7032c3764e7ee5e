// The 2026-07-28 side of the MCP endpoint: a POST whose body carries the per-request envelope.
// Headers are checked against the body here (they are HTTP's business), the request goes to the
// gateway's 2026 era adapter, and its answer comes back as JSON or as a stream scoped to the request,
// whose closing by the client cancels the request. subscriptions/listen keeps its stream open.
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../../protocol/json-rpc.js';
import { envelopeVersion } from '../../gateway/modern/envelope.js';
import type { ModernAnswer, ModernAdapter } from '../../gateway/modern/adapter.js';
import type { Listens } from '../../gateway/modern/listens.js';
import { META } from '../../gateway/modern/envelope.js';
import { isModernVersion } from '../../gateway/modern/versions.js';
import { metaTraceContext } from '../../protocol/trace-meta.js';
import type { Logger } from '../../observe/logger.js';
import { catalogueError, ERRORS, modernStatusOf } from '../../protocol/error-catalogue.js';
import { isStoreUnavailable } from '../../session/store-unavailable.js';
import { headerMismatch, paramHeaderMismatch } from '../modern-headers.js';
import { ModernReply } from '../sse/modern-reply.js';
import type { StoreUnavailableAnswer } from '../transport-errors.js';
import { SseStream } from '../sse/sse-stream.js';
import type { NodeExchange } from './node-exchange.js';

/**
 * Whether a POSTed request or notification belongs to the 2026 era adapter: its envelope names a
 * version, or it is a request whose MCP-Protocol-Version header names a 2026 revision. Such a
 * request without a usable envelope is a malformed 2026 request (400, -32602, as the spec says), not
 * a 2025 request missing its session. initialize is how a 2025 client starts, so without an
 * envelope it stays 2025.
 */
export function isModernMessage(message: JsonRpcRequest | JsonRpcNotification, headerVersion: string | undefined): boolean {
  if (envelopeVersion(message.params) !== undefined) return true;
  return 'id' in message && message.method !== 'initialize' && isModernVersion(headerVersion);
}

export interface ModernPostOptions {
  /** The 2026 era adapter of the gateway. */
  readonly modern: ModernAdapter;
  readonly gateway: { readonly listens: Listens };
  readonly logger: Logger;
  readonly keepAliveMs: number;
  /** The 503 when the session store did not answer. */
  readonly unavailable: StoreUnavailableAnswer;
}

/** `endpoint`: the configured endpoint of the path; undefined: the default one. */
export function serveModern(exchange: NodeExchange, message: JsonRpcRequest | JsonRpcNotification, endpoint: string | undefined, options: ModernPostOptions): void | Promise<void> {
  const id = 'id' in message ? message.id : null;
  const mismatch = headerMismatch(
    { protocolVersion: exchange.header('mcp-protocol-version'), method: exchange.header('mcp-method'), name: exchange.header('mcp-name') },
    message,
    envelopeVersion(message.params),
  );
  const paramMismatch = mismatch ?? mirroredParamMismatch(exchange, message, endpoint, options.modern);
  if (paramMismatch !== undefined) return exchange.json({ jsonrpc: '2.0', id, error: catalogueError('HeaderMismatch', paramMismatch) }, ERRORS.HeaderMismatch.status);
  // 2026 defines no client notification over HTTP (closing a stream is the cancellation).
  if (!('id' in message)) return exchange.accepted();

  const { principal, trace } = exchange;
  // With tracing on: the request's span continues the header's trace, or the envelope's (request-trace.ts).
  const parentSpan = trace?.parentFor(metaTraceContext(message.params));
  if (message.method === 'subscriptions/listen') return openListen(exchange, message, endpoint, options);

  const reply = new ModernReply(exchange.respond, options.unavailable);
  const release = trace?.hold();
  void options.modern
    .handle(message, principal, { related: reply.related, cancel: exchange.cancel, requestId: exchange.requestId, endpoint, parentSpan })
    .then(
      (answer) => {
        reply.finish(answer.response, statusOf(answer));
        release?.();
      },
      (error: unknown) => {
        if (isStoreUnavailable(error)) return reply.unavailable(message.id);
        options.logger.error({ err: error instanceof Error ? error.message : String(error), method: message.method }, 'a 2026 request failed');
        reply.finish({ jsonrpc: '2.0', id: message.id, error: catalogueError('InternalError') });
        release?.();
      },
    );
}

/** For a tools/call of a tool whose schema mirrors parameters into headers: whether they match. */
function mirroredParamMismatch(exchange: NodeExchange, message: JsonRpcRequest | JsonRpcNotification, endpoint: string | undefined, adapter: ModernAdapter): string | undefined {
  if (message.method !== 'tools/call' || typeof message.params?.name !== 'string') return undefined;
  const inputSchema = adapter.toolInputSchema(message.params.name, exchange.principal, endpoint);
  return inputSchema && paramHeaderMismatch(inputSchema, message.params.arguments, (name) => exchange.header(name.toLowerCase()));
}

/**
 * The transport's statuses: an unknown method is 404 and the refusals 2026-07-28 defines (a header
 * mismatch, a missing client capability, an unsupported version), whoever raised them, are 400 (the
 * catalogue's modernStatus); any refusal before serving (a bad envelope or state) is 400;
 * everything else is a JSON-RPC answer.
 */
function statusOf({ response, refused }: ModernAnswer): 200 | 400 | 404 {
  if (!('error' in response)) return 200;
  const status = modernStatusOf(response.error.code);
  if (status === 404) return 404;
  return refused || status === 400 ? 400 : 200;
}

async function openListen(exchange: NodeExchange, request: JsonRpcRequest, endpoint: string | undefined, options: ModernPostOptions): Promise<void> {
  const caller = options.modern.caller(request, exchange.principal, endpoint);
  if ('response' in caller) return exchange.json(caller.response, statusOf(caller));
  const sse = new SseStream(exchange.respond);
  // The acknowledgement goes first: nothing is sent on a listen before it (the spec's rule), so
  // what arrives while the listen subscribes upstream waits behind it.
  let held: string[] | undefined = [];
  const sink = {
    send: (message: JsonRpcNotification | JsonRpcResponse) => {
      const data = JSON.stringify(message);
      if (held) held.push(data);
      else sse.send(undefined, data);
    },
    close: () => sse.close(),
  };
  const { holder, honoured } = await options.gateway.listens.open(request.id, request.params ?? {}, caller.principal, sink, endpoint);
  sse.send(
    undefined,
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [META.subscriptionId]: request.id }, notifications: honoured },
    }),
  );
  for (const data of held) sse.send(undefined, data);
  held = undefined;
  const keepAlive = setInterval(() => sse.comment('keep-alive'), options.keepAliveMs);
  keepAlive.unref();
  sse.onClose(() => {
    clearInterval(keepAlive);
    options.gateway.listens.close(holder);
  });
}

