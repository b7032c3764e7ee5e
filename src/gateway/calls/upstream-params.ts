// What a client's params become on their way to an upstream. The client's envelope (`_meta` keys
// under io.modelcontextprotocol/) describes the client and its era to the gateway, not to the
// upstream: it is dropped, and a 2026 upstream is told instead what this caller declared, never
// more (and of its `extensions`, only those the gateway passes on: protocol/extensions.ts). An MRTR retry's inputResponses and requestState are the gateway's business too (the state
// is sealed by the gateway); the upstream gets its own back only when it asked for input itself,
// and a 2026 upstream gets the answers a client volunteered without any state.
//
// With tracing on, the upstream request's span is the trace context the upstream continues: its
// `traceparent` and `tracestate` replace the client's (whose own span is this one's ancestor). With
// tracing off, a client's trace context passes through untouched like its other `_meta` keys: the
// gateway is then transparent to tracing, and the upstream still joins the client's trace.
import type { Caller } from '../caller.js';
import { copyWithout, setOwn } from '../../protocol/copy-with.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { withPassedExtensions } from '../../protocol/extensions.js';
import { META_TRACEPARENT, META_TRACESTATE } from '../../protocol/trace-meta.js';

const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';
/** The params that are the gateway's business, never passed on as the client sent them. */
const GATEWAY_PARAMS: ReadonlySet<string> = new Set(['_meta', 'inputResponses', 'requestState']);
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

/** What a 2026 upstream's own input_required asked for, answered: sent back on the retry. */
export interface UpstreamRetry {
  readonly inputResponses: JsonObject;
  /** The upstream's own requestState, unwrapped from the gateway's sealed one. */
  readonly requestState?: string;
}

export interface UpstreamParamsOptions {
  readonly caller: Caller;
  /** The upstream speaks 2026-07-28: it gets the caller's capabilities and log level per request. */
  readonly modernUpstream: boolean;
  /** The gateway maps progress itself: the client's token stays here. */
  readonly progressMapped: boolean;
  readonly retry?: UpstreamRetry;
  /** The upstream request's span: its context goes in `_meta`. Absent: tracing is off. */
  readonly span?: { readonly traceparent: string; readonly tracestate: string | undefined };
}

export function upstreamParams(params: JsonObject, { caller, modernUpstream, progressMapped, retry, span }: UpstreamParamsOptions): JsonObject {
  // The common case, a 2025 call without _meta to a 2025 upstream, untraced, allocates nothing.
  if (!modernUpstream && !retry && !span && params._meta === undefined && params.inputResponses === undefined && params.requestState === undefined) {
    return params;
  }
  const forwarded: JsonObject = copyWithout(params, GATEWAY_PARAMS) as JsonObject;
  const { _meta: clientMeta, inputResponses: clientResponses } = params;
  const meta: JsonObject = {};
  if (isJsonObject(clientMeta)) {
    for (const key of Object.keys(clientMeta)) {
      if (key.startsWith(RESERVED_META_PREFIX)) continue;
      if (key === 'progressToken' && progressMapped) continue;
      setOwn(meta, key, clientMeta[key]);
    }
  }
  if (span) {
    meta[META_TRACEPARENT] = span.traceparent;
    if (span.tracestate === undefined) delete meta[META_TRACESTATE];
    else meta[META_TRACESTATE] = span.tracestate;
  }
  if (modernUpstream) {
    meta[META_CLIENT_CAPABILITIES] = withPassedExtensions(caller.clientCapabilities);
    if (caller.logLevel !== undefined) meta[META_LOG_LEVEL] = caller.logLevel;
  }
  if (Object.keys(meta).length > 0) forwarded._meta = meta;
  if (retry) {
    forwarded.inputResponses = retry.inputResponses;
    if (retry.requestState !== undefined) forwarded.requestState = retry.requestState;
  } else if (modernUpstream && clientResponses !== undefined) {
    // Answers a client gives up front, without a state of ours: a stateless 2026 upstream may use them.
    forwarded.inputResponses = clientResponses;
  }
  return forwarded;
}
