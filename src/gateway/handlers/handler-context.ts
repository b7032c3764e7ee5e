// What a method handler gets to work with: the caller (a 2025 session or a 2026 request), the merged view as of the request's start,
// routing, and one way to forward a request to an upstream (with cancellation and progress).
import type { CredentialUse } from '../isolation/caller-credentials.js';
import type { Principal } from '../../auth/principal.js';
import type { SessionPatch } from '../../session/store.js';
import type { StoreUnavailableError } from '../../session/store-unavailable.js';
import type { Caller } from '../caller.js';
import type { CatalogView } from '../catalogue/catalog-view.js';
import type { JsonObject } from '../../protocol/json.js';
import type { Routing } from '../calls/routing.js';
import type { SubscriptionCounter } from '../sessions/subscriptions.js';
import type { GatewayTasks } from '../tasks/gateway-tasks.js';

/** What a request was about, filled in by handlers for metrics and the audit trail. */
export interface RequestTrace {
  server?: string;
  name?: string;
  /** Set when policy refused the request, a server's limit did, or the tool is withheld (it is still answered as "unknown"). */
  denied?: boolean;
  /** Why a limit refused it (calls/server-limits.ts), or why a tool is withheld (`pin-mismatch`, `unpinned`); absent for policy. */
  reason?: string;
  /** What the request presented upstream: the config's credentials, or the caller's own (and how obtained). */
  credentials?: CredentialUse;
  /** The session store did not answer: the transport answers "retry" (Gateway.serve rethrows it). */
  storeUnavailable?: StoreUnavailableError;
  /**
   * A 2026 client was asked to open a URL through input_required: to connect its person's account
   * on `server` (`poll`: the retry waits for it), or for the upstream's own -32042.
   */
  urlElicited?: { readonly server: string; readonly poll: boolean };
}

export interface HandlerContext {
  readonly caller: Caller;
  readonly principal: Principal | undefined;
  readonly trace: RequestTrace;
  readonly view: CatalogView;
  readonly routing: Routing;
  readonly pageSize: number;
  readonly subscriptions: SubscriptionCounter;
  /** Tasks handed out by the gateway (tasks/gateway-tasks.ts); absent: the gateway has no task store. */
  readonly tasks: GatewayTasks | undefined;
  /** The request as it can be given up on (a relayed task request passes the client's cancellation on). */
  readonly inFlight: { readonly signal: AbortSignal };
  /**
   * Puts a request (elicitation, sampling, roots) to the caller's client on this request's stream,
   * as an upstream's own would go; absent for a 2026 caller, who has no stream to take one on.
   */
  readonly ask?: (request: { readonly method: string; readonly params?: JsonObject }) => Promise<JsonObject>;
  /** Tells the other replicas this session no longer subscribes to (server, uri). */
  releaseElsewhere(server: string, uri: string): Promise<void>;
  /**
   * Sends a request to one upstream on behalf of this client request. `calledAs`: the name the
   * client called the tool by, when it is not the upstream's own (a refusal names it).
   */
  forward(server: string, method: string, params: JsonObject, calledAs?: string): Promise<JsonObject>;
  /**
   * forward, for a call that outlives this client request (a gateway task, tasks/gateway-runs.ts):
   * the same path (server limits, per-user credentials, era), but given up on only when `signal`
   * aborts, not when the client's request or session ends, and with no progress to report.
   */
  forwardDetached(server: string, method: string, params: JsonObject, calledAs: string | undefined, signal: AbortSignal): Promise<JsonObject>;
  /** The gateway as one server: merged capabilities and instructions (server/discover). */
  describe(): { capabilities: JsonObject; instructions: string | undefined };
  /** Changes the caller's session; a caller without one gets method-not-found. */
  updateSession(patch: SessionPatch): Promise<void>;
}

export type MethodHandler = (params: JsonObject, context: HandlerContext) => Promise<JsonObject>;
