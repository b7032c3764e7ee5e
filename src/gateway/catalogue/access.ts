// Access control as the gateway sees it: each principal gets the catalogue view its policy allows
// (filtered once per view and set of decisions, then reused), and a request refused that way is
// marked "denied" for metrics and the audit trail, while the client gets the unknown-item error.
import type { Principal } from '../../auth/principal.js';
import type { CatalogView, ExposedNamedItem } from './catalog-view.js';
import { ERRORS } from '../../protocol/error-catalogue.js';
import { RpcError } from '../errors.js';
import { filterCatalogView } from './filter-view.js';
import { toolsByUpstreamName } from './upstream-names.js';
import type { RequestTrace } from '../handlers/handler-context.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { routeTemplateRef, routeUri, type Routing } from '../calls/routing.js';

/** What one principal may reach; `key` is equal for principals with equal decisions. */
export interface PrincipalAccess {
  readonly key: string;
  allows(server: string, name: string): boolean;
}

export interface AccessPolicy {
  accessFor(principal: Principal | undefined): PrincipalAccess;
  /** The decisions behind a key that accessFor gave (kept in the session record). */
  accessForKey(key: string): PrincipalAccess;
}

/** How many differently filtered views of one catalogue view are kept (distinct rule sets). */
const MAX_VIEWS_PER_CATALOG = 256;

export class AccessViews {
  /** Keyed by the catalogue's view object: a new merge is a new object, and the old entry goes with it. */
  readonly #filtered = new WeakMap<CatalogView, Map<string, CatalogView>>();

  constructor(private readonly policy: AccessPolicy | undefined) {}

  /** Whether a policy applies at all (without one, every session sees the full view). */
  get active(): boolean {
    return this.policy !== undefined;
  }

  /** The key of the principal's decisions; undefined without a policy. */
  keyFor(principal: Principal | undefined): string | undefined {
    return this.policy?.accessFor(principal).key;
  }

  /** The view a session with this decision key sees. */
  viewForKey(full: CatalogView, key: string): CatalogView {
    if (!this.policy) return full;
    return this.#filter(full, this.policy.accessForKey(key));
  }

  /** Whether the principal's policy lets them reach the item (no policy: yes). */
  allows(principal: Principal | undefined, server: string, name: string): boolean {
    return !this.policy || this.policy.accessFor(principal).allows(server, name);
  }

  view(full: CatalogView, principal: Principal | undefined): CatalogView {
    if (!this.policy) return full;
    return this.#filter(full, this.policy.accessFor(principal));
  }

  #filter(full: CatalogView, access: PrincipalAccess): CatalogView {
    let byKey = this.#filtered.get(full);
    if (!byKey) {
      byKey = new Map();
      this.#filtered.set(full, byKey);
    }
    let view = byKey.get(access.key);
    if (!view) {
      view = filterCatalogView(full, (server, name) => access.allows(server, name));
      if (byKey.size >= MAX_VIEWS_PER_CATALOG) byKey.clear();
      byKey.set(access.key, view);
    }
    return view;
  }

  /**
   * After a request failed: when the error is the unknown-item one and the item exists in the full
   * view but policy hides it, the trace says so (and names the item) for the audit line.
   */
  noteDenial(
    error: unknown,
    full: CatalogView,
    routing: Routing,
    principal: Principal | undefined,
    method: string,
    params: JsonObject,
    trace: RequestTrace,
  ): void {
    if (!this.policy || !(error instanceof RpcError)) return;
    if (error.code !== ERRORS.InvalidParams.code && error.code !== ERRORS.ResourceNotFound.code) return;
    const access = this.policy.accessFor(principal);
    const item = namedItem(full, routing, method, params);
    if (item && !access.allows(item.server, item.name)) Object.assign(trace, item, { denied: true });
  }
}

/** The item a request names, looked up in the full view; undefined when it names none that exists. */
function namedItem(full: CatalogView, routing: Routing, method: string, params: JsonObject): { server: string; name: string } | undefined {
  const lookup = (find: () => { server: string; name: string } | undefined) => {
    try {
      return find();
    } catch {
      return undefined;
    }
  };
  switch (method) {
    case 'tools/call':
      return typeof params.name === 'string' ? serverAndName(full.toolsByName.get(params.name) ?? byUpstreamName(full, params.name)) : undefined;
    case 'prompts/get':
      return typeof params.name === 'string' ? serverAndName(full.promptsByName.get(params.name)) : undefined;
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe': {
      const uri = params.uri;
      if (typeof uri !== 'string') return undefined;
      return lookup(() => {
        const target = routeUri(full, routing, uri);
        return { server: target.server, name: target.uri };
      });
    }
    case 'completion/complete': {
      const ref = params.ref;
      if (!isJsonObject(ref)) return undefined;
      if (ref.type === 'ref/prompt' && typeof ref.name === 'string') return serverAndName(full.promptsByName.get(ref.name));
      const uri = ref.uri;
      if (ref.type === 'ref/resource' && typeof uri === 'string') {
        return lookup(() => {
          const target = routeTemplateRef(full, routing, uri);
          return { server: target.server, name: target.uri };
        });
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** A tool called by its upstream's own name (an MCP App's call), when one server of the full view has it. */
function byUpstreamName(full: CatalogView, name: string): ExposedNamedItem | undefined {
  const owners = toolsByUpstreamName(full.tools, name);
  return owners.length === 1 ? owners[0] : undefined;
}

function serverAndName(item: ExposedNamedItem | undefined): { server: string; name: string } | undefined {
  return item && { server: item.server, name: item.name };
}
