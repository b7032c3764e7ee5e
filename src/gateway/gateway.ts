// The MCP brain: initialize, then one handler per method, each request answered with exactly one
// JSON-RPC response whatever happens upstream. Knows MCP; knows nothing of HTTP or Redis.
import type { Logger } from '../observe/logger.js';
import type { SessionRecord, SessionStore } from '../session/store.js';
import { newSessionId } from '../session/session-id.js';
import type { Upstream } from '../upstream/types.js';
import { UpstreamUnavailableError } from '../upstream/errors.js';
import { GATEWAY_IMPLEMENTATION } from '../version.js';
import type { Catalog } from './catalog.js';
import { RpcError, rpcErrors, toRpcError } from './errors.js';
import type { HandlerContext, MethodHandler } from './handler-context.js';
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
import { DEFAULT_PAGE_SIZE } from './pagination.js';
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

  constructor(private readonly options: GatewayOptions) {
    this.#pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  }

  async initialize(request: JsonRpcRequest, principal: string | undefined): Promise<InitializeOutcome> {
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
      ...(principal !== undefined && { principal }),
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

  async handleRequest(session: SessionRecord, request: JsonRpcRequest): Promise<JsonRpcResponse> {
    const handler = Object.hasOwn(HANDLERS, request.method) ? HANDLERS[request.method] : undefined;
    if (!handler) return errorResponse(request.id, rpcErrors.methodNotFound(request.method).toJson());
    if (request.method === 'initialize') return errorResponse(request.id, rpcErrors.invalidParams('the session is already initialized').toJson());

    const inFlightKey = `${session.id}\u0000${typeof request.id}:${request.id}`;
    const abort = new AbortController();
    this.#inFlight.set(inFlightKey, abort);
    try {
      if (isListMethod(request.method)) await this.options.catalog.settled();
      const result = await handler(request.params ?? {}, this.#context(session, abort.signal));
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

  #context(session: SessionRecord, signal: AbortSignal): HandlerContext {
    const { upstreams, routing, store } = this.options;
    return {
      session,
      view: this.options.catalog.view,
      routing,
      pageSize: this.#pageSize,
      subscriptions: this.#subscriptions,
      forward: async (server, method, params) => {
        const upstream = upstreams.get(server);
        if (!upstream) throw new UpstreamUnavailableError(server, 'it is not configured');
        return upstream.request(method, params, { signal });
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

function isListMethod(method: string): boolean {
  return method.endsWith('/list') || method === 'resources/templates/list';
}

/** Enough of a session id to follow it through logs without handing the id itself out. */
export function shortId(sessionId: string): string {
  return sessionId.slice(0, 8);
}
