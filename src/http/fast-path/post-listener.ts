// The node:http fast path: every POST to an MCP path (server.path and each endpoint's)
// is served here, in the order of design.md's middleware (request id, access line and counter,
// span, drain, then the access checks), by the same checks the Hono middleware runs for every
// other request (middleware/access-checks.ts). Anything else (GET streams, DELETE, the legacy
// transport, health, metrics, metadata, admin) goes on to the Hono app.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../../observe/logger.js';
import type { Tracing } from '../../observe/tracing/tracing.js';
import { isStoreUnavailable } from '../../session/store-unavailable.js';
import type { HttpDrain } from '../drain.js';
import { checkAccess, type AccessChecks } from '../middleware/access-checks.js';
import type { BearerAuth } from '../middleware/bearer-auth.js';
import type { OriginCheck } from '../middleware/origin-guard.js';
import type { RateLimitCheck } from '../middleware/rate-limit.js';
import type { RequestRecorder } from '../middleware/observe-requests.js';
import { requestIdFrom } from '../middleware/request-id.js';
import { HttpRequestTrace } from '../request-trace.js';
import { SESSION_HEADER } from '../session-lookup.js';
import type { StoreUnavailableAnswer } from '../transport-errors.js';
import type { McpPost } from './mcp-post.js';
import { TrustedProxies } from '../trusted-proxies.js';
import { NodeExchange } from './node-exchange.js';
import { catalogueRefusal } from '../../protocol/error-catalogue.js';

/** One MCP path: which endpoint it is (undefined: server.path) and whose tokens it takes. */
export interface MessagePath {
  readonly endpoint: string | undefined;
  readonly auth: BearerAuth | undefined;
}

export interface PostListenerOptions {
  readonly paths: ReadonlyMap<string, MessagePath>;
  readonly post: McpPost;
  readonly recorder: RequestRecorder;
  readonly maxBodyBytes: number;
  readonly logger: Logger;
  readonly origin?: OriginCheck;
  readonly rateLimit?: RateLimitCheck;
  /** server.trustedProxies: who is believed about the client's address; default none. */
  readonly trustedProxies?: TrustedProxies;
  readonly drain?: HttpDrain;
  readonly tracing?: Tracing;
  /** The 503 when the session store did not answer. */
  readonly unavailable: StoreUnavailableAnswer;
}

/** A listener that serves the POSTs to MCP paths and hands everything else to `next`. */
export function postListener(options: PostListenerOptions, next: RequestListener): RequestListener {
  const { paths, post, recorder, maxBodyBytes, logger, origin, rateLimit, drain, tracing, unavailable, trustedProxies = TrustedProxies.none } = options;

  // Each path's checks, made once rather than per request.
  const checksOf = new Map<MessagePath, AccessChecks>(
    [...paths.values()].map((path) => [path, { ...(origin && { origin }), ...(path.auth && { auth: path.auth }), ...(rateLimit && { rateLimit }), maxBodyBytes }]),
  );

  async function serve(exchange: NodeExchange, path: MessagePath): Promise<void> {
    const refusedByDrain = drain?.refusesPost(Boolean(exchange.header(SESSION_HEADER)));
    if (refusedByDrain) return exchange.refuse(refusedByDrain);
    const checked = checkAccess(exchange, checksOf.get(path)!);
    // No await when the checks had nothing to wait for (access-checks.ts).
    const verdict = checked instanceof Promise ? await checked : checked;
    exchange.cors = verdict.cors;
    if (verdict.refusal) return exchange.refuse(verdict.refusal);
    // Only POSTs come here, and a preflight is an OPTIONS: it goes on to the Hono app.
    if (verdict.preflight) return;
    exchange.principal = verdict.principal;
    await post.serve(exchange, path.endpoint);
  }

  function failed(exchange: NodeExchange, error: unknown): void {
    // The store logs its outage once; each refused request has its access line (503).
    if (isStoreUnavailable(error)) return exchange.respond(unavailable.body(exchange.messageId), unavailable.status, unavailable.headers);
    logger.error({ err: error, requestId: exchange.requestId }, 'unhandled error in HTTP handler');
    if (exchange.response.headersSent) exchange.response.destroy();
    else exchange.refuse(catalogueRefusal('InternalError'));
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
    const exchange = new NodeExchange(request, response, pathname, requestIdFrom(headerOf(request, 'x-request-id')), startedAt, recorder, trace, drain, trustedProxies);
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
