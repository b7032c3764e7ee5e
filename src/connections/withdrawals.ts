// Which people disconnected which server, and when, on every replica: a session that already holds a
// person's upstream token checks here before each request, so the call after a disconnect asks the
// person again rather than use a token the provider has revoked (an upstream that verifies its
// tokens' signatures itself would still take it). The replica where the person disconnected notes it
// at once; the others hear of it over the bus. People are known by a digest of (server, sub), the
// same one the store's refresh lock uses.
import { digest } from './connection-records.js';

/** The bus topic (session/bus.ts) that carries a disconnect to every replica. */
export const WITHDRAWN_TOPIC = 'connection-withdrawn';

/** Kept this long: longer than any credential is reused without asking (credentials/connection-source.ts). */
const REMEMBER_MS = 10 * 60_000;

export class ConnectionWithdrawals {
  readonly #at = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  static key(server: string, sub: string): string {
    return digest(`${server}\n${sub}`);
  }

  /** The person's connection to the server was withdrawn now (a disconnect here or on another replica). */
  note(key: string): void {
    const now = this.now();
    this.#at.set(key, now);
    for (const [known, at] of this.#at) if (now - at > REMEMBER_MS) this.#at.delete(known);
  }

  /** Whether the person disconnected the server at or after `since` (ms since the epoch). */
  since(server: string, sub: string, since: number): boolean {
    const at = this.#at.get(ConnectionWithdrawals.key(server, sub));
    return at !== undefined && at >= since;
  }
}
