// Resource subscriptions on shared upstream connections are reference-counted: the upstream is
// subscribed when the first session asks and unsubscribed when the last one lets go, so one
// session's unsubscribe never silences another's updates.
import { serverItemKey } from '../catalogue/catalog-view.js';

export class SubscriptionCounter {
  readonly #holders = new Map<string, Set<string>>();

  /** Records the session's interest; true when it is the first, i.e. the upstream must be asked. */
  retain(server: string, uri: string, sessionId: string): boolean {
    const key = serverItemKey(server, uri);
    const holders = this.#holders.get(key) ?? new Set<string>();
    const first = holders.size === 0;
    holders.add(sessionId);
    this.#holders.set(key, holders);
    return first;
  }

  /** Drops the session's interest; true when nobody is left, i.e. the upstream may be told. */
  release(server: string, uri: string, sessionId: string): boolean {
    const key = serverItemKey(server, uri);
    const holders = this.#holders.get(key);
    if (!holders?.delete(sessionId)) return false;
    if (holders.size > 0) return false;
    this.#holders.delete(key);
    return true;
  }

  /** The sessions (of this replica) subscribed to one upstream URI. */
  holders(server: string, uri: string): string[] {
    return [...(this.#holders.get(serverItemKey(server, uri)) ?? [])];
  }

  /** Every (server, uri) whose last holder was this session, after dropping all its interests. */
  releaseAll(sessionId: string): { server: string; uri: string }[] {
    const released: { server: string; uri: string }[] = [];
    for (const [key, holders] of this.#holders) {
      if (!holders.delete(sessionId) || holders.size > 0) continue;
      this.#holders.delete(key);
      const [server = '', uri = ''] = key.split('\u0000');
      released.push({ server, uri });
    }
    return released;
  }
}
