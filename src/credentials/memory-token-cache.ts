// Exchanged tokens in this process: for one replica, or the memory session store. Entries die when
// they are due (checked on read) and the map is bounded, so callers who come once and never again
// cannot grow it without end.
import type { CachedToken, TokenCache } from './token-cache.js';

export interface MemoryTokenCacheOptions {
  /** Most tokens kept; past it the due ones go, then the oldest. Default 10,000. */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

export class MemoryTokenCache implements TokenCache {
  readonly #entries = new Map<string, CachedToken>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor({ maxEntries = 10_000, now = Date.now }: MemoryTokenCacheOptions = {}) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries must be a positive integer, not ${maxEntries}`);
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  get(key: string): Promise<CachedToken | undefined> {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.expiresAt > this.#now()) return Promise.resolve(entry);
    this.#entries.delete(key);
    return Promise.resolve(undefined);
  }

  set(key: string, token: string, expiresAt: number): Promise<void> {
    this.#entries.delete(key);
    if (expiresAt > this.#now()) {
      this.#entries.set(key, { token, expiresAt });
      if (this.#entries.size > this.#maxEntries) this.#evict();
    }
    return Promise.resolve();
  }

  /**
   * Due entries first (a sweep that only runs when the map is full); then the oldest written, down
   * to 90% of the bound, so a full map of live tokens is swept once per many sets, not on each.
   */
  #evict(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
    const target = Math.min(this.#maxEntries - 1, Math.floor(this.#maxEntries * 0.9));
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= target) break;
      this.#entries.delete(key);
    }
  }
}
