// A span per HTTP request to an MCP path (request-trace.ts), mounted only when tracing is on: with
// it off, requests do not pass through here at all. The span is begun by the route, which knows
// the MCP message and the trace it continues, or here at the end for a request refused before it.
import type { MiddlewareHandler } from 'hono';
import type { Tracing } from '../../observe/tracing/tracing.js';
import type { AppEnv } from '../app-env.js';
import { HttpRequestTrace } from '../request-trace.js';

export function traceRequests(tracing: Tracing): MiddlewareHandler<AppEnv> {
  return async function traceRequestsMiddleware(c, next) {
    const trace = new HttpRequestTrace(tracing, {
      method: c.req.method,
      path: c.req.path,
      startTime: performance.now(),
      traceparent: c.req.header('traceparent'),
      tracestate: c.req.header('tracestate'),
    });
    c.set('trace', trace);
    try {
      await next();
    } finally {
      trace.responded(c.res.status);
    }
  };
}
