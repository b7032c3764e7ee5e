// The node:http front for the hot path: every POST to an MCP path (server.path and each endpoint's)
// is served here, in the order of design.md's middleware (request id, access line and counter,
// span, drain, Origin, token, rate limit, the 401/403, the body limit), by the same checks the
// Hono middleware runs for every other request (request-head.ts). Anything else (GET streams,
// DELETE, the legacy transport, health, metrics, metadata, admin) goes on to the Hono app.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../../observe/logger.js';
import type { Tracing } from '../../observe/tracing/tracing.js';
import { isStoreUnavailable } from '../../session/store-unavailable.js';
import type { HttpDrain } from '../drain.js';
import type { BearerAuth } from '../middleware/bearer-auth.js';
import { declaresTooLarge, tooLargeRefusal } from '../middleware/body-size.js';
import type { OriginCheck } from '../middleware/origin-guard.js';
import type { RateLimitCheck } from '../middleware/rate-limit.js';
import type { RequestRecorder } from '../middleware/observe-requests.js';
import { requestIdFrom } from '../middleware/request-id.js';
import { HttpRequestTrace } from '../request-trace.js';
import { SESSION_HEADER } from '../session-lookup.js';
import { storeUnavailable } from '../transport-errors.js';
import type { McpPost } from './mcp-post.js';
import { NodeExchange } from './node-exchange.js';

/** One MCP path: which endpoint it is (undefined: server.path) and whose tokens it takes. */
export interface MessagePath {
  readonly endpoint: string | undefined;
  readonly auth: BearerAuth | undefined;
}

export interface MessageFrontOptions {
  readonly paths: ReadonlyMap<string, MessagePath>;
  readonly post: McpPost;
  readonly recorder: RequestRecorder;
  readonly maxBodyBytes: number;
  readonly logger: Logger;
  readonly origin?: OriginCheck;
  readonly rateLimit?: RateLimitCheck;
  readonly drain?: HttpDrain;
  readonly tracing?: Tracing;
}

/** A listener that serves the POSTs to MCP paths and hands everything else to `next`. */
export function messageFront(options: MessageFrontOptions, next: RequestListener): RequestListener {
  const { paths, post, recorder, maxBodyBytes, logger, origin, rateLimit, drain, tracing } = options;

  async function serve(exchange: NodeExchange, path: MessagePath): Promise<void> {
    const refusedByDrain = drain?.refusesPost(Boolean(exchange.header(SESSION_HEADER)));
    if (refusedByDrain) return exchange.refuse(refusedByDrain);
    if (origin) {
      const verdict = origin(exchange);
      if (verdict.refusal) return exchange.refuse(verdict.refusal);
      exchange.cors = verdict.cors;
    }
    // Token first, so the limit counts by principal; the 401/403 after it, so refused requests count
    // too; and all of it before the body is read, so a client without a token (or over its limit)
    // never makes the gateway buffer a body.
    const outcome = path.auth && (await path.auth.check(exchange.header('authorization')));
    if (outcome && 'principal' in outcome) exchange.principal = outcome.principal;
    if (rateLimit) {
      const refused = await rateLimit(exchange, exchange.principal?.sub);
      if (refused) return exchange.refuse(refused);
    }
    if (outcome && 'problem' in outcome) return exchange.refuse(path.auth!.refusal(outcome.problem, exchange));
    if (declaresTooLarge(exchange.header('content-length'), maxBodyBytes)) return exchange.refuse(tooLargeRefusal(maxBodyBytes));
    await post.serve(exchange, path.endpoint);
  }

  function failed(exchange: NodeExchange, error: unknown): void {
    // The store logs its outage once; each refused request has its access line (503).
    if (isStoreUnavailable(error)) return exchange.respond(storeUnavailable.body(), storeUnavailable.status, storeUnavailable.headers);
    logger.error({ err: error, requestId: exchange.requestId }, 'unhandled error in HTTP handler');
    if (exchange.response.headersSent) exchange.response.destroy();
    else exchange.refuse({ status: 500, code: -32603, message: 'Internal error' });
  }

  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST') return next(request, response);
    const pathname = pathOf(request.url ?? '/');
    const path = paths.get(pathname);
    if (path === undefined) return next(request, response);
    const startedAt = performance.now();
    const trace =
      tracing &&
      new HttpRequestTrace(tracing, {
        method: 'POST',
        path: pathname,
        startTime: startedAt,
        traceparent: headerOf(request, 'traceparent'),
        tracestate: headerOf(request, 'tracestate'),
      });
    const exchange = new NodeExchange(request, response, pathname, requestIdFrom(headerOf(request, 'x-request-id')), startedAt, recorder, trace, drain);
    serve(exchange, path).catch((error: unknown) => failed(exchange, error));
  };
}

/**
 * The request target's path, without query or fragment, percent-decoded as Hono decodes the paths
 * it routes: `/m%63p` is `/mcp` for a POST as it is for a GET or DELETE there.
 */
export function pathOf(target: string): string {
  let end = target.length;
  let encoded = false;
  for (let index = 0; index < target.length; index++) {
    const code = target.charCodeAt(index);
    if (code === 0x3f /* ? */ || code === 0x23 /* # */) {
      end = index;
      break;
    }
    if (code === 0x25 /* % */) encoded = true;
  }
  const path = end === target.length ? target : target.slice(0, end);
  if (!encoded) return path;
  try {
    return decodeURI(path);
  } catch {
    // Not valid percent-encoding: no configured path looks like that, so it is left as it is.
    return path;
  }
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
