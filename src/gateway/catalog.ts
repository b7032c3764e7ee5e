// The catalogue cache: each upstream's lists, fetched whole when it connects and again when it
// says a list changed, merged into one CatalogView. Sessions read the view; nothing on the request
// path waits for an upstream's list unless a refresh is already under way.
import type { Logger } from '../observe/logger.js';
import type { Upstream, UpstreamNotification } from '../upstream/types.js';
import { buildCatalogView, type CatalogView, type ServerLists } from './catalog-view.js';
import type { JsonObject } from './json.js';
import { fetchAllPages } from './list-pages.js';

export type ListKind = 'tools' | 'prompts' | 'resources';

const ALL_KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources'];

const LIST_CHANGED: Readonly<Record<string, ListKind>> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

export interface CatalogServer {
  readonly upstream: Upstream;
  readonly prefix: string;
}

export class Catalog {
  #view: CatalogView;
  readonly #lists = new Map<string, ServerLists>();
  readonly #refreshes = new Map<string, Promise<void>>();
  readonly #pending = new Map<string, Set<ListKind>>();
  readonly #listeners = new Set<(changed: ReadonlySet<ListKind>) => void>();
  readonly #unsubscribes: (() => void)[] = [];

  constructor(
    private readonly servers: readonly CatalogServer[],
    private readonly separator: string,
    private readonly logger: Logger,
  ) {
    this.#view = buildCatalogView([], separator);
  }

  start(): void {
    for (const { upstream } of this.servers) {
      this.#unsubscribes.push(
        upstream.onStateChange((state) => {
          if (state === 'ready') this.refresh(upstream.name, ALL_KINDS);
          else this.#drop(upstream.name);
        }),
        upstream.onNotification((notification) => this.#onNotification(upstream.name, notification)),
      );
      if (upstream.state === 'ready') this.refresh(upstream.name, ALL_KINDS);
    }
  }

  stop(): void {
    for (const unsubscribe of this.#unsubscribes.splice(0)) unsubscribe();
  }

  get view(): CatalogView {
    return this.#view;
  }

  /**
   * Resolves when no refresh is under way, so a list request made now sees every ready upstream;
   * or after maxWaitMs, so one upstream that is slow to list does not hold up everyone's lists.
   */
  async settled(maxWaitMs = 5_000): Promise<void> {
    const deadline = Date.now() + maxWaitMs;
    while (this.#refreshes.size > 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, remaining)));
      await Promise.race([Promise.all(this.#refreshes.values()), timeout]);
      clearTimeout(timer);
    }
  }

  /** Called for every merged-list change, with the kinds whose merged view changed. */
  onChange(listener: (changed: ReadonlySet<ListKind>) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Refetches the given lists of one server; calls made during a refresh are coalesced. */
  refresh(server: string, kinds: readonly ListKind[]): Promise<void> {
    const pending = this.#pending.get(server) ?? new Set<ListKind>();
    for (const kind of kinds) pending.add(kind);
    this.#pending.set(server, pending);
    const running = this.#refreshes.get(server);
    if (running) return running;
    const refresh = this.#drain(server).finally(() => this.#refreshes.delete(server));
    this.#refreshes.set(server, refresh);
    return refresh;
  }

  async #drain(server: string): Promise<void> {
    for (;;) {
      const kinds = this.#pending.get(server);
      if (!kinds || kinds.size === 0) return;
      this.#pending.delete(server);
      await this.#fetch(server, kinds);
    }
  }

  async #fetch(server: string, kinds: ReadonlySet<ListKind>): Promise<void> {
    const entry = this.servers.find((candidate) => candidate.upstream.name === server);
    if (!entry || entry.upstream.state !== 'ready') return;
    const { upstream } = entry;
    const capabilities = upstream.info?.capabilities ?? {};
    const previous = this.#lists.get(server);
    const next: ServerLists = previous
      ? { ...previous }
      : { server, prefix: entry.prefix, tools: [], prompts: [], resources: [], resourceTemplates: [] };
    try {
      const fetched: { -readonly [K in 'tools' | 'prompts' | 'resources' | 'resourceTemplates']?: ServerLists[K] } = {};
      if (kinds.has('tools') && capabilities.tools) fetched.tools = await fetchAllPages(upstream, 'tools/list', 'tools');
      if (kinds.has('prompts') && capabilities.prompts) fetched.prompts = await fetchAllPages(upstream, 'prompts/list', 'prompts');
      if (kinds.has('resources') && capabilities.resources) {
        fetched.resources = await fetchAllPages(upstream, 'resources/list', 'resources');
        fetched.resourceTemplates = await fetchAllPages(upstream, 'resources/templates/list', 'resourceTemplates');
      }
      if (upstream.state !== 'ready') return;
      this.#lists.set(server, { ...next, ...fetched });
      this.#rebuild();
    } catch (error) {
      // The upstream stays in the catalogue with what it listed before; its next list_changed or
      // reconnect tries again. A list that cannot be fetched must not fail everyone's lists.
      this.logger.warn({ server, err: error instanceof Error ? error.message : String(error) }, 'could not fetch upstream lists');
    }
  }

  #drop(server: string): void {
    if (!this.#lists.delete(server)) return;
    this.#rebuild();
  }

  #onNotification(server: string, notification: UpstreamNotification): void {
    const kind = LIST_CHANGED[notification.method];
    if (kind) void this.refresh(server, [kind]);
  }

  #rebuild(): void {
    const ordered = this.servers
      .map(({ upstream }) => this.#lists.get(upstream.name))
      .filter((lists): lists is ServerLists => lists !== undefined);
    const before = this.#view;
    this.#view = buildCatalogView(ordered, this.separator);
    const changed = changedKinds(before, this.#view);
    if (changed.size === 0) return;
    for (const listener of this.#listeners) listener(changed);
  }
}

function changedKinds(before: CatalogView, after: CatalogView): Set<ListKind> {
  const changed = new Set<ListKind>();
  if (!sameItems(before.tools, after.tools)) changed.add('tools');
  if (!sameItems(before.prompts, after.prompts)) changed.add('prompts');
  if (!sameItems(before.resources, after.resources) || !sameItems(before.resourceTemplates, after.resourceTemplates)) {
    changed.add('resources');
  }
  return changed;
}

function sameItems(before: readonly { item: JsonObject }[], after: readonly { item: JsonObject }[]): boolean {
  if (before.length !== after.length) return false;
  return JSON.stringify(before.map((entry) => entry.item)) === JSON.stringify(after.map((entry) => entry.item));
}
