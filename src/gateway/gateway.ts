// The MCP brain: initialize, then one handler per method, each request answered with exactly one
// JSON-RPC response whatever happens upstream. Knows MCP; knows nothing of HTTP or Redis.
import type { Principal } from '../auth/principal.js';
import type { SessionRecord } from '../session/store.js';
import { isStoreUnavailable } from '../session/store-unavailable.js';
import { newSessionId } from '../session/session-id.js';
import type { ProgressUpdate, Upstream } from '../upstream/types.js';
import type { CatalogView } from './catalogue/catalog-view.js';
import { IsolatedServers } from './isolation/isolated-servers.js';
import { catalogueError, ERRORS } from '../protocol/error-catalogue.js';
import { RpcError, rpcError, rpcErrors, toRpcError } from './errors.js';
import { askToConnect, takesUrlInput } from './calls/ask-to-connect.js';
import { isUrlElicitationRequired, upstreamElicitationKey, urlElicitationsOf, urlInputRequests } from './calls/upstream-url-elicitations.js';
import { ConnectionRequiredError } from '../credentials/errors.js';
import type { HandlerContext, MethodHandler, RequestTrace } from './handlers/handler-context.js';
import { HANDLERS } from './handlers/index.js';
import { calledTool, SEARCH_MODE_HANDLERS } from './catalogue/tool-search.js';
import { startSession } from './sessions/session-start.js';
import { serveOptions, type GatewayOptions, type IncomingRequest, type InitializeOutcome, type ServeOptions, type Served } from './gateway-types.js';

export type { GatewayOptions, IncomingRequest, InitializeOutcome, ServeOptions, Served } from './gateway-types.js';
import { describeUpstreams, listsFreshForMs } from './description.js';
import { UpstreamForwarding } from './calls/forwarding.js';
import { forwardDetached, taskProgress } from './calls/detached-forwarding.js';
import type { JsonObject } from '../protocol/json.js';
import { UpstreamRpcError } from '../upstream/errors.js';
import {
  errorResponse,
  resultResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/json-rpc.js';
import { InFlightRegistry, type InFlightRequest } from './calls/in-flight.js';
import { sessionCaller, type Caller } from './caller.js';
import { DEFAULT_MAX_INPUT_ROUNDS } from './calls/input-rounds.js';
import { announceListChanges, policyRecipients } from './sessions/list-changed.js';
import { admitsLogMessage } from './sessions/log-levels.js';
import { AccessViews } from './catalogue/access.js';
import { EndpointViews } from './catalogue/endpoint-views.js';
import { combineObservers, type GatewayObserver } from './observer.js';
import { ONE_PAGE } from './catalogue/pagination.js';
import { progressTokenOf } from './calls/progress.js';
import { SessionViews } from './sessions/session-views.js';
import { SessionEnding } from './sessions/session-ending.js';
import { ClientNotifications } from './sessions/client-notifications.js';
import { Listens } from './modern/listens.js';
import { PrincipalSessions } from './isolation/principal-sessions.js';
import { NO_SERVERS, neededServers, type NeededServers } from './isolation/needed-servers.js';
import type { LeftOutServer } from './isolation/left-out-servers.js';
import { ServerRequestRelay } from './calls/server-requests.js';
import { SessionOutbox } from './sessions/session-outbox.js';
import { SubscriptionCounter } from './sessions/subscriptions.js';
import { noteWithheld } from './catalogue/tool-gate.js';
import { UpstreamLogLevels } from './sessions/upstream-log-levels.js';
import { UpstreamMessageRouter } from './sessions/upstream-messages.js';
import { endMethodSpan, startMethodSpan } from './method-span.js';
import type { GatewayTasks } from './tasks/gateway-tasks.js';
import { taskSide } from './tasks/task-side.js';
import { MCP_SESSION_ID } from '../observe/tracing/attributes.js';
import type { SpanParent, TraceSpan } from '../observe/tracing/tracing.js';


/** On an endpoint in search mode, tools/list and tools/call are search mode's own. */
const SEARCH_HANDLERS: Readonly<Record<string, MethodHandler>> = { ...HANDLERS, ...SEARCH_MODE_HANDLERS };


export class Gateway {
  readonly #subscriptions = new SubscriptionCounter();
  readonly #inFlight = new InFlightRegistry();
  readonly #observer: Required<GatewayObserver>;
  readonly #access: AccessViews;
  readonly #endpoints: EndpointViews;
  readonly #outbox: SessionOutbox;
  readonly #relay: ServerRequestRelay;
  readonly #logLevels: UpstreamLogLevels;
  readonly #detach: (() => void)[] = [];
  readonly #upstreamDetach = new Map<Upstream, () => void>();
  readonly #isolated: IsolatedServers | undefined;
  readonly #sessionViews: SessionViews;
  readonly #principalSessions: PrincipalSessions;
  readonly #forwarding: UpstreamForwarding;
  readonly #ending: SessionEnding;
  /** Sessions whose first request is being recorded: one store write each, however many requests come meanwhile. */
  readonly #markingUsed = new Set<string>();
  readonly #notifications: ClientNotifications;
  #router: UpstreamMessageRouter | undefined;
  readonly #tasks: GatewayTasks | undefined;
  #startupSettled = false;
  /** 2026 subscriptions/listen requests held open on this replica. */
  readonly listens: Listens;

  constructor(private readonly options: GatewayOptions) {
    this.#observer = combineObservers(options.observers ?? []);
    this.#access = new AccessViews(options.access);
    this.#endpoints = new EndpointViews(options.endpoints);
    this.#outbox = new SessionOutbox(options.events, options.store);
    this.#relay = new ServerRequestRelay(this.#inFlight, this.#outbox, options.bus, options.logger, (key, sessionId) => this.#rememberAsked(key, sessionId));
    this.#logLevels = new UpstreamLogLevels(options.logger);
    this.#isolated =
      options.isolation &&
      new IsolatedServers({
        ...options.isolation,
        store: options.store,
        bus: options.bus,
        outbox: this.#outbox,
        relay: this.#relay,
        logger: options.logger,
      });
    this.#sessionViews = new SessionViews(options.catalog, options.routing, this.#isolated);
    this.#principalSessions = new PrincipalSessions(options.store);
    this.#forwarding = new UpstreamForwarding({
      upstreams: options.upstreams,
      isolated: this.#isolated,
      relay: this.#relay,
      maxInputRounds: options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
      ...(options.serverLimits && { limits: options.serverLimits }),
    });
    this.#ending = new SessionEnding({
      inFlight: this.#inFlight,
      subscriptions: this.#subscriptions,
      sessionViews: this.#sessionViews,
      isolated: this.#isolated,
      upstreams: options.upstreams,
      store: options.store,
      events: options.events,
      bus: options.bus,
      logger: options.logger,
    });
    this.#notifications = new ClientNotifications({ inFlight: this.#inFlight, upstreams: options.upstreams, isolated: this.#isolated, bus: options.bus });
    this.#tasks =
      options.tasks &&
      taskSide({
        tasks: options.tasks,
        gatewayTasks: options.gatewayTasks,
        bus: options.bus,
        store: options.store,
        upstreams: options.upstreams,
        isolated: this.#isolated,
        outbox: this.#outbox,
        relay: this.#relay,
      });
    this.listens = new Listens({
      catalog: options.catalog,
      bus: options.bus,
      routing: options.routing,
      access: this.#access,
      endpoints: this.#endpoints,
      subscriptions: this.#subscriptions,
      upstreams: options.upstreams,
      observer: this.#observer,
      logger: options.logger,
    });
  }

  /** Starts listening to upstreams, the catalogue and the other replicas. */
  start(): void {
    const { upstreams, bus, catalog, logger, routing } = this.options;
    const router = new UpstreamMessageRouter({
      inFlight: this.#inFlight,
      outbox: this.#outbox,
      subscriptions: this.#subscriptions,
      relay: this.#relay,
      routing,
      observer: this.#observer,
      logger,
      listens: this.listens,
      ...(this.options.askedSessions && { askedSessions: this.options.askedSessions }),
      ...(this.#tasks && { tasks: this.#tasks }),
    });
    this.#router = router;
    this.listens.start();
    for (const upstream of upstreams.all) this.#attachUpstream(upstream);
    this.#isolated?.start();
    this.#detach.push(
      announceListChanges(catalog, bus, this.#outbox, policyRecipients(this.options.store, this.#access, this.#endpoints), this.#observer, logger, (kind, before, after) =>
        this.listens.announce(kind, before, after),
      ),
      this.#notifications.listen(),
      ...this.#ending.listen(),
      ...(this.#tasks ? [this.#tasks.start()] : []),
    );
  }

  /** Resolves once the session-isolated connections are closed (memory sessions: their upstream sessions ended). */
  async stop(): Promise<void> {
    for (const detach of this.#detach.splice(0)) detach();
    this.listens.stop();
    for (const detach of this.#upstreamDetach.values()) detach();
    this.#upstreamDetach.clear();
    this.#relay.stop();
    await this.#isolated?.stop();
  }

  /** A reload added or removed upstreams: listen to the new ones, forget the old ones. */
  upstreamsChanged({ added, removed }: { added: readonly Upstream[]; removed: readonly Upstream[] }): void {
    for (const upstream of removed) {
      this.#upstreamDetach.get(upstream)?.();
      this.#upstreamDetach.delete(upstream);
      this.#logLevels.forget(upstream.name);
    }
    for (const upstream of added) this.#attachUpstream(upstream);
  }

  #attachUpstream(upstream: Upstream): void {
    const router = this.#router;
    if (!router || this.#upstreamDetach.has(upstream)) return;
    const offMessages = router.attach(upstream);
    const offState = upstream.onStateChange(() => this.#logLevels.forget(upstream.name));
    this.#upstreamDetach.set(upstream, () => {
      offMessages();
      offState();
    });
  }

  /**
   * Whether a queued message may go to the session now: log messages are held to the level the
   * session asked for with logging/setLevel (read fresh, since any replica may have changed it).
   */
  async admits(sessionId: string, message: Record<string, unknown>): Promise<boolean> {
    if (message.method !== 'notifications/message') return true;
    const session = await this.options.store.get(sessionId);
    return session !== undefined && admitsLogMessage(message, session.logLevel);
  }

  /**
   * Starts a session. `sessionId` is for a transport that names the session before initialize
   * (2024-11-05 HTTP+SSE: the stream comes first); otherwise a fresh id is minted. `parentSpan`:
   * what its span goes under (tracing on).
   */
  async initialize(request: JsonRpcRequest, principal: Principal | undefined, sessionId?: string, endpoint?: string, parentSpan?: SpanParent): Promise<InitializeOutcome> {
    const started = performance.now();
    const span =
      parentSpan &&
      startMethodSpan(parentSpan, request, {
        era: 'legacy',
        protocolVersion: typeof request.params?.protocolVersion === 'string' ? request.params.protocolVersion : undefined,
        sessionId: undefined,
        endpoint,
      });
    const outcome = await this.#initialize(request, principal, sessionId ?? newSessionId(), endpoint);
    const error = 'error' in outcome.response ? outcome.response.error : undefined;
    if (span) {
      // The session exists from here on: its (short) id belongs to the span that made it.
      if (outcome.session) span.setAttributes({ [MCP_SESSION_ID]: outcome.session.id.slice(0, 8) });
      endMethodSpan(span, request, outcome.response, {}, error === undefined ? 'ok' : 'error');
    }
    this.#observer.onRequest({
      method: 'initialize',
      outcome: error === undefined ? 'ok' : 'error',
      durationMs: performance.now() - started,
      sessionId: outcome.session?.id ?? '',
      ...(principal && { principal }),
      ...(error && { errorCode: error.code }),
      ...(endpoint !== undefined && { endpoint }),
      ...(span && { traceId: span.traceId, spanId: span.spanId }),
    });
    return outcome;
  }

  async #settleStartup(): Promise<void> {
    await this.options.waitForUpstreams?.(this.options.startupWaitMs ?? 10_000);
    await this.options.catalog.settled();
    this.#startupSettled = true;
  }

  async #initialize(request: JsonRpcRequest, principal: Principal | undefined, sessionId: string, endpoint: string | undefined): Promise<InitializeOutcome> {
    return startSession(request, principal, sessionId, {
      settle: () => this.#settleStartup(),
      accessKey: this.#access.active ? (forPrincipal) => this.#access.keyFor(forPrincipal) ?? '' : undefined,
      store: this.options.store,
      principalCap: this.options.maxSessionsPerPrincipal,
      ended: (session) => this.#ending.ended(session),
      describe: () => this.describe(),
      logger: this.options.logger,
    }, endpoint);
  }

  /** What the gateway offers as one server: the upstreams' merged capabilities and instructions. */
  describe(): { capabilities: JsonObject; instructions: string | undefined } {
    return describeUpstreams(this.options.upstreams.all, this.#isolated?.hasAny() ?? false, this.#tasks?.runsGatewayTasks ?? false);
  }

  /** How long a client may take the merged lists as fresh (description.ts). */
  listsFreshForMs(): number {
    return listsFreshForMs(this.options.upstreams.all, this.#isolated?.hasAny() ?? false);
  }

  /** A tool as the principal sees it on an endpoint in the shared catalogue (undefined when unknown or denied). */
  toolFor(exposedName: string, principal: Principal | undefined, endpoint?: string): JsonObject | undefined {
    return this.#access.view(this.#endpoints.view(this.options.catalog.view, endpoint), principal).toolsByName.get(exposedName)?.item;
  }

  /** Whether what a principal sees depends on who they are (a policy is in force). */
  get viewsDependOnPrincipal(): boolean {
    return this.#access.active;
  }

  async handleRequest({ session, principal, request, related, requestId, parentSpan }: IncomingRequest): Promise<JsonRpcResponse> {
    if (session.used !== true) this.#markUsed(session);
    const { response } = await this.serve(sessionCaller(session, principal, requestId, parentSpan), request, serveOptions(related));
    return response;
  }

  /**
   * Serves one request of either era; the era's adapter shapes the answer (modern/adapter.ts). Rejects
   * only when the session store did not answer (StoreUnavailableError), after counting the request:
   * that is the transport's to answer ("retry"), not a JSON-RPC error of the request.
   */
  async serve(caller: Caller, request: JsonRpcRequest, options: ServeOptions = {}): Promise<Served> {
    const started = performance.now();
    const trace: RequestTrace = {};
    const span =
      caller.parentSpan &&
      startMethodSpan(caller.parentSpan, request, { era: caller.era, protocolVersion: caller.protocolVersion, sessionId: caller.session?.id, endpoint: caller.endpoint });
    const response = await this.#serve(caller, request, options, trace, span);
    const error = 'error' in response ? response.error : undefined;
    const outcome = error === undefined ? 'ok' : trace.denied ? 'denied' : 'error';
    if (span) endMethodSpan(span, request, response, trace, outcome);
    // One object with every field (absent ones undefined), not a spread per optional field: this
    // runs for every request.
    this.#observer.onRequest({
      method: request.method,
      era: caller.era,
      server: trace.server,
      name: trace.name,
      outcome,
      reason: trace.reason,
      durationMs: performance.now() - started,
      sessionId: caller.session?.id ?? '',
      requestId: caller.requestId,
      principal: caller.principal,
      errorCode: error?.code,
      endpoint: caller.endpoint,
      credentials: trace.credentials,
      traceId: span?.traceId,
      spanId: span?.spanId,
    });
    if (trace.storeUnavailable !== undefined) throw trace.storeUnavailable;
    return { response, trace };
  }

  async #serve(caller: Caller, request: JsonRpcRequest, options: ServeOptions, trace: RequestTrace, span: TraceSpan | undefined): Promise<JsonRpcResponse> {
    // The default endpoint (no name) never is in search mode: one comparison on its path.
    const searchMode = caller.endpoint !== undefined && this.options.searchEndpoints?.has(caller.endpoint) === true;
    const handlers = searchMode ? SEARCH_HANDLERS : HANDLERS;
    const handler = Object.hasOwn(handlers, request.method) ? handlers[request.method] : undefined;
    if (!handler) return errorResponse(request.id, rpcErrors.methodNotFound(request.method).toJson());

    // The first requests a replica serves wait for the upstreams' first connection and lists: a 2026
    // client has no initialize, and a 2025 session may have been initialized on another replica
    // while this one was starting (once settled, this costs nothing).
    if (!this.#startupSettled) await this.#settleStartup();
    const { related } = options;
    const inFlight = this.#inFlight.start(caller, request.id, related, options.input);
    const stopAbortOnSignal = options.cancel ? options.cancel.onCancel(() => inFlight.cancel('cancelled by the client')) : undefined;
    let view: CatalogView | undefined;
    let isolation: SessionRecord | undefined;
    try {
      if (isListMethod(request.method)) await this.options.catalog.settled();
      const progressToken = progressTokenOf(request.params);
      const onProgress =
        related && progressToken !== undefined
          ? (update: ProgressUpdate) =>
              related.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, ...update } })
          : undefined;
      // Only a 2026 request with session-isolated servers configured pays a lookup (a store read).
      isolation = caller.session ?? (this.#isolated?.hasAny() ? await this.#principalSessions.sessionFor(caller.principal) : undefined);
      // A session has a view of its own only for a request that needs session-isolated servers
      // (ping, or a call to a shared server, needs none); otherwise no await here.
      const needed = isolation && this.#isolated?.hasAny() ? this.#neededServers(this.#isolated, request, searchMode) : NO_SERVERS;
      view = isolation && (needed === 'all' || needed.length > 0) ? await this.#sessionViews.viewFor(isolation, caller.principal, needed, span) : this.options.catalog.view;
      const context = this.#context({ caller, isolation, trace, inFlight, onProgress, view, retry: options.retry, span });
      const result = await handler(request.params ?? {}, context);
      return resultResponse(request.id, result);
    } catch (thrown) {
      // The store's reads and writes come before anything is forwarded, so nothing was done: retry.
      // The response only feeds the metrics and audit (with the code the transport's 503 carries).
      if (isStoreUnavailable(thrown)) {
        trace.storeUnavailable = thrown;
        return errorResponse(request.id, catalogueError('SessionStoreUnavailable'));
      }
      let error = this.#explained(thrown, caller, request, isolation) ?? thrown;
      // An upstream's own -32042: a 2026 client is asked through input_required; a 2025 session's
      // elicitations are noted, for the upstream's completion notification to find it.
      if (error instanceof UpstreamRpcError && isUrlElicitationRequired(error.code)) {
        const asked = await this.#upstreamUrlElicitation(error, caller, request.method, trace);
        if (asked) return resultResponse(request.id, asked);
      }
      // No connection of the caller's own on the server (credentials.connection): ask them, in the
      // form their client takes (the reason may be the explanation of an item left out of their view).
      if (error instanceof ConnectionRequiredError) {
        const asked = askToConnect(error, caller, request.method);
        if (asked.kind === 'result') {
          if (asked.input) trace.urlElicited = { server: error.server, poll: true };
          return resultResponse(request.id, asked.result);
        }
        if (asked.elicitationId !== undefined && caller.session) await this.#rememberAsked(asked.elicitationId, caller.session.id);
        error = asked.error;
      }
      const rpcError = toRpcError(error);
      if (!(error instanceof RpcError)) this.#logFailure(caller, request, error, trace.server, span);
      const { catalog, routing } = this.options;
      // Only what the endpoint offers can be denied there; the rest of the catalogue does not exist for it.
      // A call_tool call in search mode is judged as the call of the tool it names.
      const params = request.params ?? {};
      const named = searchMode && request.method === 'tools/call' ? (calledTool(params) ?? params) : params;
      this.#access.noteDenial(error, this.#endpoints.view(catalog.view, caller.endpoint), routing, caller.principal, request.method, named, trace);
      if (!trace.denied) noteWithheld(error, view ?? catalog.view, { method: request.method, params: named }, trace);
      return errorResponse(request.id, rpcError.toJson());
    } finally {
      stopAbortOnSignal?.();
      this.#inFlight.finish(inFlight);
    }
  }

  /**
   * notifications/elicitation/complete for a person who has connected an account: to the 2025
   * session that was given that elicitation (and is still theirs), on whichever replica holds its
   * stream. Returns how many sessions were told (0 or 1).
   */
  async notifyElicitationComplete(sub: string, elicitationId: string): Promise<number> {
    const sessionId = await this.options.askedSessions?.sessionOf(elicitationId);
    if (sessionId === undefined) return 0;
    const [record] = await this.options.store.peekMany([sessionId]);
    if (record?.principal !== sub) return 0;
    return this.#outbox.toSessions([sessionId], { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId } });
  }

  /** An upstream's -32042: input_required for a 2026 client that takes URLs; else its elicitations noted with the session. */
  async #upstreamUrlElicitation(error: UpstreamRpcError, caller: Caller, method: string, trace: RequestTrace): Promise<JsonObject | undefined> {
    const elicitations = urlElicitationsOf(error.data);
    if (elicitations.length === 0) return undefined;
    if (takesUrlInput(caller, method)) {
      trace.urlElicited = { server: error.server, poll: false };
      return { resultType: 'input_required', inputRequests: urlInputRequests(elicitations) };
    }
    const { session } = caller;
    if (session) for (const { elicitationId } of elicitations) await this.#rememberAsked(upstreamElicitationKey(error.server, elicitationId), session.id);
    return undefined;
  }

  /** Which session got a URL elicitation; a store that fails only costs the notification. */
  async #rememberAsked(elicitationId: string, sessionId: string): Promise<void> {
    await this.options.askedSessions?.remember(elicitationId, sessionId).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'the session asked to connect an account was not recorded: it will not be told when the person has connected');
    });
  }

  handleNotification(session: SessionRecord, notification: JsonRpcNotification): Promise<void> {
    return this.#notifications.handle(session, notification);
  }

  /** A client's answer to a request the gateway relayed from an upstream. */
  async handleResponse(session: SessionRecord, response: JsonRpcResponse): Promise<void> {
    this.#relay.handleClientResponse(session.id, response);
  }

  /** Ends a session: its requests are cancelled, its subscriptions released, its record and events deleted. */
  closeSession(session: SessionRecord): Promise<void> {
    return this.#ending.close(session);
  }

  /** Told of every session that ends, on any replica (a DELETE, the principal's cap): its streams close. */
  onSessionEnded(listener: (sessionId: string) => void): () => void {
    return this.#ending.onEnded(listener);
  }

  /**
   * The session's first request since initialize: from now on the full idle timeout applies
   * (sessions.unusedIdleTimeoutSeconds until then). Not awaited: the request does not wait on it,
   * and one that fails is made again by the next request (the record still says unused).
   */
  #markUsed(session: SessionRecord): void {
    // Until the write lands, the record this replica holds still says unused: the requests that
    // come meanwhile (50 in flight on one session, say) must not each write it again.
    if (this.#markingUsed.has(session.id)) return;
    this.#markingUsed.add(session.id);
    this.options.store
      .update(session.id, { used: true })
      .catch((error: unknown) => {
        this.options.logger.debug({ session: session.id.slice(0, 8), err: error instanceof Error ? error.message : String(error) }, 'could not mark a session used');
      })
      .finally(() => this.#markingUsed.delete(session.id));
  }

  #context({
    caller,
    isolation,
    trace,
    inFlight,
    onProgress,
    view,
    retry,
    span,
  }: {
    caller: Caller;
    isolation: SessionRecord | undefined;
    trace: RequestTrace;
    inFlight: InFlightRequest;
    onProgress: ((update: ProgressUpdate) => void) | undefined;
    view: CatalogView;
    retry: ServeOptions['retry'];
    span: TraceSpan | undefined;
  }): HandlerContext {
    const { upstreams, routing, store } = this.options;
    const session = caller.session;
    return {
      caller,
      principal: caller.principal,
      trace,
      view: this.#access.view(this.#endpoints.view(view, caller.endpoint), caller.principal),
      routing,
      pageSize: this.options.pageSize?.() ?? ONE_PAGE,
      subscriptions: this.#subscriptions,
      tasks: this.#tasks,
      inFlight,
      ...(session && { ask: (request: { method: string; params?: JsonObject }) => this.#relay.relayTo({ session, related: inFlight.related }, { ...request, signal: inFlight.signal }) }),
      releaseElsewhere: (server, uri) => this.#ending.releaseElsewhere(caller.key, server, uri),
      forward: (server, method, params, calledAs) => this.#forwarding.forward({ caller, isolation, inFlight, onProgress, retry, trace, span }, server, method, params, calledAs),
      forwardDetached: (server, method, params, calledAs, signal) =>
        forwardDetached(
          { inFlight: this.#inFlight, forwarding: this.#forwarding, observer: this.#observer },
          { caller, isolation, trace, onProgress: taskProgress(this.#outbox, caller, params) },
          server,
          method,
          params,
          calledAs,
          signal,
        ),
      describe: () => this.describe(),
      updateSession: async (patch) => {
        if (!session) throw rpcErrors.methodNotFound('a session method');
        const updated = await store.update(session.id, patch);
        if (!updated) throw rpcError('SessionEnded');
        if (patch.logLevel !== undefined) this.#logLevels.request(upstreams.all, patch.logLevel);
      },
    };
  }

  /** Session-isolated servers that lists went without lately, and why (for /readyz and the status page). */
  leftOutServers(): Readonly<Record<string, LeftOutServer>> {
    return this.#isolated?.leftOut() ?? {};
  }

  /** The session-isolated servers whose lists the request needs (isolation/needed-servers.ts). */
  #neededServers(isolated: IsolatedServers, request: JsonRpcRequest, searchMode: boolean): NeededServers {
    const { routing } = this.options;
    const params = request.params ?? {};
    // A call_tool call in search mode needs what a direct call of the tool it names needs.
    const named = searchMode && request.method === 'tools/call' ? (calledTool(params) ?? params) : params;
    return neededServers(request.method, named, isolated.servers(), {
      separator: routing.separator,
      toolsOf: (server) => routing.servers.find((candidate) => candidate.name === server)?.tools,
      isSharedTool: (name) => this.options.catalog.view.toolsByName.has(name),
    }, searchMode);
  }

  /**
   * An unknown tool or prompt under the prefix of a server with per-user credentials whose lists
   * the caller could not have: the reason instead (isolation/isolated-servers.ts, explainUnlisted),
   * unless the endpoint or policy hides the item, which stays unknown.
   */
  #explained(error: unknown, caller: Caller, request: JsonRpcRequest, isolation: SessionRecord | undefined): Error | undefined {
    if (!isolation || !this.#isolated || !(error instanceof RpcError) || error.code !== ERRORS.InvalidParams.code) return undefined;
    const name = request.params?.name;
    if ((request.method !== 'tools/call' && request.method !== 'prompts/get') || typeof name !== 'string') return undefined;
    return this.#isolated.explainUnlisted(isolation.id, name, this.options.routing.separator, (server, item) =>
      this.#endpoints.selects(caller.endpoint, server, item) && this.#access.allows(caller.principal, server, item),
    );
  }

  #logFailure(caller: Caller, request: JsonRpcRequest, error: unknown, server: string | undefined, span: TraceSpan | undefined): void {
    const message = error instanceof Error ? error.message : String(error);
    this.options.logger.warn(
      { ...(caller.requestId !== undefined && { requestId: caller.requestId }), ...(span && { traceId: span.traceId, spanId: span.spanId }), ...(caller.session && { session: shortId(caller.session.id) }), era: caller.era, method: request.method, ...(server !== undefined && { server }), err: message },
      'request failed',
    );
  }
}


function isListMethod(method: string): boolean {
  return method.endsWith('/list') || method === 'resources/templates/list';
}

/** Enough of a session id to follow it through logs without handing the id itself out. */
export function shortId(sessionId: string): string {
  return sessionId.slice(0, 8);
}
