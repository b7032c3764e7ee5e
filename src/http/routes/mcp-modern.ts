// The 2026-07-28 side of the MCP endpoint: a POST whose body carries the per-request envelope.
// Headers are checked against the body here (they are HTTP's business), the request goes to the
// gateway's 2026 front, and its answer comes back as JSON or as a stream scoped to the request,
// whose closing by the client cancels the request. subscriptions/listen keeps its stream open.
import type { Context } from 'hono';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../../gateway/json-rpc.js';
import { envelopeVersion } from '../../gateway/modern/envelope.js';
import type { ModernAnswer, ModernFront } from '../../gateway/modern/front.js';
import type { Listens } from '../../gateway/modern/listens.js';
import { META } from '../../gateway/modern/envelope.js';
import { isModernVersion } from '../../gateway/modern/versions.js';
import { metaTraceContext } from '../../gateway/trace-meta.js';
import type { Logger } from '../../observe/logger.js';
import { isStoreUnavailable } from '../../session/store-unavailable.js';
import type { AppEnv } from '../app-env.js';
import { clientGone } from '../client-gone.js';
import { headerMismatch, paramHeaderMismatch } from '../modern-headers.js';
import type { Responder } from '../responder.js';
import { ModernReply } from '../sse/modern-reply.js';
import { SseStream } from '../sse/sse-stream.js';

const HEADER_MISMATCH = -32020;

/**
 * Whether a POSTed request or notification belongs to the 2026 front: its envelope names a version,
 * or it is a request whose MCP-Protocol-Version header names a 2026 revision. Such a request without
 * a usable envelope is a malformed 2026 request (400, -32602, as the spec says), not a 2025 request
 * missing its session. initialize is how a 2025 client starts, so without an envelope it stays 2025.
 */
export function isModernMessage(message: JsonRpcRequest | JsonRpcNotification, headerVersion: string | undefined): boolean {
  if (envelopeVersion(message.params) !== undefined) return true;
  return 'id' in message && message.method !== 'initialize' && isModernVersion(headerVersion);
}

export interface ModernRouteOptions {
  /** The configured endpoint of the route; undefined: the default one. */
  readonly endpoint: string | undefined;
  readonly front: ModernFront;
  readonly listens: Listens;
  readonly logger: Logger;
  readonly keepAliveMs: number;
  readonly respond: (c: Context<AppEnv>) => Responder;
}

export function serveModern(c: Context<AppEnv>, message: JsonRpcRequest | JsonRpcNotification, options: ModernRouteOptions): Response | Promise<Response> {
  const id = 'id' in message ? message.id : null;
  const mismatch = headerMismatch(
    { protocolVersion: c.req.header('mcp-protocol-version'), method: c.req.header('mcp-method'), name: c.req.header('mcp-name') },
    message,
    envelopeVersion(message.params),
  );
  const paramMismatch = mismatch ?? mirroredParamMismatch(c, message, options);
  if (paramMismatch !== undefined) return c.json({ jsonrpc: '2.0', id, error: { code: HEADER_MISMATCH, message: `Header mismatch: ${paramMismatch}` } }, 400);
  // 2026 defines no client notification over HTTP (closing a stream is the cancellation).
  if (!('id' in message)) return c.body(null, 202);

  const principal = c.get('principal');
  // With tracing on: the request's span continues the header's trace, or the envelope's (request-trace.ts).
  const trace = c.get('trace');
  const parentSpan = trace?.parentFor(metaTraceContext(message.params));
  if (message.method === 'subscriptions/listen') return openListen(c, message, options);

  const reply = new ModernReply(options.respond(c));
  const release = trace?.hold();
  void options.front
    .handle(message, principal, { related: reply.related, cancel: clientGone(c), requestId: c.get('requestId'), endpoint: options.endpoint, parentSpan })
    .then(
      (answer) => {
        reply.finish(answer.response, statusOf(answer));
        release?.();
      },
      (error: unknown) => {
        if (isStoreUnavailable(error)) return reply.unavailable(message.id);
        options.logger.error({ err: error instanceof Error ? error.message : String(error), method: message.method }, 'a 2026 request failed');
        reply.finish({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: 'Internal error' } });
        release?.();
      },
    );
  return reply.response;
}

/** For a tools/call of a tool whose schema mirrors parameters into headers: whether they match. */
function mirroredParamMismatch(c: Context<AppEnv>, message: JsonRpcRequest | JsonRpcNotification, { front, endpoint }: ModernRouteOptions): string | undefined {
  if (message.method !== 'tools/call' || typeof message.params?.name !== 'string') return undefined;
  const inputSchema = front.toolInputSchema(message.params.name, c.get('principal'), endpoint);
  return inputSchema && paramHeaderMismatch(inputSchema, message.params.arguments, (name) => c.req.header(name));
}

/**
 * The transport's statuses: an unknown method is 404; the refusals 2026-07-28 defines (a header
 * mismatch, a missing client capability, an unsupported version), whoever raised them, and any
 * refusal before serving (a bad envelope or state) are 400; everything else is a JSON-RPC answer.
 */
function statusOf({ response, refused }: ModernAnswer): 200 | 400 | 404 {
  if (!('error' in response)) return 200;
  const { code } = response.error;
  if (code === -32601) return 404;
  return refused || code === -32020 || code === -32021 || code === -32022 ? 400 : 200;
}

async function openListen(c: Context<AppEnv>, request: JsonRpcRequest, options: ModernRouteOptions): Promise<Response> {
  const caller = options.front.caller(request, c.get('principal'), options.endpoint);
  if ('response' in caller) return c.json(caller.response, statusOf(caller));
  const sse = new SseStream(options.respond(c));
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
  const { holder, honoured } = await options.listens.open(request.id, request.params ?? {}, caller.principal, sink, options.endpoint);
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
    options.listens.close(holder);
  });
  return sse.response;
}

