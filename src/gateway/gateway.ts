// The MCP brain: initialize, then one handler per method, each request answered with exactly one
// JSON-RPC response whatever happens upstream. Knows MCP; knows nothing of HTTP or Redis.
import type { Principal } from '../auth/principal.js';
import type { Logger } from '../observe/logger.js';
import type { SessionRecord, SessionStore } from '../session/store.js';
import { newSessionId } from '../session/session-id.js';
import type { ProgressUpdate, Upstream } from '../upstream/types.js';
import { UpstreamUnavailableError } from '../upstream/errors.js';
import { GATEWAY_IMPLEMENTATION } from '../version.js';
import type { Catalog } from './catalog.js';
import { RpcError, rpcErrors, toRpcError } from './errors.js';
import type { HandlerContext, MethodHandler, RequestTrace } from './handler-context.js';
import { callTool, getPrompt } from './handlers/calls.js';
import { listPrompts, listResources, listResourceTemplates, listTools } from './handlers/lists.js';
import { complete, ping, setLogLevel } from './handlers/misc.js';
import { readResource, subscribeResource, unsubscribeResource } from './handlers/resources.js';
import { mergeCapabilities, mergeInstructions, negotiateProtocolVersion } from './initialize.js';
import { isJsonObject, type JsonObject } from './json.js';
import {
  errorResponse,
  resultResponse,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './json-rpc.js';
import { combineObservers, type GatewayObserver } from './observer.js';
import { DEFAULT_PAGE_SIZE } from './pagination.js';
import type { RelatedChannel } from './related-channel.js';
import type { Routing } from './routing.js';
import { SubscriptionCounter } from './subscriptions.js';

const HANDLERS: Readonly<Record<string, MethodHandler>> = {
  ping,
  'tools/list': listTools,
  'tools/call': callTool,
  'prompts/list': listPrompts,
  'prompts/get': getPrompt,
  'resources/list': listResources,
  'resources/templates/list': listResourceTemplates,
  'resources/read': readResource,
  'resources/subscribe': subscribeResource,
  'resources/unsubscribe': unsubscribeResource,
  'completion/complete': complete,
  'logging/setLevel': setLogLevel,
};

export interface GatewayOptions {
  readonly catalog: Catalog;
  readonly upstreams: { get(name: string): Upstream | undefined; readonly all: readonly Upstream[] };
  readonly routing: Routing;
  readonly store: SessionStore;
  readonly logger: Logger;
  readonly pageSize?: number;
  /** How long initialize waits for upstreams still on their first connection attempt. */
  readonly startupWaitMs?: number;
  readonly waitForUpstreams?: (maxWaitMs: number) => Promise<void>;
  readonly observers?: readonly GatewayObserver[];
}

export interface IncomingRequest {
  readonly session: SessionRecord;
  readonly principal?: Principal;
  readonly request: JsonRpcRequest;
  /** Where messages that belong to this request go; without one, none are asked for. */
  readonly related?: RelatedChannel;
}

export interface InitializeOutcome {
  readonly response: JsonRpcResponse;
  /** Set when initialize succeeded: the new session, already stored. */
  readonly session?: SessionRecord;
}

export class Gateway {
  readonly #subscriptions = new SubscriptionCounter();
  /** In-flight upstream requests by session and client request id, for notifications/cancelled. */
  readonly #inFlight = new Map<string, AbortController>();
  readonly #pageSize: number;
  readonly #observer: Required<GatewayObserver>;

  constructor(private readonly options: GatewayOptions) {
    this.#pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.#observer = combineObservers(options.observers ?? []);
  }

  async initialize(request: JsonRpcRequest, principal: Principal | undefined): Promise<InitializeOutcome> {
    const params = request.params ?? {};
    const clientInfo = params.clientInfo;
    if (!isJsonObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
      return { response: errorResponse(request.id, rpcErrors.invalidParams('"clientInfo" needs a name and a version').toJson()) };
    }
    if (params.capabilities !== undefined && !isJsonObject(params.capabilities)) {
      return { response: errorResponse(request.id, rpcErrors.invalidParams('"capabilities" must be an object').toJson()) };
    }
    await this.options.waitForUpstreams?.(this.options.startupWaitMs ?? 10_000);
    await this.options.catalog.settled();

    const protocolVersion = negotiateProtocolVersion(params.protocolVersion);
    const session: SessionRecord = {
      id: newSessionId(),
      ...(principal !== undefined && { principal: principal.sub }),
      protocolVersion,
      clientInfo: clientInfo as SessionRecord['clientInfo'],
      clientCapabilities: (params.capabilities as JsonObject | undefined) ?? {},
      subscriptions: [],
      upstreamSessions: {},
      createdAt: Date.now(),
    };
    await this.options.store.create(session);

    const announcements = this.options.upstreams.all
      .filter((upstream) => upstream.state === 'ready' && upstream.info)
      .map((upstream) => ({
        server: upstream.name,
        capabilities: upstream.info?.capabilities ?? {},
        instructions: upstream.info?.instructions,
      }));
    const instructions = mergeInstructions(announcements);
    const result: JsonObject = {
      protocolVersion,
      capabilities: mergeCapabilities(announcements),
      serverInfo: { ...GATEWAY_IMPLEMENTATION, title: 'Switchboard MCP gateway' },
      ...(instructions !== undefined && { instructions }),
    };
    this.options.logger.info({ session: shortId(session.id), client: clientInfo.name, protocolVersion }, 'session initialized');
    return { response: resultResponse(request.id, result), session };
  }

  async handleRequest({ session, principal, request, related }: IncomingRequest): Promise<JsonRpcResponse> {
    const started = performance.now();
    const trace: RequestTrace = {};
    const response = await this.#serve(session, principal, request, related, trace);
    const error = 'error' in response ? response.error : undefined;
    this.#observer.onRequest({
      method: request.method,
      ...(trace.server !== undefined && { server: trace.server }),
      ...(trace.name !== undefined && { name: trace.name }),
      outcome: error === undefined ? 'ok' : trace.denied ? 'denied' : 'error',
      durationMs: performance.now() - started,
      sessionId: session.id,
      ...(principal && { principal }),
      ...(error && { errorCode: error.code }),
    });
    return response;
  }

  async #serve(
    session: SessionRecord,
    principal: Principal | undefined,
    request: JsonRpcRequest,
    related: RelatedChannel | undefined,
    trace: RequestTrace,
  ): Promise<JsonRpcResponse> {
    const handler = Object.hasOwn(HANDLERS, request.method) ? HANDLERS[request.method] : undefined;
    if (!handler) return errorResponse(request.id, rpcErrors.methodNotFound(request.method).toJson());

    const inFlightKey = `${session.id}\u0000${typeof request.id}:${request.id}`;
    const abort = new AbortController();
    this.#inFlight.set(inFlightKey, abort);
    try {
      if (isListMethod(request.method)) await this.options.catalog.settled();
      const progressToken = progressTokenOf(request.params);
      const onProgress =
        related && progressToken !== undefined
          ? (update: ProgressUpdate) =>
              related.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, ...update } })
          : undefined;
      const context = this.#context({ session, principal, trace, signal: abort.signal, onProgress });
      const result = await handler(request.params ?? {}, context);
      return resultResponse(request.id, result);
    } catch (error) {
      const rpcError = toRpcError(error);
      if (!(error instanceof RpcError)) this.#logFailure(session, request, error);
      return errorResponse(request.id, rpcError.toJson());
    } finally {
      this.#inFlight.delete(inFlightKey);
    }
  }

  async handleNotification(session: SessionRecord, notification: JsonRpcNotification): Promise<void> {
    if (notification.method === 'notifications/cancelled') {
      const requestId = notification.params?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.#cancel(session.id, requestId);
    }
    // notifications/initialized and anything else a client may send need no action here.
  }

  /** Ends a session: its subscriptions are released and the record deleted. */
  async closeSession(session: SessionRecord): Promise<void> {
    for (const [key, abort] of this.#inFlight) if (key.startsWith(`${session.id}\u0000`)) abort.abort();
    for (const { server, uri } of this.#subscriptions.releaseAll(session.id)) {
      void this.options.upstreams
        .get(server)
        ?.request('resources/unsubscribe', { uri })
        .catch(() => {});
    }
    await this.options.store.delete(session.id);
  }

  #cancel(sessionId: string, requestId: JsonRpcId): void {
    this.#inFlight.get(`${sessionId}\u0000${typeof requestId}:${requestId}`)?.abort();
  }

  #context({
    session,
    principal,
    trace,
    signal,
    onProgress,
  }: {
    session: SessionRecord;
    principal: Principal | undefined;
    trace: RequestTrace;
    signal: AbortSignal;
    onProgress: ((update: ProgressUpdate) => void) | undefined;
  }): HandlerContext {
    const { upstreams, routing, store } = this.options;
    return {
      session,
      principal,
      trace,
      view: this.options.catalog.view,
      routing,
      pageSize: this.#pageSize,
      subscriptions: this.#subscriptions,
      forward: async (server, method, params) => {
        trace.server ??= server;
        const upstream = upstreams.get(server);
        if (!upstream) throw new UpstreamUnavailableError(server, 'it is not configured');
        return upstream.request(method, stripProgressToken(params, onProgress !== undefined), {
          signal,
          ...(onProgress && { onProgress }),
        });
      },
      updateSession: async (patch) => {
        const updated = await store.update(session.id, patch);
        if (!updated) throw new RpcError(-32600, 'the session has ended');
      },
    };
  }

  #logFailure(session: SessionRecord, request: JsonRpcRequest, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.options.logger.warn({ session: shortId(session.id), method: request.method, err: message }, 'request failed');
  }
}

/** The client's progress token, if it asked for progress. */
function progressTokenOf(params: JsonObject | undefined): string | number | undefined {
  const meta = params?._meta;
  if (!isJsonObject(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/**
 * The client's progress token must not reach the upstream as is: the upstream client mints its
 * own token per request (the upstream connection is shared), and the gateway maps it back.
 */
function stripProgressToken(params: JsonObject, mapped: boolean): JsonObject {
  if (!mapped || !isJsonObject(params._meta) || !('progressToken' in params._meta)) return params;
  const { progressToken: _clientToken, ...meta } = params._meta;
  return { ...params, _meta: meta };
}

function isListMethod(method: string): boolean {
  return method.endsWith('/list') || method === 'resources/templates/list';
}

/** Enough of a session id to follow it through logs without handing the id itself out. */
export function shortId(sessionId: string): string {
  return sessionId.slice(0, 8);
}
