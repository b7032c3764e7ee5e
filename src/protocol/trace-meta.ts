// Where a JSON-RPC message carries its client's W3C Trace Context: `params._meta.traceparent` and
// `.tracestate` (SEP-414; the 2026-07-28 spec reserves the keys, and the MCP semantic conventions
// ask every era's instrumentation to use them). Read only when tracing is on.
import { isJsonObject } from './json.js';

/** W3C Trace Context in `_meta` (SEP-414; unprefixed by exception, 2026-07-28 basic/index). */
export const META_TRACEPARENT = 'traceparent';
export const META_TRACESTATE = 'tracestate';

export interface MetaTraceContext {
  readonly traceparent: unknown;
  readonly tracestate: unknown;
}

/** The message's trace context, unchecked (the tracer validates it); undefined when `_meta` names none. */
export function metaTraceContext(params: unknown): MetaTraceContext | undefined {
  const meta = isJsonObject(params) ? params._meta : undefined;
  if (!isJsonObject(meta) || meta[META_TRACEPARENT] === undefined) return undefined;
  return { traceparent: meta[META_TRACEPARENT], tracestate: meta[META_TRACESTATE] };
}
