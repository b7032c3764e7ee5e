// The news a 2026-07-28 upstream sends only to those who listen (basic/patterns/subscriptions):
// its list changes and the updates of resources someone subscribed to. A 2025 upstream sends both
// unasked (resources/subscribe names the resources), so a modern connection holds the listens that
// make a modern upstream say the same, and the gateway sees no difference:
//   - one listen for tools/prompts/resources list_changed, open for the connection's life;
//   - one listen whose resourceSubscriptions are the URIs subscribed through this connection,
//     replaced by a new one whenever that set changes (there is no way to amend a filter).
// A replacement is opened before the old one is closed, so no update falls into a gap; an update
// that races the swap may arrive twice, which a subscriber of "it changed, read it again" survives.
// A listen the upstream ends (a dropped HTTP stream, a graceful close) is opened again with
// backoff, as the 2025 client reopens a dropped GET stream: whether the upstream is still there
// is for the pings and the circuit to say, not for the news channel. Once it listens again, the
// connection says what it may have missed: list_changed for each list, resources/updated for
// each URI, so the catalogue refetches and subscribers read again.
import type { Client, McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';
import type { Logger } from '../observe/logger.js';
import { upstreamError } from './errors.js';
import { translateRequestError } from './request-errors.js';
import type { UpstreamNotification } from './types.js';

const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';
const RELISTEN_BACKOFF = { initialMs: 500, maxMs: 30_000 };

type ListenKind = 'lists' | 'resources';

export interface ModernListensOptions {
  readonly server: string;
  readonly client: Client;
  /** The upstream's capabilities from server/discover: which lists it has to listen to. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** How long the upstream may take to acknowledge a listen. */
  readonly ackTimeoutMs: number;
  readonly logger: Logger;
  /** What may have changed while a dropped listen was being reopened, said as the upstream would. */
  announce(notification: UpstreamNotification): void;
}

export class ModernListens {
  #lists: McpSubscription | undefined;
  #resources: McpSubscription | undefined;
  #uris: readonly string[] = [];
  /** Listen changes, one after another: each re-listen starts from the set the last one left. */
  #queue: Promise<unknown> = Promise.resolve();
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(private readonly options: ModernListensOptions) {}

  /** Opens the list-change listen and, when `uris` is not empty, the resource listen. */
  async start(uris: readonly string[]): Promise<void> {
    const filter = listChangeFilter(this.options.capabilities);
    if (Object.keys(filter).length > 0) this.#lists = await this.#open('lists', filter);
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
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
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
    const next = uris.length === 0 ? undefined : await this.#open('resources', { resourceSubscriptions: uris });
    if (next && next.honoredFilter.resourceSubscriptions === undefined) {
      await next.close();
      // What a 2025 server without resource subscriptions answers to resources/subscribe.
      throw upstreamError(this.options.server, 'UpstreamLacksSubscriptions');
    }
    this.#resources = next;
    this.#uris = uris;
    await previous?.close();
  }

  async #open(kind: ListenKind, filter: SubscriptionFilter): Promise<McpSubscription> {
    let subscription: McpSubscription;
    try {
      subscription = await this.options.client.listen(filter, { timeout: this.options.ackTimeoutMs });
    } catch (error) {
      throw translateRequestError(this.options.server, 'subscriptions/listen', this.options.ackTimeoutMs, error, undefined);
    }
    void subscription.closed.then((cause) => {
      if (cause === 'local' || this.#closed || !this.#isCurrent(kind, subscription)) return;
      this.options.logger.warn({ listen: kind, cause }, 'the upstream ended a subscriptions/listen; listening again');
      this.#listenAgain(kind, subscription, 0);
    });
    return subscription;
  }

  #isCurrent(kind: ListenKind, subscription: McpSubscription): boolean {
    return (kind === 'lists' ? this.#lists : this.#resources) === subscription;
  }

  /** Reopens an ended listen after a backoff, unless it was replaced or closed meanwhile. */
  #listenAgain(kind: ListenKind, ended: McpSubscription, attempt: number): void {
    const delayMs = Math.min(RELISTEN_BACKOFF.maxMs, RELISTEN_BACKOFF.initialMs * 2 ** attempt);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#enqueue(async () => {
        if (this.#closed || !this.#isCurrent(kind, ended)) return;
        if (kind === 'lists') {
          this.#lists = await this.#open('lists', listChangeFilter(this.options.capabilities));
          for (const method of listChangeMethods(this.#lists.honoredFilter)) this.options.announce({ method });
        } else {
          await this.#relisten([...this.#uris]);
          for (const uri of this.#uris) this.options.announce({ method: 'notifications/resources/updated', params: { uri } });
        }
      }).catch(() => {
        if (!this.#closed) this.#listenAgain(kind, ended, attempt + 1);
      });
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
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

function listChangeMethods(filter: SubscriptionFilter): string[] {
  return [
    ...(filter.toolsListChanged === true ? ['notifications/tools/list_changed'] : []),
    ...(filter.promptsListChanged === true ? ['notifications/prompts/list_changed'] : []),
    ...(filter.resourcesListChanged === true ? ['notifications/resources/list_changed'] : []),
  ];
}

/**
 * The notification as a 2025 upstream would send it: the listen's subscriptionId names a stream of
 * this connection, which means nothing to the gateway's clients (the era adapter stamps its own).
 */
export function withoutSubscriptionId(notification: UpstreamNotification): UpstreamNotification {
  const meta = notification.params?._meta;
  if (typeof meta !== 'object' || meta === null || !(SUBSCRIPTION_ID_META_KEY in meta)) return notification;
  const { [SUBSCRIPTION_ID_META_KEY]: _subscriptionId, ...otherMeta } = meta as Record<string, unknown>;
  const { _meta: _listenMeta, ...params } = notification.params ?? {};
  const kept = { ...params, ...(Object.keys(otherMeta).length > 0 && { _meta: otherMeta }) };
  return { method: notification.method, ...(Object.keys(kept).length > 0 && { params: kept }) };
}
