// Requests an upstream sends to its client (sampling, elicitation, roots/list) are relayed to the
// one client session they belong to, under an id the gateway mints, and the answer, POSTed to any
// replica, is carried back. When the session cannot be known, or its client cannot do what is
// asked, the upstream gets an error: never a guess.
import type { Logger } from '../../observe/logger.js';
import type { Bus } from '../../session/bus.js';
import { TransientMap } from '../../support/transient-map.js';
import type { UpstreamServerRequest } from '../../upstream/types.js';
import { RpcError, rpcError } from '../errors.js';
import type { InFlightRegistry } from './in-flight.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import type { JsonRpcResponse } from '../../protocol/json-rpc.js';
import type { RelatedChannel } from './related-channel.js';
import type { SessionOutbox } from '../sessions/session-outbox.js';
import type { SessionRecord } from '../../session/store.js';
import { upstreamElicitationKey, urlElicitationIdOf } from './upstream-url-elicitations.js';

/** The client capability each relayed method needs. */
const REQUIRED_CAPABILITY: Readonly<Record<string, string>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** The capability a client must have declared for `method`, when it has not; else undefined. */
export function missingCapability(method: string, capabilities: Readonly<Record<string, unknown>>): string | undefined {
  const capability = REQUIRED_CAPABILITY[method];
  return capability !== undefined && capabilities[capability] === undefined ? capability : undefined;
}

/** Whether the client declared URL-mode elicitation (2025-11-25: none is sent in a mode it did not declare). */
export function declaresUrlElicitation(capabilities: Readonly<Record<string, unknown>>): boolean {
  const elicitation = capabilities.elicitation;
  return isJsonObject(elicitation) && elicitation.url !== undefined;
}

const CLIENT_RESPONSE_TOPIC = 'client-response';
const ID_PREFIX = 'sb';

interface Pending {
  readonly sessionId: string;
  resolve(result: JsonObject): void;
  reject(error: Error): void;
}

/** The `_meta` key that ties a message to its task (MCP 2025-11-25 tasks). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** The 2025 session whose task an upstream's task is, and the gateway's id for it (gateway/tasks/). */
export type TaskOwner = (server: string, upstreamTaskId: string) => Promise<{ session: SessionRecord; taskId: string } | undefined>;

export class ServerRequestRelay {
  /** Set by the gateway when it hands out tasks: routes a request that names its task to that task's session. */
  taskOwner: TaskOwner | undefined;
  /**
   * Set by the gateway when it hands out tasks: holds a request that names a task of a 2026 client
   * (no session to ask) until the client answers it through tasks/update (tasks/task-inbox.ts);
   * the answer, or undefined at once when the task is no such task.
   */
  taskInbox: ((server: string, upstreamTaskId: string, request: UpstreamServerRequest) => Promise<JsonObject | undefined>) | undefined;

  /** Each relayed request's callbacks, until its answer (support/transient-map.ts: not a Map). */
  readonly #pending = new TransientMap<string, Pending>();
  #counter = 0;
  readonly #unsubscribe: () => void;

  constructor(
    private readonly inFlight: InFlightRegistry,
    private readonly outbox: SessionOutbox,
    private readonly bus: Bus,
    private readonly logger: Logger,
    /** Notes which session an upstream's URL elicitation went to (upstream-url-elicitations.ts). */
    private readonly noteAsked?: (key: string, sessionId: string) => Promise<void>,
  ) {
    this.#unsubscribe = bus.on(CLIENT_RESPONSE_TOPIC, (payload) => {
      const response = payload.response;
      if (typeof payload.sessionId === 'string' && isJsonObject(response)) {
        this.#settle(payload.sessionId, response as unknown as JsonRpcResponse);
      }
    });
  }

  stop(): void {
    this.#unsubscribe();
    for (const pending of this.#pending.values()) pending.reject(rpcError('ShuttingDown'));
    this.#pending.clear();
  }

  /** A request from a shared connection: relayed to the one session it can belong to. */
  async relay(server: string, request: UpstreamServerRequest): Promise<JsonObject> {
    const upstreamTaskId = this.taskOwner && relatedTaskOf(request);
    if (upstreamTaskId !== undefined) {
      const forTask = await this.#relayForTask(server, upstreamTaskId, request);
      if (forTask) return forTask;
      const held = await this.taskInbox?.(server, upstreamTaskId, request);
      if (held) return held;
    }
    const attribution = this.inFlight.attribute(server);
    if (attribution.kind !== 'caller') {
      // With nothing in flight this is routine (servers ask for roots as they start); with several
      // sessions in flight it is a configuration worth knowing about (isolation: session).
      const level = attribution.kind === 'none' ? 'debug' : 'warn';
      this.logger[level]({ server, method: request.method, attribution: attribution.kind }, 'server-to-client request refused: no single client session to relay it to');
      throw rpcError(
        'NoClientToAsk',
        request.method,
        attribution.kind === 'none'
          ? 'no client request of this connection is in flight, so there is no client to ask'
          : 'requests of several client sessions are in flight on this shared connection, so it cannot tell which client to ask (use isolation: session)',
      );
    }
    const { request: inFlight, related } = attribution;
    // A 2026 caller has no stream to take requests on: its request answers input_required instead.
    if (inFlight.input) return inFlight.input(request);
    const session = inFlight.caller.session;
    if (!session) throw rpcError('ClientCannotBeAsked', request.method);
    const elicitationId = urlElicitationIdOf(request.method, request.params);
    if (elicitationId !== undefined) await this.noteAsked?.(upstreamElicitationKey(server, elicitationId), session.id);
    return this.relayTo({ session, related }, request);
  }

  /**
   * A request that names its task (an elicitation a task waits on): to the session whose task it is,
   * naming the gateway's task id, on the stream of that session's request to the server if one is in
   * flight (its tasks/result), else on the session's own stream. Undefined: not a task of ours.
   */
  async #relayForTask(server: string, upstreamTaskId: string, request: UpstreamServerRequest): Promise<JsonObject | undefined> {
    const owner = await this.taskOwner?.(server, upstreamTaskId);
    if (!owner) return undefined;
    const params = request.params ?? {};
    const meta = isJsonObject(params._meta) ? params._meta : {};
    const attribution = this.inFlight.attribute(server);
    const related = attribution.kind === 'caller' && attribution.request.caller.session?.id === owner.session.id ? attribution.related : undefined;
    return this.relayTo({ session: owner.session, related }, { ...request, params: { ...params, _meta: { ...meta, [RELATED_TASK]: { taskId: owner.taskId } } } });
  }

  /** A request known to belong to `session` (on `related`, its request's own stream, if given). */
  async relayTo(
    { session, related }: { session: SessionRecord; related: RelatedChannel | undefined },
    request: UpstreamServerRequest,
  ): Promise<JsonObject> {
    const capability = missingCapability(request.method, session.clientCapabilities);
    if (capability !== undefined) {
      throw rpcError('ClientLacksCapability', request.method, capability);
    }
    // 2025-11-25: no elicitation in a mode the client did not declare.
    if (request.method === 'elicitation/create' && request.params?.mode === 'url' && !declaresUrlElicitation(session.clientCapabilities)) {
      throw rpcError('ClientLacksCapability', request.method, 'elicitation.url');
    }

    this.#counter += 1;
    const id = `${ID_PREFIX}.${this.bus.replicaId}.${this.#counter}`;
    const message = { jsonrpc: '2.0' as const, id, method: request.method, ...(request.params && { params: request.params }) };
    const answer = new Promise<JsonObject>((resolve, reject) => this.#pending.set(id, { sessionId: session.id, resolve, reject }));
    // It may be settled (cancelled) while the request is still being queued: handled when awaited.
    answer.catch(() => {});
    const onAbort = () => {
      const pending = this.#pending.get(id);
      if (!pending) return;
      this.#pending.delete(id);
      const cancelled = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: id, reason: 'cancelled by the upstream' } };
      if (related) related.send(cancelled);
      else void this.outbox.toSessions([session.id], cancelled).catch(() => {});
      pending.reject(rpcError('RequestCancelled', `the ${request.method} request`));
    };
    request.signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (related) related.send(message);
      else await this.outbox.toSessions([session.id], message);
      return await answer;
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      this.#pending.delete(id);
    }
  }

  /**
   * A response a client POSTed. True when it answers a request this gateway relayed (here, or on
   * the replica named in its id, to which it is carried).
   */
  handleClientResponse(sessionId: string, response: JsonRpcResponse): boolean {
    const id = response.id;
    if (typeof id !== 'string' || !id.startsWith(`${ID_PREFIX}.`)) return false;
    const replicaId = id.split('.')[1];
    if (replicaId === this.bus.replicaId) {
      this.#settle(sessionId, response);
    } else if (replicaId) {
      void this.bus.send(replicaId, CLIENT_RESPONSE_TOPIC, { sessionId, response: response as unknown as Record<string, unknown> }).catch(() => {});
    }
    return true;
  }

  #settle(sessionId: string, response: JsonRpcResponse): void {
    const id = response.id;
    if (typeof id !== 'string') return;
    const pending = this.#pending.get(id);
    // Only the session that was asked may answer.
    if (!pending || pending.sessionId !== sessionId) return;
    this.#pending.delete(id);
    if ('result' in response) pending.resolve(response.result);
    else pending.reject(new RpcError(response.error.code, response.error.message, response.error.data));
  }
}

function relatedTaskOf(request: UpstreamServerRequest): string | undefined {
  const meta = request.params?._meta;
  const related = isJsonObject(meta) ? meta[RELATED_TASK] : undefined;
  return isJsonObject(related) && typeof related.taskId === 'string' ? related.taskId : undefined;
}
