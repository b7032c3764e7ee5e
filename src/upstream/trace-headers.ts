// The W3C Trace Context a request carries in `params._meta` (the gateway's upstream span with
// tracing on, or a client's passed through with it off), as HTTP headers of the POST that carries
// it: an HTTP upstream, or whatever traces HTTP in front of it, continues the same trace without
// reading the body. Read off the message itself, so no per-request option crosses the transport:
// an untraced request without `_meta` costs one property lookup.
import type { JsonObject } from './types.js';

/** The trace headers of a request's params; undefined when its `_meta` has no traceparent. */
export function traceHeadersOf(params: unknown): Record<string, string> | undefined {
  const meta = typeof params === 'object' && params !== null ? (params as JsonObject)._meta : undefined;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const { traceparent, tracestate } = meta as JsonObject;
  if (typeof traceparent !== 'string') return undefined;
  return typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
}
