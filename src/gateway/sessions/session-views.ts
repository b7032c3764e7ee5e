// What each session sees: the shared catalogue, plus the lists of its own connections to
// session-isolated servers, merged in config order, and rebuilt only when either side changed.
import type { Principal } from '../../auth/principal.js';
import type { SessionRecord } from '../../session/store.js';
import type { Catalog } from '../catalogue/catalog.js';
import { buildCatalogView, type CatalogView, type ServerLists } from '../catalogue/catalog-view.js';
import type { IsolatedServers } from '../isolation/isolated-servers.js';
import { toolOverridesOf, type Routing } from '../calls/routing.js';

/** Sessions that expire without DELETE are forgotten in bulk rather than tracked one by one. */
const MAX_CACHED_SESSION_VIEWS = 10_000;

export class SessionViews {
  readonly #views = new Map<string, { shared: CatalogView; own: readonly ServerLists[]; view: CatalogView }>();

  constructor(
    private readonly catalog: Catalog,
    private readonly routing: Routing,
    private readonly isolated: IsolatedServers | undefined,
  ) {}

  /** `principal`: the caller's, for servers with per-user credentials (isolation/isolated-servers.ts, lists). */
  async viewFor(session: SessionRecord, principal?: Principal): Promise<CatalogView> {
    const shared = this.catalog.view;
    if (!this.isolated?.hasAny()) return shared;
    const own = await this.isolated.lists(session, principal);
    const cached = this.#views.get(session.id);
    if (cached && cached.shared === shared && sameItems(cached.own, own)) return cached.view;
    const order = this.routing.servers.map((server) => server.name);
    const lists = [...this.catalog.lists, ...own].sort((a, b) => order.indexOf(a.server) - order.indexOf(b.server));
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
