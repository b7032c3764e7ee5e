// When the merged catalogue changes, every session hears about it once. A remote upstream's change
// is seen by every replica on its own connection, so only the replica that first records the
// server's new state (Bus.claimChange) announces it, to every session of every replica. A stdio upstream's change happens
// in one replica's own process, so that replica announces it without asking: a claim would also
// swallow the same change repeated (a server that restarts twice within the claim's lifetime).
// When the store does not answer at the moment of a change, the change is kept and announced once
// it does (list-change-queue.ts), by whichever replica then claims it.
import { serverSlug } from '../../config/server-names.js';
import type { Logger } from '../../observe/logger.js';
import type { Bus } from '../../session/bus.js';
import type { SessionStore } from '../../session/store.js';
import type { AccessViews } from '../catalogue/access.js';
import type { Catalog, ListKind } from '../catalogue/catalog.js';
import type { CatalogView } from '../catalogue/catalog-view.js';
import type { EndpointViews } from '../catalogue/endpoint-views.js';
import type { GatewayObserver, ListChangeDeferralOutcome } from '../observer.js';
import { isStoreUnavailable } from '../../session/store-unavailable.js';
import { ListChangeQueue, type PendingChange } from './list-change-queue.js';
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
  const queue = new ListChangeQueue(announce);
  const stopListening = catalog.onChange(({ kinds, seenByAllReplicas, server, before, after }) => {
    for (const [kind, digest] of kinds) queue.add(kind, seenByAllReplicas && server !== undefined ? server : undefined, digest, before, after);
  });
  return () => {
    stopListening();
    queue.stop();
  };

  /** True when done with the change (announced, another replica's to announce, or failed for good); false to keep it. */
  async function announce(change: PendingChange): Promise<boolean> {
    const { kind, server, before, after } = change;
    const method = `notifications/${kind}/list_changed`;
    try {
      // Changes chained during an outage may have come back to where they started: nothing to tell.
      if (change.deferred && listJson(before, kind) === listJson(after, kind)) return settle(change, 'announced');
      if (server !== undefined && !change.claimed) {
        // Keyed by the slug: a Redis key in a plain alphabet whatever the name ("My Notes"), unique per enabled server.
        const state = `${change.digest.before}.${change.digest.after}`;
        if (!(await bus.claimChange(`list_changed:${kind}:${serverSlug(server)}`, state, CLAIM_SECONDS, change.claimant))) return settle(change, 'other-replica');
        change.claimed = true;
      }
      if (!change.listensTold) {
        await toListeners?.(kind, before, after);
        change.listensTold = true;
      }
      // Once per session across retries: a retry may follow an enqueue that half ran or ran unanswered.
      const sessions = await outbox.toSessions(await recipients(kind, before, after), { jsonrpc: '2.0', method }, change.claimant);
      observer.onNotificationForwarded({ method, sessions });
      return settle(change, 'announced');
    } catch (error) {
      const err = error instanceof Error ? error.message : String(error);
      if (!isStoreUnavailable(error)) {
        logger.warn({ method, err }, 'could not announce a list change');
        return settle(change, 'failed');
      }
      if (!change.deferred) {
        change.deferred = true;
        observer.onListChangeDeferral({ outcome: 'deferred' });
        logger.warn({ method, err }, 'a list change waits for the session store: it is announced once the store answers');
      }
      return false;
    }
  }

  /** Counts how a deferred change ended, and every change that failed (a change announced at once is no deferral). */
  function settle(change: PendingChange, outcome: Exclude<ListChangeDeferralOutcome, 'deferred'>): true {
    if (!change.deferred && outcome !== 'failed') return true;
    observer.onListChangeDeferral({ outcome });
    if (change.deferred && outcome !== 'failed') {
      const by = outcome === 'announced' ? 'this replica' : 'another replica';
      logger.info({ method: `notifications/${change.kind}/list_changed`, by }, 'a list change kept while the session store did not answer was announced');
    }
    return true;
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
