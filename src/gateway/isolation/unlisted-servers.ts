// Servers with per-user credentials whose lists a caller could not have: no credential of their
// own, an identity provider or upstream that is down, an upstream that refused the credential.
// Without a credential and with whenMissing: hide, the server is simply not there for them.
// Otherwise they see the server's last lists on this replica (whoever fetched them), and a call
// under its prefix gets the reason instead of "unknown tool" (explain).
import { isMissingCredential } from './caller-credentials.js';
import type { ServerLists } from '../catalogue/catalog-view.js';
import type { IsolatedServer } from './isolated-servers.js';

/** Callers' reasons kept for explain(); past this many, the oldest go all at once. */
const MAX_REASONS = 10_000;

/**
 * The last lists of each server, kept where every replica finds them (the store): on a replica
 * that has made no connection to the server yet, or after a restart, a caller who cannot list it
 * still sees its tools, and so can call one and be told what they need (a connection of their own).
 */
export interface ListsShelf {
  load(server: string): Promise<ServerLists | undefined>;
  save(server: string, lists: ServerLists): Promise<void>;
}

export class UnlistedServers {
  /** Per server: the lists its last session connection here got. */
  readonly #lastLists = new Map<string, Promise<ServerLists>>();
  /** Per session and server: why the caller's lists could not be had. */
  readonly #reasons = new Map<string, Error>();

  constructor(private readonly shelf?: ListsShelf) {}

  /** A connection of a server with per-user credentials fetched its lists. */
  fetched(server: string, lists: Promise<ServerLists>): void {
    this.#lastLists.set(server, lists);
    if (this.shelf) {
      const shelf = this.shelf;
      // Kept for the others in the background: a store that does not answer costs the lists nothing.
      lists.then((fetched) => shelf.save(server, fetched)).catch(() => {});
    }
  }

  /** The caller's lists of the server were had: no reason to give any more. */
  listed(sessionId: string, server: string): void {
    // Asked for every isolated server on every request: no key is made while nothing failed.
    if (this.#reasons.size > 0) this.#reasons.delete(reasonKey(sessionId, server));
  }

  /** The caller's lists of the server could not be had: what they see of it instead, if anything. */
  async failed(sessionId: string, server: IsolatedServer, error: unknown): Promise<ServerLists | undefined> {
    if (isMissingCredential(error) && server.credentials?.whenMissing === 'hide') return undefined;
    // An outage is told once per spell by the caller (left-out-servers.ts), not once per request here.
    if (this.#reasons.size >= MAX_REASONS) this.#reasons.clear();
    this.#reasons.set(reasonKey(sessionId, server.name), error instanceof Error ? error : new Error(String(error)));
    const here = await this.#lastLists.get(server.name)?.catch(() => undefined);
    if (here !== undefined || !this.shelf) return here;
    const kept = await this.shelf.load(server.name).catch(() => undefined);
    if (kept === undefined) return undefined;
    // The server's prefix may have changed since they were kept: they are shown under today's.
    const lists = { ...kept, server: server.name, prefix: server.prefix };
    // Read once here: a connection's own lists replace them when one is made.
    if (!this.#lastLists.has(server.name)) this.#lastLists.set(server.name, Promise.resolve(lists));
    return lists;
  }

  /**
   * The caller's lists of the server did not come within the list's bound: it is left out for now
   * (the connection goes on), and a call under its prefix is told why rather than "unknown tool".
   */
  late(sessionId: string, server: IsolatedServer, why: Error): void {
    if (!server.credentials) return;
    if (this.#reasons.size >= MAX_REASONS) this.#reasons.clear();
    this.#reasons.set(reasonKey(sessionId, server.name), why);
  }

  /**
   * Why a tool or prompt the caller named is not in their view, when its prefix is that of a
   * server with per-user credentials they could not list. Not for what `allows` (policy, the
   * endpoint) hides from them: that stays unknown.
   */
  explain(
    sessionId: string,
    name: string,
    separator: string,
    servers: readonly IsolatedServer[],
    allows: (server: string, name: string) => boolean,
  ): Error | undefined {
    if (this.#reasons.size === 0) return undefined;
    for (const server of servers) {
      if (!server.credentials || server.prefix === '' || !name.startsWith(`${server.prefix}${separator}`)) continue;
      const why = this.#reasons.get(reasonKey(sessionId, server.name));
      if (why && allows(server.name, name.slice(server.prefix.length + separator.length))) return why;
    }
    return undefined;
  }
}

function reasonKey(sessionId: string, server: string): string {
  return `${sessionId}\u0000${server}`;
}
