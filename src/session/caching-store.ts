// A replica-local copy of the sessions in use, in front of a shared store (Redis), so that a
// session's requests do not each pay a round trip and a parse to read a record that rarely
// changes. Every 2025 request reads its session; on Redis that read was a fifth of the gateway's
// throughput (docs/decisions/0011-session-cache-per-replica.md).
//
// What keeps the copies right:
// - a change made through any replica (update, delete) is announced on the change feed before the
//   call returns, and every replica drops its copy on hearing it (session-changes.ts);
// - a copy is served for at most `freshMs` after it was read; the next read goes to the store,
//   which also slides the session's idle timeout there (so a session in use here never expires
//   there). That bounds what a lost announcement (a feed reconnect drops every copy too) or an
//   expiry on the store's side can cost: `freshMs` of a stale record;
// - a read that was in flight when an announcement for its session came is not kept, since it may
//   have read the record from before the change.
// Copies are frozen, shared by every request of the session, and swept once they are stale, so
// idle sessions cost this replica nothing.
import { TransientMap } from '../support/transient-map.js';
import { deepFreeze } from './deep-freeze.js';
import type { SessionChangeFeed } from './session-changes.js';
import type { SessionCreateOptions, SessionPatch, SessionRecord, SessionStore } from './store.js';

export interface CachingSessionStoreOptions {
  /** How long a copy is served without asking the store; at most a quarter of the idle timeout. */
  readonly freshMs?: number;
  readonly idleTimeoutSeconds: number;
  readonly now?: () => number;
}

interface Read {
  promise: Promise<SessionRecord | undefined>;
  /** An announcement for the session came while the read was under way: what it read may be older. */
  changed: boolean;
}

interface Copy {
  readonly record: SessionRecord;
  readonly readAt: number;
}

/** Long enough that a busy session is read from the store about once a second, short enough that staleness never matters. */
const DEFAULT_FRESH_MS = 1_000;

export class CachingSessionStore implements SessionStore {
  readonly #copies = new Map<string, Copy>();
  /**
   * Reads in flight, so concurrent requests of one session share one round trip. A TransientMap: a
   * read's promise leads to every request waiting on it (support/transient-map.ts).
   */
  readonly #reading = new TransientMap<string, Read>();
  readonly #freshMs: number;
  readonly #now: () => number;
  readonly #stopListening: () => void;
  readonly #sweep: NodeJS.Timeout;

  constructor(
    private readonly inner: SessionStore,
    private readonly feed: SessionChangeFeed,
    { freshMs = DEFAULT_FRESH_MS, idleTimeoutSeconds, now = Date.now }: CachingSessionStoreOptions,
  ) {
    // A copy served past a quarter of the idle timeout would let the store's own expiry come too close.
    this.#freshMs = Math.min(freshMs, (idleTimeoutSeconds * 1000) / 4);
    this.#now = now;
    this.#stopListening = feed.listen(
      (sessionId) => this.#forget(sessionId),
      () => this.#forgetAll(),
    );
    this.#sweep = setInterval(() => this.#dropStale(), Math.max(this.#freshMs, 1_000) * 5);
    this.#sweep.unref();
  }

  get kind(): SessionStore['kind'] {
    return this.inner.kind;
  }

  async create(record: SessionRecord, options?: SessionCreateOptions): Promise<readonly SessionRecord[]> {
    const evicted = await this.inner.create(record, options);
    // Its next request most likely comes here; a private frozen copy, as the caller keeps the original.
    this.#keep(deepFreeze(structuredClone(record)));
    // The principal's cap deleted these: no replica may serve them from a copy any more.
    for (const gone of evicted) this.#forget(gone.id);
    await Promise.all(evicted.map((gone) => this.feed.announce(gone.id)));
    return evicted;
  }

  get(id: string): Promise<SessionRecord | undefined> {
    const copy = this.#copies.get(id);
    if (copy !== undefined && this.#now() - copy.readAt < this.#freshMs) return Promise.resolve(copy.record);
    return this.#reading.get(id)?.promise ?? this.#read(id);
  }

  async update(id: string, patch: SessionPatch): Promise<SessionRecord | undefined> {
    const updated = await this.inner.update(id, patch);
    this.#forget(id);
    await this.feed.announce(id);
    return updated;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.inner.delete(id);
    this.#forget(id);
    await this.feed.announce(id);
    return deleted;
  }

  count(): Promise<number> {
    return this.inner.count();
  }

  listIds(): Promise<string[]> {
    return this.inner.listIds();
  }

  peekMany(ids: readonly string[]): Promise<(SessionRecord | undefined)[]> {
    return this.inner.peekMany(ids);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    this.#stopListening();
    this.#forgetAll();
    await this.inner.close();
  }

  #read(id: string): Promise<SessionRecord | undefined> {
    const read: Read = { changed: false, promise: Promise.resolve(undefined) };
    read.promise = this.inner.get(id).then(
      (record) => {
        if (this.#reading.get(id) === read) this.#reading.delete(id);
        if (record === undefined) {
          if (!read.changed) this.#copies.delete(id);
          return undefined;
        }
        const frozen = deepFreeze(record);
        if (!read.changed) this.#keep(frozen);
        return frozen;
      },
      (error: unknown) => {
        if (this.#reading.get(id) === read) this.#reading.delete(id);
        throw error;
      },
    );
    this.#reading.set(id, read);
    return read.promise;
  }

  #keep(record: SessionRecord): void {
    this.#copies.set(record.id, { record, readAt: this.#now() });
  }

  /** Drops the copy, and keeps a read already under way from becoming one (or being joined). */
  #forget(id: string): void {
    this.#copies.delete(id);
    const read = this.#reading.get(id);
    if (read === undefined) return;
    read.changed = true;
    this.#reading.delete(id);
  }

  #forgetAll(): void {
    this.#copies.clear();
    for (const read of this.#reading.values()) read.changed = true;
    this.#reading.clear();
  }

  #dropStale(): void {
    const now = this.#now();
    for (const [id, copy] of this.#copies) if (now - copy.readAt >= this.#freshMs) this.#copies.delete(id);
  }
}
