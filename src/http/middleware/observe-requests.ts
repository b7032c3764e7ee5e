// What each HTTP request leaves behind: one access log line (request id, short session id, method,
// path, status, duration, with tracing on its trace and span; never headers or the query string;
// its level below) and the switchboard_http_requests_total counter. Runs right after the request
// id middleware.
//
// The request id reaches the other lines about a request (audit, failures) explicitly, through the
// gateway's Caller, not through AsyncLocalStorage: on Node 20 that turns on a promise hook for
// every promise in the process (docs/decisions/0015-request-ids-without-async-local-storage.md).
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../observe/logger.js';
import { OTHER } from '../../observe/metrics.js';
import { isWellFormedSessionId } from '../../session/session-id.js';
import type { AppEnv } from '../app-env.js';
import { isStreamedAnswer } from '../response-headers.js';

export interface ObserveRequestsOptions {
  readonly logger: Logger;
  readonly mcpPath: string;
  /** The 2024-11-05 transport's GET and POST paths: MCP traffic too, the session in `?sessionId=`. */
  readonly legacyPaths?: readonly string[];
  /** The configured endpoints' paths (config `endpoints`): MCP traffic, each its own route label. */
  readonly endpointPaths?: readonly string[];
  readonly metrics?: { countHttpRequest(route: string, method: string, status: number): void };
  /** Routes with their own label value; anything else is "other" (a client picks paths freely). */
  readonly routes?: readonly string[];
}

const HTTP_METHODS = new Set(['GET', 'POST', 'DELETE', 'HEAD', 'OPTIONS', 'PUT', 'PATCH']);
const WELL_KNOWN_PREFIX = '/.well-known/';
const WELL_KNOWN_ROUTE = '/.well-known/*';
/** Unknown paths are a client's free text: logged, but not at any length. */
const MAX_LOGGED_PATH_CHARS = 200;
/** The same eight characters gateway.ts logs (shortId), never the whole id, which is a credential. */
const SHORT_SESSION_CHARS = 8;

/** What one request left behind, for its access line and counter. */
export interface ObservedRequest {
  readonly requestId: string | undefined;
  readonly path: string;
  readonly method: string;
  readonly status: number;
  /** An SSE answer, whose line is written at its first byte. */
  readonly streamed: boolean;
  /** The Mcp-Session-Id (or legacy `sessionId`) the request named, if any; logged shortened. */
  readonly sessionId: string | undefined;
  /** performance.now() when the request came in. */
  readonly startedAt: number;
  readonly span: { readonly traceId: string; readonly spanId: string } | undefined;
}

/** The access line and the counter, for the Hono middleware below and the fast path (fast-path/post-listener.ts). */
export class RequestRecorder {
  readonly #logger: Logger;
  readonly #metrics: ObserveRequestsOptions['metrics'];
  readonly #mcpRoutes: ReadonlySet<string>;
  readonly #known: ReadonlySet<string>;
  readonly legacy: ReadonlySet<string>;

  constructor({ logger, mcpPath, legacyPaths = [], endpointPaths = [], metrics, routes = ['/healthz', '/readyz', '/metrics'] }: ObserveRequestsOptions) {
    this.#logger = logger;
    this.#metrics = metrics;
    this.#mcpRoutes = new Set([mcpPath, ...legacyPaths, ...endpointPaths]);
    this.legacy = new Set(legacyPaths);
    this.#known = new Set([...this.#mcpRoutes, ...routes]);
  }

  record({ requestId, path, method: httpMethod, status, streamed, sessionId, startedAt, span }: ObservedRequest): void {
    const route = this.#known.has(path) ? path : path.startsWith(WELL_KNOWN_PREFIX) ? WELL_KNOWN_ROUTE : OTHER;
    const method = HTTP_METHODS.has(httpMethod) ? httpMethod : OTHER;
    this.#metrics?.countHttpRequest(route, method, status);
    const level = this.#accessLevel(route, method, status, streamed);
    if (!this.#logger.isLevelEnabled(level)) return;
    const session = isWellFormedSessionId(sessionId) ? sessionId.slice(0, SHORT_SESSION_CHARS) : undefined;
    this.#logger[level](
      {
        requestId,
        ...(span && { traceId: span.traceId, spanId: span.spanId }),
        ...(session !== undefined && { session }),
        method,
        path: path.length > MAX_LOGGED_PATH_CHARS ? `${path.slice(0, MAX_LOGGED_PATH_CHARS)}…` : path,
        status,
        // For a stream, the time to its first byte: the stream itself may stay open for hours.
        durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
        ...(streamed && { stream: true }),
      },
      'http request',
    );
  }

  /**
   * info for what an operator reads the access log for: refusals and errors, streams, DELETEs, the
   * well-known metadata. debug for what says nothing new: probes and scrapes, and a POST answered
   * 2xx with plain JSON, whose call has its audit line (a new session its "session initialized"
   * line) and is counted in the metrics. A second info line per tool call costs CPU on every call
   * (docs/decisions/0006-preformatted-audit-lines.md).
   */
  #accessLevel(route: string, method: string, status: number, streamed: boolean): 'info' | 'debug' {
    if (route === WELL_KNOWN_ROUTE) return 'info';
    if (!this.#mcpRoutes.has(route)) return 'debug';
    return method === 'POST' && status < 300 && !streamed ? 'debug' : 'info';
  }
}

export function observeRequests(recorder: RequestRecorder): MiddlewareHandler<AppEnv> {
  return async function observeRequestsMiddleware(c, next) {
    const startedAt = performance.now();
    const path = c.req.path;
    const sessionId = c.req.header('mcp-session-id') ?? (recorder.legacy.has(path) ? c.req.query('sessionId') : undefined);
    await next();
    recorder.record({
      requestId: c.get('requestId'),
      path,
      method: c.req.method,
      status: c.res.status,
      streamed: isStreamedAnswer(c),
      sessionId,
      startedAt,
      span: c.get('trace')?.span,
    });
  };
}
