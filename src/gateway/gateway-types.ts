// The Gateway's faces: what it is built from, and what a request to it brings and gets back.
import type { GatewayTaskLimits } from './tasks/gateway-runs.js';
import type { Principal } from '../auth/principal.js';
import type { Logger } from '../observe/logger.js';
import type { SpanParent } from '../observe/tracing/tracing.js';
import type { Cancellation } from '../protocol/cancellation.js';
import type { Bus } from '../session/bus.js';
import type { SessionEvents } from '../session/events.js';
import type { KeyValueStore } from '../session/key-value.js';
import type { SessionRecord, SessionStore } from '../session/store.js';
import type { Upstream } from '../upstream/types.js';
import type { AccessPolicy } from './catalogue/access.js';
import type { ItemFilter } from './catalogue/filter-view.js';
import type { Catalog } from './catalogue/catalog.js';
import type { RequestTrace } from './handlers/handler-context.js';
import type { InputChannel } from './calls/in-flight.js';
import type { IsolationOptions } from './isolation/isolated-servers.js';
import type { JsonRpcRequest, JsonRpcResponse } from '../protocol/json-rpc.js';
import type { GatewayObserver } from './observer.js';
import type { RelatedChannel } from './calls/related-channel.js';
import type { Routing } from './calls/routing.js';
import type { ServerLimit } from './calls/server-limits.js';
import type { UpstreamRetry } from './calls/upstream-params.js';

export interface GatewayOptions {
  readonly catalog: Catalog;
  readonly upstreams: { get(name: string): Upstream | undefined; readonly all: readonly Upstream[] };
  readonly routing: Routing;
  readonly store: SessionStore;
  /** At most this many live 2025 sessions per principal (config sessions.maxPerPrincipal); absent: no cap. */
  readonly maxSessionsPerPrincipal?: number;
  readonly logger: Logger;
  /**
   * Items in a page of tools/list, prompts/list, resources/list and resources/templates/list
   * (config `lists.pageSize`), read on every list request so that a reload changes it; absent or
   * undefined: the whole list in one page.
   */
  readonly pageSize?: () => number | undefined;
  /** How long initialize waits for upstreams still on their first connection attempt. */
  readonly startupWaitMs?: number;
  readonly waitForUpstreams?: (maxWaitMs: number) => Promise<void>;
  readonly observers?: readonly GatewayObserver[];
  /** Policy: what each principal may see and call (absent: everything). */
  readonly access?: AccessPolicy;
  /** The configured endpoints besides the default one, by name: what each selects (config `endpoints`). */
  readonly endpoints?: ReadonlyMap<string, ItemFilter>;
  /** The endpoints among those in `discovery: search` mode (catalogue/tool-search.ts). */
  readonly searchEndpoints?: ReadonlySet<string>;
  /** Where messages for sessions wait for their streams (any replica's). */
  readonly events: SessionEvents;
  /** Carries cancellations and client answers between replicas. */
  readonly bus: Bus;
  /** Servers with `isolation: session`: which, and how to start one for a session. */
  readonly isolation?: IsolationOptions;
  /** How many input_required rounds of a 2026 upstream are put to a 2025 client before giving up. */
  readonly maxInputRounds?: number;
  /** Where the task ids the gateway hands out are mapped to upstream tasks (every replica's); absent: no tasks. */
  readonly tasks?: KeyValueStore;
  /** Gateway tasks for upstreams without tasks (tasks/gateway-runs.ts) and their bounds; absent: off. */
  readonly gatewayTasks?: GatewayTaskLimits;
  /** limits.servers, looked up by server name on every forwarded request (calls/server-limits.ts). */
  readonly serverLimits?: { of(server: string): ServerLimit | undefined };
  /** Which 2025 session each URL elicitation of credentials.connection went to (notifyElicitationComplete). */
  readonly askedSessions?: AskedSessions;
}

/**
 * Which session a URL elicitation (a connect link) was given to: its completion notification goes
 * to that session alone (2025-11-25: only to the client that initiated it), on any replica.
 */
export interface AskedSessions {
  remember(elicitationId: string, sessionId: string): Promise<void>;
  sessionOf(elicitationId: string): Promise<string | undefined>;
}

/** How one request is served, beyond the caller and the message. */
export interface ServeOptions {
  /** Where messages that belong to this request go; without one, none are asked for. */
  readonly related?: RelatedChannel;
  /** How the upstreams' questions reach a caller without a session (a 2026 request). */
  readonly input?: InputChannel;
  /** A 2026 retry of an upstream's own input_required: what that upstream gets back. */
  readonly retry?: { readonly server: string; readonly answers: UpstreamRetry };
  /** Fires when the client gives up on the request (a 2026 client closes its stream). */
  readonly cancel?: Cancellation;
}

/**
 * ServeOptions made in one place, so that they have one hidden class whichever era made them:
 * Gateway.serve reads them on every request, and in a gateway serving both eras options of two or
 * three shapes made that code polymorphic (as callers of two shapes did; caller.ts).
 */
export function serveOptions(
  related: RelatedChannel | undefined,
  input?: InputChannel,
  cancel?: Cancellation,
  retry?: ServeOptions['retry'],
): ServeOptions {
  return { related, input, retry, cancel };
}

export interface Served {
  readonly response: JsonRpcResponse;
  readonly trace: RequestTrace;
}

export interface IncomingRequest {
  readonly session: SessionRecord;
  readonly principal?: Principal;
  readonly request: JsonRpcRequest;
  /** Where messages that belong to this request go; without one, none are asked for. */
  readonly related?: RelatedChannel;
  /** The transport's id of the request, for the lines logged about it. */
  readonly requestId?: string;
  /** What the request's spans go under; absent: tracing is off (Caller.parentSpan). */
  readonly parentSpan?: SpanParent;
}

export interface InitializeOutcome {
  readonly response: JsonRpcResponse;
  /** Set when initialize succeeded: the new session, already stored. */
  readonly session?: SessionRecord;
}
