// What each HTTP request leaves behind: one access log line (request id, short session id, method,
// path, status, duration, with tracing on its trace and span; never headers or the query string;
// its level below) and the switchboard_http_requests_total counter. Runs right after the request
// id middleware.
//
// The request id reaches the other lines about a request (audit, failures) explicitly, through the
// gateway's Caller, not through AsyncLocalStorage: on Node 20 that turns on a promise hook for
// every promise in the process, which cost ~10% of the gateway's CPU per call (measured with the
// bench's profile).
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

export function observeRequests({
  logger,
  mcpPath,
  legacyPaths = [],
  endpointPaths = [],
  metrics,
  routes = ['/healthz', '/readyz', '/metrics'],
}: ObserveRequestsOptions): MiddlewareHandler<AppEnv> {
  const mcpRoutes = new Set([mcpPath, ...legacyPaths, ...endpointPaths]);
  const legacy = new Set(legacyPaths);
  const known = new Set([...mcpRoutes, ...routes]);
  /**
   * info for what an operator reads the access log for: refusals and errors, streams, DELETEs, the
   * well-known metadata. debug for what says nothing new: probes and scrapes, and a POST answered
   * 2xx with plain JSON, whose call has its audit line (a new session its "session initialized"
   * line) and is counted in the metrics. Two info lines per tool call cost ~15% of the gateway's
   * CPU per call (`npm run bench -- --log-level warn` against the default).
   */
  const accessLevel = (route: string, method: string, status: number, streamed: boolean): 'info' | 'debug' => {
    if (route === WELL_KNOWN_ROUTE) return 'info';
    if (!mcpRoutes.has(route)) return 'debug';
    return method === 'POST' && status < 300 && !streamed ? 'debug' : 'info';
  };
  return async function observeRequestsMiddleware(c, next) {
    const started = performance.now();
    const requestId = c.get('requestId');
    const path = c.req.path;
    const sessionId = c.req.header('mcp-session-id') ?? (legacy.has(path) ? c.req.query('sessionId') : undefined);
    const session = isWellFormedSessionId(sessionId) ? sessionId.slice(0, SHORT_SESSION_CHARS) : undefined;
    await next();

    const route = known.has(path) ? path : path.startsWith(WELL_KNOWN_PREFIX) ? WELL_KNOWN_ROUTE : OTHER;
    const method = HTTP_METHODS.has(c.req.method) ? c.req.method : OTHER;
    const status = c.res.status;
    metrics?.countHttpRequest(route, method, status);
    const streamed = isStreamedAnswer(c);
    const level = accessLevel(route, method, status, streamed);
    if (!logger.isLevelEnabled(level)) return;
    const span = c.get('trace')?.span;
    logger[level](
      {
        requestId,
        ...(span && { traceId: span.traceId, spanId: span.spanId }),
        ...(session !== undefined && { session }),
        method,
        path: path.length > MAX_LOGGED_PATH_CHARS ? `${path.slice(0, MAX_LOGGED_PATH_CHARS)}…` : path,
        status,
        // For a stream, the time to its first byte: the stream itself may stay open for hours.
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...(streamed && { stream: true }),
      },
      'http request',
    );
  };
}
