// Servers with `isolation: session`: each client session gets its own upstream connection, so an
// upstream's state, notifications and requests belong to exactly one session.
//
// - stdio: one process per session, owned by the replica that started it (recorded in the
//   session record as `replica:{id}`). A request that lands on another replica is forwarded to the
//   owner over the bus (owner-forwarding.ts), and what the upstream sends back (progress, log
//   messages, server-to-client requests, the result) returns the same way. An owner that does not acknowledge within a few
//   seconds is gone: the replica takes the session over with a fresh process.
// - HTTP: the upstream's own session id is kept in the session record, so any replica can
//   continue that upstream session over its own connection. When the gateway session ends (DELETE,
//   idle expiry, the principal's cap, or a shutdown that takes the sessions with it) the upstream
//   session is ended too (DELETE, bounded in time; upstream/end-session.ts).
import type { Principal } from '../../auth/principal.js';
import type { Logger } from '../../observe/logger.js';
import type { Bus } from '../../session/bus.js';
import type { SessionRecord, SessionStore } from '../../session/store.js';
import { UpstreamUnavailableError } from '../../upstream/errors.js';
import { waitUntilReady } from '../../upstream/until-ready.js';
import type { SessionUpstreamFactory } from '../../upstream/session-upstreams.js';
import type { Upstream, UpstreamNotification } from '../../upstream/types.js';
import type { ServerLists } from '../catalogue/catalog-view.js';
import { ConnectionCredential, isMissingCredential, type ServerCredentials } from './caller-credentials.js';
import { UnlistedServers, type ListsShelf } from './unlisted-servers.js';
import { ERRORS } from '../../protocol/error-catalogue.js';
import { LATE, LeftOutServers, type LeftOutServer } from './left-out-servers.js';
import type { NeededServers } from './needed-servers.js';
import { failUpstreamSpan } from '../calls/upstream-span.js';
import { NETWORK_TRANSPORT, SWITCHBOARD_SERVER } from '../../observe/tracing/attributes.js';
import type { SpanParent } from '../../observe/tracing/tracing.js';
import { toRpcError } from '../errors.js';
import { speaksModern } from '../calls/upstream-era.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import type { JsonRpcNotification } from '../../protocol/json-rpc.js';
import { fetchAllPages } from '../catalogue/list-pages.js';
import { exposeUri } from '../catalogue/namespace.js';
import { OwnerForwarding, type ForwardedRequestOptions } from './owner-forwarding.js';
import type { RelatedChannel } from '../calls/related-channel.js';
import type { ServerRequestRelay } from '../calls/server-requests.js';
import type { SessionOutbox } from '../sessions/session-outbox.js';

export interface IsolatedServer {
  readonly name: string;
  readonly prefix: string;
  readonly transport: 'stdio' | 'http';
  /** At most this many session connections on this replica (config maxSessions). */
  readonly maxSessions: number;
  /** Per request (config timeoutMs): what a list waits for it once the caller's connection is up. */
  readonly timeoutMs: number;
  /** What a list waits for the caller's first connection and its lists (config listConnectTimeoutMs). */
  readonly listConnectTimeoutMs: number;
  /** Per-user credentials; absent: the config's own headers or env, the same for everyone. */
  readonly credentials?: ServerCredentials;
}

/**
 * The same whether the request runs here or on the owning replica; `span`, the request's, is the
 * parent of the span of a connection it starts here, and never crosses to another replica.
 */
export type IsolatedRequestOptions = ForwardedRequestOptions & { readonly span?: SpanParent | undefined };

interface LocalConnection {
  readonly upstream: Upstream;
  /** The caller's credential, for a server with per-user credentials. */
  readonly credential: ConnectionCredential | undefined;
  readonly session: SessionRecord;
  lastUsed: number;
  readonly inFlight: Set<RelatedChannel | undefined>;
  lists?: Promise<ServerLists>;
  readonly detach: () => void;
}

const OWNER_PREFIX = 'replica:';
const READY_TIMEOUT_MS = 30_000;
const Topic = {
  invalidate: 'iso-invalidate',
  notify: 'iso-notify',
  close: 'iso-close',
} as const;

export interface IsolationOptions {
  /** The session-isolated servers of the config in force. */
  readonly servers: () => readonly IsolatedServer[];
  readonly factory: SessionUpstreamFactory;
  /** A session's connections unused this long are closed (the session has likely expired). */
  readonly idleTimeoutMs: number;
  /**
   * Where the last lists of servers with per-user credentials are kept for every replica (and past
   * a restart): what a caller without a credential of their own sees (unlisted-servers.ts).
   */
  readonly lastLists?: ListsShelf;
}

export class IsolatedServers {
  readonly #local = new Map<string, Map<string, LocalConnection>>();
  readonly #remoteLists = new Map<string, Promise<ServerLists>>();
  readonly #opening = new Map<string, Promise<LocalConnection>>();
  /** What callers who could not list a server with per-user credentials see of it, and why. */
  readonly #unlisted: UnlistedServers;
  /** Servers that lists went without lately, and since when (left-out-servers.ts). */
  readonly #leftOut: LeftOutServers;
  /** Per session and server: a late fetch whose arrival the session will be told of. */
  readonly #announcing = new Set<string>();
  /** Per server: whether the last connection made here spoke 2026-07-28 (see isModern). */
  readonly #lastEra = new Map<string, boolean>();
  readonly #detach: (() => void)[] = [];
  readonly #forwarding: OwnerForwarding;
  #sweep: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: IsolationOptions & {
      readonly store: SessionStore;
      readonly bus: Bus;
      readonly outbox: SessionOutbox;
      readonly relay: ServerRequestRelay;
      readonly logger: Logger;
    },
  ) {
    this.#unlisted = new UnlistedServers(options.lastLists);
    this.#leftOut = new LeftOutServers(options.logger);
    this.#forwarding = new OwnerForwarding(options.bus, {
      owns: (session, server) => ownerOf(session, server) === options.bus.replicaId,
      serve: async (session, server, method, params, requestOptions) =>
        this.#requestLocal(await this.#connection(session, server, false, requestOptions.principal), method, params, requestOptions),
    });
  }

  start(): void {
    const { bus } = this.options;
    this.#detach.push(
      this.#forwarding.start(),
      bus.on(Topic.invalidate, (payload) => this.#remoteLists.delete(listsKey(String(payload.sessionId), String(payload.server)))),
      bus.on(Topic.close, (payload) => void this.#closeLocal(String(payload.sessionId), payload.end === true)),
      bus.on(Topic.notify, (payload) => this.#notifyLocal(String(payload.sessionId), String(payload.method), payload.params)),
    );
    this.#sweep = setInterval(() => void this.#closeIdle(), Math.min(this.options.idleTimeoutMs, 60_000));
    this.#sweep.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#sweep);
    for (const detach of this.#detach.splice(0)) detach();
    // Memory sessions end with the process, so their upstream sessions end too; Redis ones live
    // on, and another replica continues their upstream sessions by id.
    const sessionsEnd = this.options.store.kind === 'memory';
    await Promise.all([...this.#local.keys()].map((sessionId) => this.#closeLocal(sessionId, sessionsEnd)));
  }

  hasAny(): boolean {
    return this.options.servers().length > 0;
  }

  /** The session-isolated servers of the config in force, in config order. */
  servers(): readonly IsolatedServer[] {
    return this.options.servers();
  }

  /** The servers lists went without lately (for /readyz and the status page). */
  leftOut(): Readonly<Record<string, LeftOutServer>> {
    return this.#leftOut.report();
  }

  /** The server, when it is session-isolated in the config in force. */
  find(server: string): IsolatedServer | undefined {
    return this.options.servers().find((candidate) => candidate.name === server);
  }

  /** Sends a request to the session's own connection to `server`, wherever it lives. */
  async request(session: SessionRecord, server: string, method: string, params: JsonObject | undefined, options: IsolatedRequestOptions): Promise<JsonObject> {
    const isolated = this.#server(server);
    const owner = isolated.transport === 'stdio' ? ownerOf(session, server) : undefined;
    if (owner !== undefined && owner !== this.options.bus.replicaId) {
      const forwarded = await this.#forwarding.forward(owner, session, server, method, params, options);
      if (forwarded.kind === 'answered') return forwarded.result;
      this.options.logger.warn({ server, owner }, 'the replica holding a session-isolated upstream is gone; taking the session over');
    }
    const connection = await this.#connection(session, server, owner === undefined || owner !== this.options.bus.replicaId, options.principal, options.span);
    return this.#requestLocal(connection, method, params, options);
  }

  /** How `server` is reached (for its requests' spans). */
  transportOf(server: string): 'stdio' | 'http' {
    return this.#server(server).transport;
  }

  /**
   * Whether the session's connection to `server` speaks 2026-07-28, as far as this replica knows:
   * its own connection's verdict, else the last verdict any session's connection to that server
   * had here, else no (a 2025 upstream ignores what a 2026 one would be told, so the guess is safe).
   */
  isModern(session: SessionRecord, server: string): boolean {
    const connection = this.#local.get(session.id)?.get(server);
    if (connection?.upstream.info) return speaksModern(connection.upstream);
    return this.#lastEra.get(server) ?? false;
  }

  /**
   * The session's own lists of the isolated servers a request needs (needed-servers.ts), in config
   * order. `principal` is the caller's, for servers with per-user credentials: one without a
   * credential there sees nothing of it (whenMissing: hide) or the server's last lists here
   * (whenMissing: error).
   *
   * For a list (`needed` is 'all'), each server is waited for at most its own bound:
   * listConnectTimeoutMs while the caller's connection is not up yet, then timeoutMs. One that
   * misses it is left out of this list (the fetch goes on, and a later list has it once it
   * answers), so a list never waits on the slowest. A request for an item of the servers named
   * waits for them as a call of them does: the caller asked for that server and no other.
   */
  async lists(session: SessionRecord, principal?: Principal, needed: NeededServers = 'all', span?: SpanParent): Promise<ServerLists[]> {
    const bounded = needed === 'all';
    const servers = this.options.servers().filter((server) => needed === 'all' || needed.includes(server.name));
    const all = await Promise.all(
      servers.map(async (server) => {
        const boundMs = this.#listBound(session, server);
        try {
          const fetched = this.#listsOf(session, server, principal, span);
          const lists = bounded ? await this.#leftOut.within(fetched, boundMs) : await fetched;
          if (lists === LATE) {
            this.#leftOut.leftOut(server.name, LATE, boundMs);
            this.#unlisted.late(session.id, server, new UpstreamUnavailableError(server.name, `it did not answer within ${boundMs} ms`));
            this.#announceWhenListed(session.id, server.name, fetched);
            return undefined;
          }
          this.#unlisted.listed(session.id, server.name);
          this.#leftOut.answered(server.name);
          return lists;
        } catch (error) {
          // A caller without a credential of their own says nothing about the server.
          if (!isMissingCredential(error)) this.#leftOut.leftOut(server.name, error, boundMs);
          if (server.credentials) return this.#unlisted.failed(session.id, server, error);
          return undefined;
        }
      }),
    );
    return all.filter((lists): lists is ServerLists => lists !== undefined);
  }

  /**
   * A list went on without the server: once its lists come, the session is told its lists changed,
   * so a client that lists once at start (most do) sees the server's items without asking again.
   */
  #announceWhenListed(sessionId: string, server: string, fetched: Promise<ServerLists>): void {
    const key = listsKey(sessionId, server);
    if (this.#announcing.has(key)) return;
    this.#announcing.add(key);
    fetched.then(
      (lists) => {
        const changed = [
          ['tools', lists.tools.length],
          ['prompts', lists.prompts.length],
          ['resources', lists.resources.length + lists.resourceTemplates.length],
        ] as const;
        for (const [kind, count] of changed) {
          if (count > 0) void this.options.outbox.toSessions([sessionId], { jsonrpc: '2.0', method: `notifications/${kind}/list_changed` }).catch(() => {});
        }
      },
      () => {},
    ).finally(() => this.#announcing.delete(key));
  }

  /** How long a list waits for the server: its connect bound until the caller's connection here is up. */
  #listBound(session: SessionRecord, server: IsolatedServer): number {
    const local = this.#local.get(session.id)?.get(server.name);
    return local?.upstream.state === 'ready' && !this.#opening.has(listsKey(session.id, server.name)) ? server.timeoutMs : server.listConnectTimeoutMs;
  }

  /**
   * Why a tool or prompt the caller named is not in their view, when they could not list the
   * server with per-user credentials whose prefix it has (unlisted-servers.ts).
   */
  explainUnlisted(sessionId: string, name: string, separator: string, allows: (server: string, name: string) => boolean): Error | undefined {
    return this.#unlisted.explain(sessionId, name, separator, this.options.servers(), allows);
  }

  /** A client notification for its own upstreams (roots/list_changed), wherever they run. */
  async notifySession(sessionId: string, method: string, params: JsonObject | undefined): Promise<void> {
    if (!this.hasAny()) return;
    await this.options.bus.broadcast(Topic.notify, { sessionId, method, ...(params && { params }) });
  }

  #notifyLocal(sessionId: string, method: string, params: unknown): void {
    for (const connection of this.#local.get(sessionId)?.values() ?? []) {
      if (connection.upstream.state !== 'ready') continue;
      void connection.upstream.notify(method, isJsonObject(params) ? params : undefined).catch(() => {});
    }
  }

  /**
   * The session ended: its connections close, here and on the replicas that own them, and each of
   * its HTTP upstream sessions is ended (DELETE). One this replica holds no connection to is ended
   * from the record, with the server's configured headers; the replicas that hold one end it
   * with the caller's credential (an upstream may so see two DELETEs, the second answered 404).
   */
  async closeSession(session: SessionRecord): Promise<void> {
    const ended = await this.#closeLocal(session.id, true);
    const unheld = Object.entries(session.upstreamSessions).filter(
      ([server, stored]) => !ended.has(server) && !stored.startsWith(OWNER_PREFIX) && this.find(server)?.transport === 'http',
    );
    await Promise.all([
      ...unheld.map(([server, stored]) => this.options.factory.end(server, stored)),
      this.options.bus.broadcast(Topic.close, { sessionId: session.id, end: true }).catch(() => {}),
    ]);
  }

  #server(name: string): IsolatedServer {
    const server = this.find(name);
    if (!server) throw new UpstreamUnavailableError(name, 'it is not configured');
    return server;
  }

  async #listsOf(session: SessionRecord, server: IsolatedServer, principal: Principal | undefined, span: SpanParent | undefined): Promise<ServerLists> {
    const local = this.#local.get(session.id)?.get(server.name);
    const owner = server.transport === 'stdio' ? ownerOf(session, server.name) : undefined;
    const remote = owner !== undefined && owner !== this.options.bus.replicaId && !local;
    if (!remote) {
      const connection = local ?? (await this.#connection(session, server.name, true, principal, span));
      if (!connection.lists) {
        const signal = new AbortController().signal;
        const lists = this.#fetchLists(server, (method, params) => this.#requestLocal(connection, method, params, { signal, ...(principal && { principal }) }));
        connection.lists = lists;
        if (server.credentials) this.#unlisted.fetched(server.name, lists);
        // A failed fetch is not remembered: the next request tries again.
        lists.catch(() => {
          if (connection.lists === lists) delete connection.lists;
        });
      }
      return connection.lists;
    }
    const key = listsKey(session.id, server.name);
    let lists = this.#remoteLists.get(key);
    if (!lists) {
      const signal = new AbortController().signal;
      lists = this.#fetchLists(server, (method, params) => this.request(session, server.name, method, params, { signal, span, ...(principal && { principal }) }));
      this.#remoteLists.set(key, lists);
      lists.catch(() => this.#remoteLists.delete(key));
    }
    return lists;
  }

  async #fetchLists(server: IsolatedServer, send: (method: string, params: JsonObject | undefined) => Promise<JsonObject>): Promise<ServerLists> {
    // A resumed HTTP session did not see initialize, so capabilities are unknown: ask for every
    // list, and read "method not found" as "none".
    const fetch = (method: string, key: string) =>
      fetchAllPages({ request: send }, method, key).catch((error: unknown) => {
        if (toRpcError(error).code === ERRORS.MethodNotFound.code) return [];
        throw error;
      });
    const [tools, prompts, resources, resourceTemplates] = await Promise.all([
      fetch('tools/list', 'tools'),
      fetch('prompts/list', 'prompts'),
      fetch('resources/list', 'resources'),
      fetch('resources/templates/list', 'resourceTemplates'),
    ]);
    return { server: server.name, prefix: server.prefix, tools, prompts, resources, resourceTemplates };
  }

  /** This replica's connection for the session, made (and claimed in the record) if needed. */
  async #connection(session: SessionRecord, server: string, claim: boolean, principal: Principal | undefined, span?: SpanParent): Promise<LocalConnection> {
    // Concurrent first requests of a session (its four lists, say) share one connection, and wait
    // for it to be up (it is kept below before it is, and would fail them as not connected).
    const key = listsKey(session.id, server);
    const opening = this.#opening.get(key);
    if (opening) return opening;
    const existing = this.#local.get(session.id)?.get(server);
    if (existing) {
      existing.lastUsed = Date.now();
      await existing.credential?.refresh(principal);
      return existing;
    }
    const opened = this.#traceOpen(session, server, claim, principal, span).finally(() => this.#opening.delete(key));
    this.#opening.set(key, opened);
    return opened;
  }

  /**
   * Starting the caller's own upstream (a credential, a process or an HTTP session, initialize) can
   * take most of a first request's time: a span of its own under the request's, when traced.
   */
  async #traceOpen(session: SessionRecord, server: string, claim: boolean, principal: Principal | undefined, parent: SpanParent | undefined): Promise<LocalConnection> {
    if (!parent) return this.#open(session, server, claim, principal);
    const transport = this.find(server)?.transport;
    const span = parent.startChild(`start ${server}`, 'client', {
      [SWITCHBOARD_SERVER]: server,
      [NETWORK_TRANSPORT]: transport === undefined ? undefined : transport === 'stdio' ? 'pipe' : 'tcp',
    });
    try {
      const connection = await this.#open(session, server, claim, principal);
      span.end();
      return connection;
    } catch (error) {
      failUpstreamSpan(span, error);
      throw error;
    }
  }

  async #open(session: SessionRecord, server: string, claim: boolean, principal: Principal | undefined): Promise<LocalConnection> {
    const isolated = this.#server(server);
    // Resolved first: a caller without a credential gets no connection (and no process).
    const credential = isolated.credentials && (await ConnectionCredential.resolve(isolated.credentials.source, principal, server));
    await this.#makeRoom(isolated);
    const stored = upstreamSessionOf(session, server);
    const resume = isolated.transport === 'http' && stored !== undefined && !stored.startsWith(OWNER_PREFIX) ? stored : undefined;
    const upstream = this.options.factory.create(server, session.id, resume, credential && (() => credential.current()));
    const connection: LocalConnection = {
      upstream,
      credential,
      session,
      lastUsed: Date.now(),
      inFlight: new Set(),
      detach: () => {},
    };
    Object.assign(connection, { detach: this.#listen(connection, server) });
    let sessions = this.#local.get(session.id);
    if (!sessions) {
      sessions = new Map();
      this.#local.set(session.id, sessions);
    }
    sessions.set(server, connection);
    await waitUntilReady(upstream, READY_TIMEOUT_MS);
    this.#lastEra.set(server, speaksModern(upstream));
    const recorded =
      isolated.transport === 'stdio' ? `${OWNER_PREFIX}${this.options.bus.replicaId}` : this.options.factory.sessionIdOf(upstream);
    if (recorded !== undefined && (claim || isolated.transport === 'http') && recorded !== stored) {
      await this.options.store.update(session.id, { upstreamSessions: { [server]: recorded } });
    }
    return connection;
  }

  async #requestLocal(connection: LocalConnection, method: string, params: JsonObject | undefined, options: IsolatedRequestOptions): Promise<JsonObject> {
    connection.lastUsed = Date.now();
    const related = options.related;
    connection.inFlight.add(related);
    try {
      return await connection.upstream.request(method, params, {
        signal: options.signal,
        ...(options.onProgress && { onProgress: options.onProgress }),
      });
    } finally {
      connection.inFlight.delete(related);
    }
  }

  /** Everything the session's own upstream says goes to that session. */
  #listen(connection: LocalConnection, server: string): () => void {
    const { session, upstream } = connection;
    upstream.setServerRequestHandler((request) => {
      const related = connection.inFlight.size === 1 ? [...connection.inFlight][0] : undefined;
      return this.options.relay.relayTo({ session, related }, request);
    });
    return upstream.onNotification((notification) => void this.#onNotification(connection, server, notification));
  }

  async #onNotification(connection: LocalConnection, server: string, notification: UpstreamNotification): Promise<void> {
    const { session } = connection;
    const message: JsonRpcNotification = { jsonrpc: '2.0', method: notification.method, ...(notification.params && { params: notification.params }) };
    try {
      if (notification.method.endsWith('/list_changed') && notification.method !== 'notifications/roots/list_changed') {
        delete connection.lists;
        await this.options.bus.broadcast(Topic.invalidate, { sessionId: session.id, server });
        await this.options.outbox.toSessions([session.id], message);
        return;
      }
      if (notification.method === 'notifications/resources/updated') {
        const uri = isJsonObject(notification.params) && typeof notification.params.uri === 'string' ? notification.params.uri : undefined;
        if (uri === undefined) return;
        const prefixed = this.#server(server).prefix !== '';
        await this.options.outbox.toSessions([session.id], { ...message, params: { ...notification.params, uri: prefixed ? exposeUri(server, uri) : uri } });
        return;
      }
      if (notification.method === 'notifications/progress' || notification.method === 'notifications/cancelled') return;
      const related = connection.inFlight.size === 1 ? [...connection.inFlight][0] : undefined;
      if (related) related.send(message);
      else await this.options.outbox.toSessions([session.id], message);
    } catch (error) {
      this.options.logger.warn({ server, method: notification.method, err: toRpcError(error).message }, 'could not deliver a notification');
    }
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  /**
   * Keeps the server within maxSessions connections here: the least recently used idle one is
   * closed (an HTTP upstream session goes on, continued by id on next use; a process ends, and
   * the session's next request starts another). All busy: the request is refused, not queued.
   */
  async #makeRoom(server: IsolatedServer): Promise<void> {
    let count = 0;
    let idlest: { sessionId: string; connection: LocalConnection } | undefined;
    for (const [sessionId, connections] of this.#local) {
      const connection = connections.get(server.name);
      if (!connection) continue;
      count += 1;
      if (connection.inFlight.size === 0 && (!idlest || connection.lastUsed < idlest.connection.lastUsed)) idlest = { sessionId, connection };
    }
    if (count < server.maxSessions) return;
    if (!idlest) throw new UpstreamUnavailableError(server.name, `all ${server.maxSessions} of its session connections on this replica are busy (mcpServers.${server.name}.maxSessions)`);
    await this.#closeOne(idlest.sessionId, server.name);
  }

  async #closeOne(sessionId: string, server: string): Promise<void> {
    const connections = this.#local.get(sessionId);
    const connection = connections?.get(server);
    if (!connections || !connection) return;
    connections.delete(server);
    if (connections.size === 0) this.#local.delete(sessionId);
    connection.detach();
    await connection.upstream.stop();
  }

  /**
   * Closes the session's connections here; with `end`, the gateway session is over and each HTTP
   * upstream session is ended too. Returns the servers whose upstream sessions it ended.
   */
  async #closeLocal(sessionId: string, end = false): Promise<Set<string>> {
    const ended = new Set<string>();
    const connections = this.#local.get(sessionId);
    if (!connections) return ended;
    this.#local.delete(sessionId);
    for (const key of [...this.#remoteLists.keys()]) if (key.startsWith(`${sessionId}\u0000`)) this.#remoteLists.delete(key);
    await Promise.all(
      [...connections].map(async ([server, connection]) => {
        connection.detach();
        const upstreamSession = end ? this.options.factory.sessionIdOf(connection.upstream) : undefined;
        const protocolVersion = connection.upstream.info?.protocolVersion;
        await connection.upstream.stop();
        if (upstreamSession === undefined) return;
        ended.add(server);
        await this.options.factory.end(server, upstreamSession, {
          ...(connection.credential && { credential: connection.credential.current() }),
          ...(protocolVersion !== undefined && { protocolVersion }),
        });
      }),
    );
    return ended;
  }

  /**
   * Sessions whose connections here all sat unused for the idle timeout: one the store no longer
   * has expired, and its upstream sessions end with it. One still live (busy with other servers,
   * or on another replica) keeps its HTTP connections, so that whichever comes first, its end or
   * its expiry, still finds them here to end; its processes close, as nothing continues them.
   */
  async #closeIdle(): Promise<void> {
    const before = Date.now() - this.options.idleTimeoutMs;
    const idle = [...this.#local].filter(([, connections]) =>
      [...connections.values()].every((connection) => connection.lastUsed < before && connection.inFlight.size === 0),
    );
    if (idle.length === 0) return;
    let records: (SessionRecord | undefined)[];
    try {
      records = await this.options.store.peekMany(idle.map(([sessionId]) => sessionId));
    } catch {
      return; // The store does not answer: the next sweep asks again.
    }
    await Promise.all(
      idle.map(async ([sessionId, connections], index) => {
        if (records[index] === undefined) return this.#closeLocal(sessionId, true);
        for (const server of [...connections.keys()]) if (this.find(server)?.transport !== 'http') await this.#closeOne(sessionId, server);
      }),
    );
  }
}

/**
 * What the record holds for the server. Own keys only: a server may be named "constructor" or
 * "toString", which a plain lookup would find on Object.prototype.
 */
function upstreamSessionOf(session: SessionRecord, server: string): string | undefined {
  return Object.hasOwn(session.upstreamSessions, server) ? session.upstreamSessions[server] : undefined;
}

function ownerOf(session: SessionRecord, server: string): string | undefined {
  const stored = upstreamSessionOf(session, server);
  return stored?.startsWith(OWNER_PREFIX) ? stored.slice(OWNER_PREFIX.length) : undefined;
}

function listsKey(sessionId: string, server: string): string {
  return `${sessionId}\u0000${server}`;
}
