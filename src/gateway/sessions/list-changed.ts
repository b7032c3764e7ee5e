// When the merged catalogue changes, every session hears about it once. A remote upstream's change
// is seen by every replica on its own connection, so only the replica that first records the
// server's new state (Bus.claimChange) announces it, to every session of every replica. A stdio upstream's change happens
// in one replica's own process, so that replica announces it without asking: a claim would also
// swallow the same change repeated (a server that restarts twice within the claim's lifetime).
import { serverSlug } from '../../config/server-names.js';
import type { Logger } from '../../observe/logger.js';
import type { Bus } from '../../session/bus.js';
import type { SessionStore } from '../../session/store.js';
import type { AccessViews } from '../catalogue/access.js';
import type { Catalog, ListKind } from '../catalogue/catalog.js';
import type { CatalogView } from '../catalogue/catalog-view.js';
import type { EndpointViews } from '../catalogue/endpoint-views.js';
import type { GatewayObserver } from '../observer.js';
import { clientSessionIds, type SessionOutbox } from './session-outbox.js';

/**
 * How long a replica's claim of a change holds: every replica sees the same change within it. A
 * repeat of a state is still announced (the claim records the state, see Bus.claimChange).
 */
const CLAIM_SECONDS = 60;

/**
 * Which sessions a change of `kind` concerns: every session, or, under a policy, those whose own
 * filtered view of that kind changed.
 */
export type ListChangeRecipients = (kind: ListKind, before: CatalogView, after: CatalogView) => Promise<readonly string[]>;

export function announceListChanges(
  catalog: Catalog,
  bus: Bus,
  outbox: SessionOutbox,
  recipients: ListChangeRecipients,
  observer: Required<GatewayObserver>,
  logger: Logger,
  /** Also told of each change this replica announces: the 2026 listens of every replica (modern/listens.ts). */
  toListeners?: (kind: ListKind, before: CatalogView, after: CatalogView) => Promise<void>,
): () => void {
  return catalog.onChange(({ kinds, seenByAllReplicas, server, before, after }) => {
    for (const [kind, digest] of kinds) void announce(kind, seenByAllReplicas && server !== undefined ? { server, digest } : undefined, before, after);
  });

  async function announce(kind: ListKind, claim: { server: string; digest: string } | undefined, before: CatalogView, after: CatalogView): Promise<void> {
    const method = `notifications/${kind}/list_changed`;
    try {
      // Keyed by the slug: a Redis key in a plain alphabet whatever the name ("My Notes"), unique per enabled server.
      if (claim && !(await bus.claimChange(`list_changed:${kind}:${serverSlug(claim.server)}`, claim.digest, CLAIM_SECONDS))) return;
      await toListeners?.(kind, before, after);
      const sessions = await outbox.toSessions(await recipients(kind, before, after), { jsonrpc: '2.0', method });
      observer.onNotificationForwarded({ method, sessions });
    } catch (error) {
      logger.warn({ method, err: error instanceof Error ? error.message : String(error) }, 'could not announce a list change');
    }
  }
}

/**
 * Every session, or under a policy or with endpoints configured only those whose own view of the
 * changed kind differs: a change outside an endpoint's selection is not announced on it.
 */
export function policyRecipients(store: SessionStore, access: AccessViews, endpoints: EndpointViews): ListChangeRecipients {
  return async (kind, before, after) => {
    const ids = await clientSessionIds(store);
    if (!access.active && !endpoints.any) return ids;
    const records = await store.peekMany(ids);
    const anonymous = access.keyFor(undefined) ?? '';
    const changedFor = new Map<string, boolean>();
    return ids.filter((_id, index) => {
      const record = records[index];
      const endpoint = record?.endpoint;
      const key = record?.accessKey ?? anonymous;
      // Endpoint names are never empty, so "" stands for the default endpoint.
      const viewKey = `${endpoint ?? ''}\u0000${key}`;
      let changed = changedFor.get(viewKey);
      if (changed === undefined) {
        const seen = (view: CatalogView) => access.viewForKey(endpoints.view(view, endpoint), key);
        changed = listJson(seen(before), kind) !== listJson(seen(after), kind);
        changedFor.set(viewKey, changed);
      }
      return changed;
    });
  };
}

/** One kind of a view's lists, as the client sees them, for comparing two views. */
function listJson(view: CatalogView, kind: ListKind): string {
  const entries = kind === 'tools' ? view.tools : kind === 'prompts' ? view.prompts : [...view.resources, ...view.resourceTemplates];
  return JSON.stringify(entries.map((entry) => entry.item));
}
