// Where exchanged tokens wait until they are due for renewal, one per (caller, server). The seam
// between the exchange source and where tokens live: in this process (memory-token-cache.ts) or
// shared by the replicas (redis-token-cache.ts), so a caller's token is exchanged once per
// deployment rather than once per replica.

export interface CachedToken {
  readonly token: string;
  /** When the token is due for renewal (ms since the epoch): no cache hands it out after that. */
  readonly expiresAt: number;
}

export interface TokenCache {
  /** The token stored under `key`, unless it is due; a cache that cannot answer says so by throwing. */
  get(key: string): Promise<CachedToken | undefined>;
  /** Stores `token` under `key` until `expiresAt`; one already due is not stored. */
  set(key: string, token: string, expiresAt: number): Promise<void>;
}
