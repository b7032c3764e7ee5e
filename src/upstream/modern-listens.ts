// The news a 2026-07-28 upstream sends only to those who listen (basic/patterns/subscriptions):
// its list changes and the updates of resources someone subscribed to. A 2025 upstream sends both
// unasked (resources/subscribe names the resources), so a modern connection holds the listens that
// make a modern upstream say the same, and the gateway sees no difference:
//   - one listen for tools/prompts/resources list_changed, open for the connection's life;
//   - one listen whose resourceSubscriptions are the URIs subscribed through this connection,
//     replaced by a new one whenever that set changes (there is no way to amend a filter).
// A replacement is opened before the old one is closed, so no update falls into a gap; an update
// that races the swap may arrive twice, which a subscriber of "it changed, read it again" survives.
// A listen the upstream ends (a dropped stream, or its graceful close on shutdown) means the
// connection is no longer to be trusted with news: onLost() lets the supervisor reconnect, and the
// new connection listens afresh (the server keeps no subscription state across connections).
import type { Client, McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';
import { UpstreamRpcError } from './errors.js';
import { translateRequestError } from './request-errors.js';
import type { UpstreamNotification } from './types.js';

const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

export interface ModernListensOptions {
  readonly server: string;
  readonly client: Client;
  /** The upstream's capabilities from server/discover: which lists it has to listen to. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** How long the upstream may take to acknowledge a listen. */
  readonly ackTimeoutMs: number;
  /** A listen ended from the upstream's side while the connection was open. */
  onLost(reason: string): void;
}

export class ModernListens {
  #lists: McpSubscription | undefined;
  #resources: McpSubscription | undefined;
  #uris: readonly string[] = [];
  /** Filter changes, one after another: each re-listen starts from the set the last one left. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(private readonly options: ModernListensOptions) {}

  /** The URIs whose updates the current resource listen carries. */
  get subscribedUris(): readonly string[] {
    return this.#uris;
  }

  /** Opens the list-change listen and, when `uris` is not empty, the resource listen. */
  async start(uris: readonly string[]): Promise<void> {
    const filter = listChangeFilter(this.options.capabilities);
    if (Object.keys(filter).length > 0) this.#lists = await this.#open(filter, 'list changes');
    if (uris.length > 0) await this.#relisten([...new Set(uris)]);
  }

  /** Adds a URI to the resource listen; resolves once the upstream acknowledged the new filter. */
  subscribe(uri: string): Promise<void> {
    return this.#enqueue(() => (this.#uris.includes(uri) ? Promise.resolve() : this.#relisten([...this.#uris, uri])));
  }

  unsubscribe(uri: string): Promise<void> {
    return this.#enqueue(() => (this.#uris.includes(uri) ? this.#relisten(this.#uris.filter((held) => held !== uri)) : Promise.resolve()));
  }

  async close(): Promise<void> {
    this.#closed = true;
    const open = [this.#lists, this.#resources];
    this.#lists = this.#resources = undefined;
    await Promise.all(open.map((subscription) => subscription?.close()));
  }

  #enqueue(change: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(change);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #relisten(uris: string[]): Promise<void> {
    const previous = this.#resources;
    const next = uris.length === 0 ? undefined : await this.#open({ resourceSubscriptions: uris }, 'resource updates');
    if (next && next.honoredFilter.resourceSubscriptions === undefined) {
      await next.close();
      // What a 2025 server without resource subscriptions answers to resources/subscribe.
      throw new UpstreamRpcError(this.options.server, -32601, 'the upstream does not offer resource subscriptions');
    }
    this.#resources = next;
    this.#uris = uris;
    await previous?.close();
  }

  async #open(filter: SubscriptionFilter, what: string): Promise<McpSubscription> {
    let subscription: McpSubscription;
    try {
      subscription = await this.options.client.listen(filter, { timeout: this.options.ackTimeoutMs });
    } catch (error) {
      throw translateRequestError(this.options.server, 'subscriptions/listen', this.options.ackTimeoutMs, error, undefined);
    }
    void subscription.closed.then((cause) => {
      const current = subscription === this.#lists || subscription === this.#resources;
      if (cause !== 'local' && current && !this.#closed) this.options.onLost(`the upstream ended its ${what} listen (${cause})`);
    });
    return subscription;
  }
}

/** Every list the upstream has: a server that changes a list it has not marked listChanged still may say so. */
function listChangeFilter(capabilities: Readonly<Record<string, unknown>>): SubscriptionFilter {
  return {
    ...(capabilities.tools !== undefined && { toolsListChanged: true }),
    ...(capabilities.prompts !== undefined && { promptsListChanged: true }),
    ...(capabilities.resources !== undefined && { resourcesListChanged: true }),
  };
}

/**
 * The notification as a 2025 upstream would send it: the listen's subscriptionId names a stream of
 * this connection, which means nothing to the gateway's clients (the front stamps its own).
 */
export function withoutSubscriptionId(notification: UpstreamNotification): UpstreamNotification {
  const meta = notification.params?._meta;
  if (typeof meta !== 'object' || meta === null || !(SUBSCRIPTION_ID_META_KEY in meta)) return notification;
  const { [SUBSCRIPTION_ID_META_KEY]: _subscriptionId, ...otherMeta } = meta as Record<string, unknown>;
  const { _meta: _listenMeta, ...params } = notification.params ?? {};
  const kept = { ...params, ...(Object.keys(otherMeta).length > 0 && { _meta: otherMeta }) };
  return { method: notification.method, ...(Object.keys(kept).length > 0 && { params: kept }) };
}
