// How a handler's request reaches its upstream: the caller's params made fit for that upstream's
// era (upstream-params.ts), on the shared connection or the caller's own (isolation: session), and,
// when a 2026 upstream asks a 2025 session for input, the rounds that put its questions to the
// client (input-rounds.ts). What comes back is the upstream's result, for the handler to shape.
// With tracing on, each request sent upstream is a span of its own under the method's span
// (upstream-span.ts), whose context the upstream gets in `_meta`.
import type { SessionRecord } from '../../session/store.js';
import { UpstreamUnavailableError } from '../../upstream/errors.js';
import type { ProgressUpdate, Upstream, UpstreamRequestOptions } from '../../upstream/types.js';
import type { Caller } from '../caller.js';
import type { RequestTrace } from '../handlers/handler-context.js';
import type { InFlightRequest } from './in-flight.js';
import { completeInputRounds, isInputRequired } from './input-rounds.js';
import type { IsolatedServers } from '../isolation/isolated-servers.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import type { ServerRequestRelay } from './server-requests.js';
import { speaksModern } from './upstream-era.js';
import { upstreamParams, type UpstreamRetry } from './upstream-params.js';
import { ServerLimitError, type ServerLimit } from './server-limits.js';
import type { Release } from '../../limits/concurrency-gate.js';
import type { TraceSpan } from '../../observe/tracing/tracing.js';
import { endUpstreamSpan, failUpstreamSpan, startUpstreamSpan, type UpstreamSpanTarget } from './upstream-span.js';

export interface ForwardingOptions {
  readonly upstreams: { get(name: string): Upstream | undefined };
  readonly isolated: IsolatedServers | undefined;
  readonly relay: ServerRequestRelay;
  /** How many input_required rounds of a 2026 upstream are put to a 2025 client before giving up. */
  readonly maxInputRounds: number;
  /** limits.servers; absent: no server has limits. */
  readonly limits?: { of(server: string): ServerLimit | undefined };
}

/** The request being served, as forwarding needs it. */
export interface ForwardingRequest {
  readonly caller: Caller;
  /** Whose connections to session-isolated servers it uses (its session's, or for a 2026 request its principal's, isolation/principal-sessions.ts). */
  readonly isolation: SessionRecord | undefined;
  readonly inFlight: InFlightRequest;
  readonly onProgress: ((update: ProgressUpdate) => void) | undefined;
  /** A 2026 retry of an upstream's own input_required: what that upstream gets back. */
  readonly retry: { readonly server: string; readonly answers: UpstreamRetry } | undefined;
  readonly trace: RequestTrace;
  /** The method's span, under which each upstream request gets its own; absent: tracing is off. */
  readonly span: TraceSpan | undefined;
}

/** The params for one upstream, once its era (and, traced, the request's span) is known. */
type ShapeParams = (modernUpstream: boolean, span: TraceSpan | undefined) => JsonObject;

export class UpstreamForwarding {
  constructor(private readonly options: ForwardingOptions) {}

  async forward(request: ForwardingRequest, server: string, method: string, params: JsonObject, calledAs?: string): Promise<JsonObject> {
    const { caller, inFlight, retry, trace } = request;
    trace.server ??= server;
    // One map lookup for a server without limits (no await, no allocation); a limited one is
    // admitted or refused here, and holds its slot, if it has a cap, until the call is done
    // however it ends.
    const limit = this.options.limits?.of(server);
    const release = limit && (await this.#admit(limit, request, server, method, params, calledAs));
    try {
      // One lookup decides both where the request goes and what it presents there (the audit line's credentialMode).
      const isolatedServer = this.options.isolated?.find(server);
      trace.credentials ??= isolatedServer?.credentials?.source.mode ?? 'config';
      const sessionIsolated = isolatedServer !== undefined;
      const first = await this.#send(request, sessionIsolated, server, method, params, retry?.server === server ? retry.answers : undefined);
      // A 2026 caller gets a 2026 upstream's input_required as it is (its era adapter wraps the state);
      // a 2025 session is asked on its own streams, and the upstream retried with the answers.
      const session = caller.session;
      if (!session) return first;
      if (!isInputRequired(first)) return withoutUpstreamIdentity(first);
      const answered = await completeInputRounds(first, {
        server,
        maxRounds: this.options.maxInputRounds,
        ask: (input) => this.options.relay.relayTo({ session, related: inFlight.related }, { ...input, signal: inFlight.signal }),
        retry: (answers) => this.#send(request, sessionIsolated, server, method, params, answers),
      });
      return withoutUpstreamIdentity(answered);
    } finally {
      release?.();
    }
  }

  async #admit(limit: ServerLimit, request: ForwardingRequest, server: string, method: string, params: JsonObject, calledAs: string | undefined): Promise<Release | undefined> {
    try {
      return await limit.admit({
        method,
        params,
        calledAs,
        principal: request.caller.principal,
        cancellation: request.inFlight,
        continuesCall: request.retry?.server === server,
      });
    } catch (error) {
      // Marked for the audit line and the metrics: refused, and by which limit.
      if (error instanceof ServerLimitError) Object.assign(request.trace, { denied: true, reason: error.reason });
      throw error;
    }
  }

  /**
   * Sends one request to `server` for this caller: on the session's own connection for a
   * session-isolated server, else on the shared one (where messages and questions from the
   * upstream are attributed to the caller while the request waits). The params go out fit for the
   * upstream's era (upstream-params.ts), with `answers` on a retry of its own input_required;
   * `params` as the handler gave them name the span. A method and not a closure made per request:
   * this is every call.
   */
  async #send(request: ForwardingRequest, sessionIsolated: boolean, server: string, method: string, params: JsonObject, answers: UpstreamRetry | undefined): Promise<JsonObject> {
    const { inFlight, onProgress, span: parentSpan } = request;
    const isolated = this.options.isolated;
    if (sessionIsolated && isolated) {
      return this.#sendIsolated(isolated, request, server, method, params, (modern, span) => paramsFor(request, params, answers, modern, span));
    }
    const upstream = this.options.upstreams.get(server);
    if (!upstream) throw new UpstreamUnavailableError(server, 'it is not configured');
    const modern = speaksModern(upstream);
    // Without a spread: this is every request to a shared upstream.
    const options: UpstreamRequestOptions = onProgress ? { cancel: inFlight, onProgress } : { cancel: inFlight };
    inFlight.waitOn(server);
    try {
      if (!parentSpan) return await upstream.request(method, paramsFor(request, params, answers, modern, undefined), options);
      const info = upstream.info;
      const target = { server, modern, transport: info && (info.transport === 'stdio' ? ('stdio' as const) : ('http' as const)), protocolVersion: info?.protocolVersion };
      return await traced(parentSpan, method, params, target, (span) => upstream.request(method, paramsFor(request, params, answers, modern, span), options));
    } finally {
      inFlight.doneWith(server);
    }
  }

  #sendIsolated(isolated: IsolatedServers, request: ForwardingRequest, server: string, method: string, params: JsonObject, shape: ShapeParams): Promise<JsonObject> {
    const { caller, inFlight, onProgress, span: parentSpan } = request;
    const session = request.isolation;
    if (!session) return Promise.reject(new Error('a session-isolated server needs an isolation session'));
    const principal = caller.principal;
    const options = { signal: inFlight.signal, ...(onProgress && { onProgress }), ...(principal && { principal }), ...(inFlight.related && { related: inFlight.related }) };
    const modern = isolated.isModern(session, server);
    const send = (span: TraceSpan | undefined) => isolated.request(session, server, method, shape(modern, span), span ? { ...options, span } : options);
    if (!parentSpan) return send(undefined);
    return traced(parentSpan, method, params, { server, modern, transport: isolated.transportOf(server), protocolVersion: undefined }, send);
  }
}

/** The caller's params as one upstream gets them, once its era (and, traced, the request's span) is known. */
function paramsFor(request: ForwardingRequest, params: JsonObject, answers: UpstreamRetry | undefined, modernUpstream: boolean, span: TraceSpan | undefined): JsonObject {
  return upstreamParams(params, { caller: request.caller, modernUpstream, progressMapped: request.onProgress !== undefined, retry: answers, span });
}

/** One upstream request in a span of its own, whose context `send` hands the upstream. */
async function traced(
  parent: TraceSpan,
  method: string,
  params: JsonObject,
  target: UpstreamSpanTarget,
  send: (span: TraceSpan) => Promise<JsonObject>,
): Promise<JsonObject> {
  const span = startUpstreamSpan(parent, method, params, target);
  try {
    const result = await send(span);
    endUpstreamSpan(span, method, result);
    return result;
  } catch (error) {
    failUpstreamSpan(span, error);
    throw error;
  }
}

/**
 * A 2026 upstream names itself in every result's `_meta`; to a 2025 session the server is the
 * gateway (a 2026 caller's answer gets the gateway's name in its place, modern/shape.ts).
 */
function withoutUpstreamIdentity(result: JsonObject): JsonObject {
  const meta = result._meta;
  if (!isJsonObject(meta) || !(UPSTREAM_SERVER_INFO in meta)) return result;
  const { [UPSTREAM_SERVER_INFO]: _upstream, ...rest } = meta;
  return Object.keys(rest).length > 0 ? { ...result, _meta: rest } : omitMeta(result);
}
const UPSTREAM_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

function omitMeta(result: JsonObject): JsonObject {
  const { _meta: _dropped, ...rest } = result;
  return rest;
}

