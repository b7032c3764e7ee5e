// The catalogue cache: each upstream's lists, fetched whole when it connects and again when it
// says a list changed, merged into one CatalogView. Sessions read the view; nothing on the request
// path waits for an upstream's list unless a refresh is already under way.
import { createHash } from 'node:crypto';
import type { Logger } from '../../observe/logger.js';
import type { Upstream, UpstreamNotification } from '../../upstream/types.js';
import { hasOwnToolTasks, markGatewayRunTools } from '../tasks/gateway-run-tools.js';
import { buildCatalogView, type CatalogView, type ServerLists } from './catalog-view.js';
import type { JsonObject } from '../../protocol/json.js';
import { fetchAllPages } from './list-pages.js';
import type { Naming } from './namespace.js';
import type { ToolGate } from './tool-gate.js';
import { unmatchedOverrides, type ToolOverrides } from './tool-overrides.js';

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
  /**
   * True for a remote (HTTP) server, which every replica reaches and sees change at once; false
   * for a stdio server, of which each replica runs its own process that changes alone.
   */
  readonly seenByAllReplicas: boolean;
  /** How its tools are shown (config `tools`), by the upstream's own tool name. */
  readonly tools?: ToolOverrides | undefined;
}

/** What changed in the merged view, and whether other replicas saw the same change. */
export interface CatalogChange {
  /**
   * Each changed kind, with digests of the causing server's lists of that kind before and after
   * (empty when no one server caused it): changes kept through an outage chain into one, from the
   * first's before to the last's after, which every replica that saw them computes alike.
   */
  readonly kinds: ReadonlyMap<ListKind, ChangeDigest>;
  readonly seenByAllReplicas: boolean;
  /** The server whose lists changed, when one did (not a reconfiguration). */
  readonly server?: string;
  /** The merged views before and after: sessions filtered by policy compare their own parts. */
  readonly before: CatalogView;
  readonly after: CatalogView;
}

/** A server's lists of one kind, as a digest: before and after a change. */
export interface ChangeDigest {
  readonly before: string;
  readonly after: string;
}

export class Catalog {
  #view: CatalogView;
  readonly #lists = new Map<string, ServerLists>();
  readonly #refreshes = new Map<string, Promise<void>>();
  readonly #pending = new Map<string, Set<ListKind>>();
  readonly #listeners = new Set<(change: CatalogChange) => void>();
  /** What to undo when a server leaves: its listeners on the upstream. */
  readonly #detach = new Map<Upstream, () => void>();
  /** Overrides already reported as naming a tool their upstream does not list (server, name). */
  readonly #unmatchedReported = new Set<string>();
  #servers: readonly CatalogServer[];
  #naming: Naming;
  #started = false;

  constructor(
    servers: readonly CatalogServer[],
    naming: Naming,
    private readonly logger: Logger,
    /** Withholds tools (pinned definitions); it reads its own settings, so a reload that changes them calls reconfigure. */
    readonly gate?: ToolGate,
    /** tasks.gatewayTasks: the tools of servers without tasks are listed as ones the gateway runs as tasks (tasks/gateway-run-tools.ts). */
    private readonly gatewayTasks = false,
  ) {
    this.#servers = servers;
    this.#naming = naming;
    this.#view = buildCatalogView([], naming);
  }

  private get servers(): readonly CatalogServer[] {
    return this.#servers;
  }

  private get naming(): Naming {
    return this.#naming;
  }

  start(): void {
    this.#started = true;
    for (const server of this.#servers) this.#attach(server);
  }

  stop(): void {
    this.#started = false;
    for (const detach of this.#detach.values()) detach();
    this.#detach.clear();
  }

  /**
   * A reload changed the servers (or their prefixes, tool overrides, the naming, or what the
   * gate withholds): servers that left are dropped, new ones are listed, and the merged view is
   * rebuilt from the lists already fetched, which announces any change.
   */
  reconfigure(servers: readonly CatalogServer[], naming: Naming): void {
    const kept = new Set(servers.map((server) => server.upstream));
    for (const [upstream, detach] of this.#detach) {
      if (kept.has(upstream)) continue;
      detach();
      this.#detach.delete(upstream);
      this.#lists.delete(upstream.name);
      this.gate?.observe(upstream.name, undefined);
    }
    this.#servers = servers;
    this.#naming = naming;
    for (const server of servers) {
      const lists = this.#lists.get(server.upstream.name);
      if (lists && lists.prefix !== server.prefix) this.#lists.set(server.upstream.name, { ...lists, prefix: server.prefix });
      if (this.#started && !this.#detach.has(server.upstream)) this.#attach(server);
    }
    this.#rebuild();
  }

  #attach({ upstream }: CatalogServer): void {
    const offState = upstream.onStateChange((state) => {
      if (state === 'ready') this.refresh(upstream.name, ALL_KINDS);
      else this.#drop(upstream.name);
    });
    const offNotification = upstream.onNotification((notification) => this.#onNotification(upstream.name, notification));
    this.#detach.set(upstream, () => {
      offState();
      offNotification();
    });
    if (upstream.state === 'ready') this.refresh(upstream.name, ALL_KINDS);
  }

  get view(): CatalogView {
    return this.#view;
  }

  /** The lists behind the view, in config order: a session's own lists are merged with these. */
  get lists(): readonly ServerLists[] {
    return this.servers
      .map(({ upstream }) => this.#withGatewayRuns(upstream, this.#lists.get(upstream.name)))
      .filter((lists): lists is ServerLists => lists !== undefined);
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

  /**
   * Called for every merged-list change, with the kinds whose merged view changed, each with a
   * digest of the change (before and after): every replica that sees the same change computes the
   * same digest, which is how only one of them announces it.
   */
  onChange(listener: (change: CatalogChange) => void): () => void {
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
      const updated = { ...next, ...fetched };
      this.#lists.set(server, updated);
      this.#rebuild({ server, before: previous, after: updated });
    } catch (error) {
      // The upstream stays in the catalogue with what it listed before; its next list_changed or
      // reconnect tries again. A list that cannot be fetched must not fail everyone's lists.
      this.logger.warn({ server, err: error instanceof Error ? error.message : String(error) }, 'could not fetch upstream lists');
    }
  }

  /** A server's lists as listed: with gateway tasks on and no tasks of its own, its tools say they may run as tasks. */
  #withGatewayRuns(upstream: Upstream, lists: ServerLists | undefined): ServerLists | undefined {
    if (!this.gatewayTasks || !lists || hasOwnToolTasks(upstream.info?.capabilities ?? {})) return lists;
    return { ...lists, tools: markGatewayRunTools(lists.tools) };
  }

  #drop(server: string): void {
    const before = this.#lists.get(server);
    if (!before || !this.#lists.delete(server)) return;
    this.#rebuild({ server, before, after: undefined });
  }

  #onNotification(server: string, notification: UpstreamNotification): void {
    const kind = LIST_CHANGED[notification.method];
    if (kind) void this.refresh(server, [kind]);
  }

  /**
   * Rebuilds the merged view. `cause` is the server whose lists changed, if one did: the digest of
   * its own lists before and after is what every replica that sees the same upstream change
   * computes, whatever else its catalogue went through in between.
   */
  #rebuild(cause?: { server: string; before: ServerLists | undefined; after: ServerLists | undefined }): void {
    const ordered = this.servers
      .map(({ upstream }) => this.#withGatewayRuns(upstream, this.#lists.get(upstream.name)))
      .filter((lists): lists is ServerLists => lists !== undefined);
    const before = this.#view;
    const toolOverrides = new Map(this.servers.flatMap(({ upstream, tools }) => (tools ? [[upstream.name, tools] as const] : [])));
    for (const { upstream } of this.servers) this.gate?.observe(upstream.name, this.#lists.get(upstream.name)?.tools);
    this.#view = buildCatalogView(ordered, this.naming, toolOverrides, this.gate);
    this.#reportUnmatched(ordered, toolOverrides);
    const changed = changedKinds(before, this.#view);
    if (changed.length === 0) return;
    const kinds = new Map(
      changed.map((kind): [ListKind, ChangeDigest] => [
        kind,
        cause ? { before: listsDigest(cause.server, kind, cause.before), after: listsDigest(cause.server, kind, cause.after) } : { before: '', after: '' },
      ]),
    );
    const seenByAllReplicas = cause !== undefined && (this.servers.find((server) => server.upstream.name === cause.server)?.seenByAllReplicas ?? false);
    for (const listener of this.#listeners) listener({ kinds, seenByAllReplicas, ...(cause && { server: cause.server }), before, after: this.#view });
  }

  /**
   * An override of a tool the upstream does not list is no config error (lists change, and a tool
   * may come later), but it may be a typo: said once per server and name, at warn.
   */
  #reportUnmatched(lists: readonly ServerLists[], toolOverrides: ReadonlyMap<string, ToolOverrides>): void {
    for (const { server, tools } of lists) {
      const overrides = toolOverrides.get(server);
      if (!overrides) continue;
      for (const tool of unmatchedOverrides(tools, overrides)) {
        const key = `${server}\u0000${tool}`;
        if (this.#unmatchedReported.has(key)) continue;
        this.#unmatchedReported.add(key);
        this.logger.warn({ server, tool }, 'a tool override names a tool the upstream does not list (yet); it applies once the upstream lists it');
      }
    }
  }
}

function changedKinds(before: CatalogView, after: CatalogView): ListKind[] {
  const changed: ListKind[] = [];
  if (itemsJson(before.tools) !== itemsJson(after.tools)) changed.push('tools');
  if (itemsJson(before.prompts) !== itemsJson(after.prompts)) changed.push('prompts');
  if (itemsJson(before.resources) + itemsJson(before.resourceTemplates) !== itemsJson(after.resources) + itemsJson(after.resourceTemplates)) {
    changed.push('resources');
  }
  return changed;
}

/** A digest of one server's lists of one kind. */
function listsDigest(server: string, kind: ListKind, lists: ServerLists | undefined): string {
  const ofKind = JSON.stringify(lists ? (kind === 'resources' ? [lists.resources, lists.resourceTemplates] : lists[kind]) : null);
  return createHash('sha256').update(server).update('\u0000').update(ofKind).digest('base64url');
}

function itemsJson(entries: readonly { item: JsonObject }[]): string {
  return JSON.stringify(entries.map((entry) => entry.item));
}
