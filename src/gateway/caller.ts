// Who a request comes from, whichever era it arrived in. A 2025 request brings its session (the
// capabilities and log level it declared at initialize and setLevel); a 2026 request brings the same
// facts in its own `_meta` envelope and has no session. Handlers, policy and upstream routing read
// the caller and never ask which era it is, except where the protocols truly differ (subscriptions
// and log levels belong to a 2025 session; a 2026 caller is asked for input with `input_required`).
import type { Principal } from '../auth/principal.js';
import type { SpanParent } from '../observe/tracing/tracing.js';
import type { SessionRecord } from '../session/store.js';

export type Era = 'legacy' | 'modern';

export interface Caller {
  readonly era: Era;
  readonly principal: Principal | undefined;
  readonly protocolVersion: string;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** The minimum level of log messages the caller wants; absent: the 2025 default, or none for 2026. */
  readonly logLevel?: string;
  /** The 2025 session the request belongs to; absent for a 2026 (stateless) request. */
  readonly session?: SessionRecord;
  /**
   * What in-flight requests are grouped by for cancellation and attribution: the session id, or for
   * a 2026 request one key of its own (it shares nothing with any other request).
   */
  readonly key: string;
  /** The transport's id of the request (X-Request-Id), for the lines logged about it. */
  readonly requestId?: string;
  /** The configured endpoint the request came in on; absent: the default one (server.path). */
  readonly endpoint?: string;
  /**
   * What the request's spans go under (its HTTP request's span, or the client's own context);
   * absent: tracing is off. Carried like the request id, never found through an ambient context.
   */
  readonly parentSpan?: SpanParent;
}

export function sessionCaller(session: SessionRecord, principal: Principal | undefined, requestId?: string, parentSpan?: SpanParent): Caller {
  // One literal of fixed shape (no conditional spreads): it is made for every 2025 request. A 2026
  // caller (modern/envelope.ts) has the same keys in the same order, so both share one hidden class
  // (test/unit/caller-shape.test.ts).
  return {
    era: 'legacy',
    principal,
    protocolVersion: session.protocolVersion,
    clientCapabilities: session.clientCapabilities,
    logLevel: session.logLevel,
    session,
    key: session.id,
    requestId,
    endpoint: session.endpoint,
    parentSpan,
  };
}
