// What each session sees: the shared catalogue, plus the lists of its own connections to
// session-isolated servers, merged in config order, and rebuilt only when either side changed.
import type { Principal } from '../../auth/principal.js';
import type { SessionRecord } from '../../session/store.js';
import type { Catalog } from '../catalogue/catalog.js';
import { buildCatalogView, type CatalogView, type ServerLists } from '../catalogue/catalog-view.js';
import type { IsolatedServers } from '../isolation/isolated-servers.js';
import { toolOverridesOf, type Routing } from '../calls/routing.js';
import type { NeededServers } from '../isolation/needed-servers.js';
import type { SpanParent } from '../../observe/tracing/tracing.js';

/** Sessions that expire without DELETE are forgotten in bulk rather than tracked one by one. */
const MAX_CACHED_SESSION_VIEWS = 10_000;

export class SessionViews {
  readonly #views = new Map<string, { shared: CatalogView; own: readonly ServerLists[]; view: CatalogView }>();

  constructor(
    private readonly catalog: Catalog,
    private readonly routing: Routing,
    private readonly isolated: IsolatedServers | undefined,
  ) {}

  /**
   * `principal`: the caller's, for servers with per-user credentials; `needed`: the isolated servers
   * the request must list (isolation/needed-servers.ts, isolation/isolated-servers.ts lists).
   */
  async viewFor(session: SessionRecord, principal?: Principal, needed: NeededServers = 'all', span?: SpanParent): Promise<CatalogView> {
    const shared = this.catalog.view;
    if (!this.isolated?.hasAny() || (needed !== 'all' && needed.length === 0)) return shared;
    const listed = await this.isolated.lists(session, principal, needed, span);
    const cached = this.#views.get(session.id);
    const usable = cached?.shared === shared ? cached : undefined;
    const order = this.routing.servers.map((server) => server.name);
    const byOrder = (a: ServerLists, b: ServerLists) => order.indexOf(a.server) - order.indexOf(b.server);
    // A request that listed only some servers keeps what the session's view had of the others.
    const own = needed === 'all' || !usable ? listed : [...usable.own.filter((lists) => !needed.includes(lists.server)), ...listed].sort(byOrder);
    if (usable && sameItems(usable.own, own)) return usable.view;
    if (own.length === 0) return shared;
    const lists = [...this.catalog.lists, ...own].sort(byOrder);
    // A reload that changes overrides or pins also rebuilds the shared view, so the cache above misses then.
    const gate = this.catalog.gate;
    for (const { server, tools } of own) gate?.observe(server, tools);
    const view = buildCatalogView(lists, this.routing, toolOverridesOf(this.routing), gate);
    if (this.#views.size > MAX_CACHED_SESSION_VIEWS) this.#views.clear();
    this.#views.set(session.id, { shared, own, view });
    return view;
  }

  forget(sessionId: string): void {
    this.#views.delete(sessionId);
  }
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
