// Endpoints as the gateway sees them: a named endpoint offers the merged catalogue cut down to its
// selection, exactly as policy cuts it (filter-view.ts), and policy then applies inside that. The
// default endpoint (server.path), whose callers carry no endpoint name, sees the catalogue whole
// and pays nothing here. Views are filtered once per catalogue view and endpoint, then reused.
import type { CatalogView } from './catalog-view.js';
import { filterCatalogView, type ItemFilter } from './filter-view.js';

const SELECTS_NOTHING: ItemFilter = () => false;

export class EndpointViews {
  /** Keyed by the catalogue's view object: a new merge is a new object, and the old entries go with it. */
  readonly #filtered = new WeakMap<CatalogView, Map<string, CatalogView>>();

  /** `selections`: each configured endpoint's name and what it selects. */
  constructor(private readonly selections: ReadonlyMap<string, ItemFilter> = new Map()) {}

  /** Whether any endpoint besides the default one is configured. */
  get any(): boolean {
    return this.selections.size > 0;
  }

  /** What an endpoint offers of `full`; undefined is the default endpoint, which offers all of it. */
  /** Whether the endpoint offers the item (the default endpoint offers everything). */
  selects(endpoint: string | undefined, server: string, name: string): boolean {
    if (endpoint === undefined) return true;
    return (this.selections.get(endpoint) ?? SELECTS_NOTHING)(server, name);
  }

  view(full: CatalogView, endpoint: string | undefined): CatalogView {
    if (endpoint === undefined) return full;
    let byEndpoint = this.#filtered.get(full);
    if (!byEndpoint) {
      byEndpoint = new Map();
      this.#filtered.set(full, byEndpoint);
    }
    let view = byEndpoint.get(endpoint);
    if (!view) {
      // A name no endpoint has (a session record from a replica with another config) sees nothing.
      view = filterCatalogView(full, this.selections.get(endpoint) ?? SELECTS_NOTHING);
      byEndpoint.set(endpoint, view);
    }
    return view;
  }
}
