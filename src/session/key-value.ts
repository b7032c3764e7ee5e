// Small records that must outlive one request and be seen by every replica, for the parts beside
// the sessions: the authorization server's models (clients, grants, codes, tokens, interactions),
// its signing keys, accounts, remembered consents and the state of a sign-in (src/signin/). Memory
// for one replica, the sessions' Redis for many; both behind this interface, which knows strings and
// keys, not OAuth. Callers seal what is a credential before it gets here.

export interface KeyValueStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | undefined>;
  /** Stores a value that expires after `ttlSeconds` (absent: kept until deleted). */
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  /** Stores the value only when the key is absent; true when it was stored. Replicas agree on one winner. */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  /** Reads and deletes in one step: what it returns, no other caller gets (single-use state). */
  take(key: string): Promise<string | undefined>;
  delete(...keys: readonly string[]): Promise<void>;
  /** Adds a member to a set, which then lives at least `ttlSeconds` more. */
  addMember(set: string, member: string, ttlSeconds: number): Promise<void>;
  members(set: string): Promise<readonly string[]>;
  close(): Promise<void>;
}
