// subscriptions/listen: a 2026 client's long-lived request for change notifications. Each listen
// says what it wants (list changes by kind, updates of resource URIs); the gateway acknowledges the
// part it honours and then sends only that, each message tagged with the listen's id. List changes
// come from every replica over the bus (a stdio upstream's change happens in one replica's own
// process), filtered by what the listener's policy lets it see; resource updates come from this
// replica's upstream connections, where the listen subscribed, reference-counted together with the
// subscriptions of 2025 sessions.
import type { Principal } from '../../auth/principal.js';
import type { Logger } from '../../observe/logger.js';
import { withMetaEntry } from '../../protocol/copy-with.js';
import type { Bus } from '../../session/bus.js';
import type { Upstream } from '../../upstream/types.js';
import type { AccessViews } from '../catalogue/access.js';
import type { Catalog, ListKind } from '../catalogue/catalog.js';
import type { CatalogView } from '../catalogue/catalog-view.js';
import type { EndpointViews } from '../catalogue/endpoint-views.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcResponse } from '../../protocol/json-rpc.js';
import type { GatewayObserver } from '../observer.js';
import { routeUri, type Routing } from '../calls/routing.js';
import type { SubscriptionCounter } from '../sessions/subscriptions.js';
import { META } from './envelope.js';
import { changedItems } from './changed-items.js';

const TOPIC = 'listen-list-changed';
const HOLDER_PREFIX = 'listen:';
/** A listen subscribes to at most this many resources; the acknowledgement names those it took. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 100;
/** Beyond this many changed items a change is announced to every listener of its kind. */
const MAX_ITEMS_ON_BUS = 500;

const FILTER_KEYS: Readonly<Record<ListKind, string>> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

/** Where a listen's messages go: the HTTP layer's stream. */
export interface ListenSink {
  send(message: JsonRpcNotification | JsonRpcResponse): void;
  close(): void;
}

interface Listen {
  readonly id: JsonRpcId;
  readonly holder: string;
  readonly principal: Principal | undefined;
  /** The configured endpoint the listen came in on; absent: the default one. */
  readonly endpoint: string | undefined;
  readonly kinds: ReadonlySet<ListKind>;
  /** (server, upstream URI) -> the exposed URI the client subscribed to. */
  readonly resources: Map<string, { server: string; uri: string; exposed: string }>;
  readonly sink: ListenSink;
}

export interface ListensOptions {
  readonly catalog: Catalog;
  readonly bus: Bus;
  readonly routing: Routing;
  readonly access: AccessViews;
  readonly endpoints: EndpointViews;
  readonly subscriptions: SubscriptionCounter;
  readonly upstreams: { get(name: string): Upstream | undefined };
  readonly observer: Required<GatewayObserver>;
  readonly logger: Logger;
}

export class Listens {
  readonly #listens = new Map<string, Listen>();
  #counter = 0;
  #detach: (() => void)[] = [];

  constructor(private readonly options: ListensOptions) {}

  get size(): number {
    return this.#listens.size;
  }

  start(): void {
    this.#detach = [
      this.options.bus.on(TOPIC, (payload) => {
        const kind = payload.kind;
        if (kind !== 'tools' && kind !== 'prompts' && kind !== 'resources') return;
        const items = Array.isArray(payload.items) ? (payload.items as unknown[]).filter(isItem) : undefined;
        this.#deliverListChange(kind, items);
      }),
    ];
  }

  /** Ends every listen gracefully (shutdown): the listen's result, then the stream closes. */
  endAll(): void {
    for (const listen of [...this.#listens.values()]) {
      listen.sink.send({ jsonrpc: '2.0', id: listen.id, result: { resultType: 'complete', _meta: { [META.subscriptionId]: listen.id } } });
      listen.sink.close();
      this.close(listen.holder);
    }
  }

  stop(): void {
    for (const detach of this.#detach.splice(0)) detach();
  }

  /** Tells every replica's listeners that the merged `kind` list changed between two views. */
  async announce(kind: ListKind, before: CatalogView, after: CatalogView): Promise<void> {
    const items = changedItems(kind, before, after);
    await this.options.bus.broadcastLogged(TOPIC, { kind, ...(items.length <= MAX_ITEMS_ON_BUS && { items }) });
  }

  /**
   * Opens a listen; returns its holder id (to close it) and the filter it honours, which the
   * caller acknowledges before anything else goes on the stream.
   */
  async open(id: JsonRpcId, params: JsonObject, principal: Principal | undefined, sink: ListenSink, endpoint?: string): Promise<{ holder: string; honoured: JsonObject }> {
    const wanted = isJsonObject(params.notifications) ? params.notifications : {};
    const kinds = new Set<ListKind>();
    const honoured: JsonObject = {};
    for (const kind of ['tools', 'prompts', 'resources'] as const) {
      if (wanted[FILTER_KEYS[kind]] === true) {
        kinds.add(kind);
        honoured[FILTER_KEYS[kind]] = true;
      }
    }
    this.#counter += 1;
    const holder = `${HOLDER_PREFIX}${this.options.bus.replicaId}:${this.#counter}`;
    const listen: Listen = { id, holder, principal, endpoint, kinds, resources: new Map(), sink };
    this.#listens.set(holder, listen);
    const uris = Array.isArray(wanted.resourceSubscriptions)
      ? [...new Set(wanted.resourceSubscriptions.filter((uri): uri is string => typeof uri === 'string'))].slice(0, MAX_RESOURCE_SUBSCRIPTIONS)
      : [];
    if (uris.length > 0) honoured.resourceSubscriptions = await this.#subscribe(listen, uris);
    return { holder, honoured };
  }

  /** The listen ended (the client closed its stream, or the gateway ended it). */
  close(holder: string): void {
    const listen = this.#listens.get(holder);
    if (!listen) return;
    this.#listens.delete(holder);
    for (const { server, uri } of listen.resources.values()) {
      if (this.options.subscriptions.release(server, uri, holder)) {
        void this.options.upstreams.get(server)?.request('resources/unsubscribe', { uri }).catch(() => {});
      }
    }
  }

  static isHolder(holder: string): boolean {
    return holder.startsWith(HOLDER_PREFIX);
  }

  /** An upstream's resources/updated for the listens (of this replica) among `holders`. */
  deliverResourceUpdate(holders: readonly string[], server: string, uri: string, params: JsonObject): number {
    let delivered = 0;
    for (const holder of holders) {
      const listen = this.#listens.get(holder);
      const subscribed = listen?.resources.get(`${server}\u0000${uri}`);
      if (!listen || !subscribed) continue;
      listen.sink.send(tagged(listen.id, 'notifications/resources/updated', { ...params, uri: subscribed.exposed }));
      delivered += 1;
    }
    return delivered;
  }

  /** Subscribes upstream to each URI the listener may read; returns those honoured. */
  async #subscribe(listen: Listen, uris: readonly string[]): Promise<string[]> {
    const { catalog, routing, access, endpoints, subscriptions, upstreams, logger } = this.options;
    const view = access.view(endpoints.view(catalog.view, listen.endpoint), listen.principal);
    const honoured: string[] = [];
    for (const exposed of uris) {
      let target;
      try {
        target = routeUri(view, routing, exposed);
      } catch {
        continue;
      }
      const upstream = upstreams.get(target.server);
      if (!upstream) continue;
      const key = `${target.server}\u0000${target.uri}`;
      if (listen.resources.has(key)) {
        honoured.push(exposed);
        continue;
      }
      if (subscriptions.retain(target.server, target.uri, listen.holder)) {
        try {
          await upstream.request('resources/subscribe', { uri: target.uri });
        } catch (error) {
          subscriptions.release(target.server, target.uri, listen.holder);
          logger.debug({ server: target.server, err: error instanceof Error ? error.message : String(error) }, 'a listen could not subscribe upstream');
          continue;
        }
      }
      listen.resources.set(key, { server: target.server, uri: target.uri, exposed });
      honoured.push(exposed);
    }
    return honoured;
  }

  #deliverListChange(kind: ListKind, items: readonly [string, string][] | undefined): void {
    const method = `notifications/${kind}/list_changed`;
    let delivered = 0;
    for (const listen of this.#listens.values()) {
      if (!listen.kinds.has(kind) || !this.#sees(listen, items)) continue;
      listen.sink.send(tagged(listen.id, method, {}));
      delivered += 1;
    }
    if (delivered > 0) this.options.observer.onNotificationForwarded({ method, sessions: delivered });
  }

  /** Whether a change of these items (all, when unknown) is visible on the listener's endpoint to its policy. */
  #sees(listen: Listen, items: readonly [string, string][] | undefined): boolean {
    const { access, endpoints } = this.options;
    if ((!access.active && listen.endpoint === undefined) || items === undefined) return true;
    const view = access.view(endpoints.view(this.options.catalog.view, listen.endpoint), listen.principal);
    const allows = view.allows;
    return allows === undefined || items.some(([server, name]) => allows(server, name));
  }
}

function tagged(id: JsonRpcId, method: string, params: JsonObject): JsonRpcNotification {
  return { jsonrpc: '2.0', method, params: withMetaEntry(params, META.subscriptionId, id) };
}

function isItem(value: unknown): value is [string, string] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string';
}
