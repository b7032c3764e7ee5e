// Sessions of one process, for a single replica and for tests. Same contract as the Redis store
// (test/integration/session-store.contract.test.ts), including the sliding idle timeout, the
// shorter one of a session not yet used, and the cap on a principal's live sessions.
import { applySessionPatch } from './apply-patch.js';
import { frozenCopy } from './deep-freeze.js';
import { assertIdleTimeout } from './idle-timeout.js';
import type { SessionCreateOptions, SessionPatch, SessionRecord, SessionStore, SessionStoreOptions } from './store.js';

export interface MemorySessionStoreOptions extends SessionStoreOptions {
  /** Epoch milliseconds. Tests pass a fake clock to expire sessions without sleeping. */
  now?: () => number;
  /** How often expired sessions that nobody asks for again are dropped. Default: the idle timeout, at most a minute. */
  sweepIntervalMs?: number;
}

interface Entry {
  /** Frozen: handed out as is, so reads cost no copy. */
  record: SessionRecord;
  expiresAt: number;
  /** The idle timeout that slides it: the short one until a patch comes (store.ts, `used`). */
  idleMs: number;
}

export class MemorySessionStore implements SessionStore {
  readonly kind = 'memory' as const;
  readonly #entries = new Map<string, Entry>();
  readonly #idleTimeoutMs: number;
  readonly #unusedIdleTimeoutMs: number;
  readonly #now: () => number;
  readonly #sweep: NodeJS.Timeout;

  constructor({ idleTimeoutSeconds, unusedIdleTimeoutSeconds, now = Date.now, sweepIntervalMs }: MemorySessionStoreOptions) {
    assertIdleTimeout(idleTimeoutSeconds);
    if (unusedIdleTimeoutSeconds !== undefined) assertIdleTimeout(unusedIdleTimeoutSeconds);
    this.#idleTimeoutMs = idleTimeoutSeconds * 1000;
    this.#unusedIdleTimeoutMs = Math.min(unusedIdleTimeoutSeconds ?? idleTimeoutSeconds, idleTimeoutSeconds) * 1000;
    this.#now = now;
    // Expiry is decided on access; the sweep only keeps abandoned sessions from piling up. Unref'd so
    // that a forgotten close() does not keep the process alive.
    this.#sweep = setInterval(() => this.#dropExpired(), sweepIntervalMs ?? Math.min(this.#idleTimeoutMs, 60_000));
    this.#sweep.unref();
  }

  async create(record: SessionRecord, { principalCap }: SessionCreateOptions = {}): Promise<readonly SessionRecord[]> {
    const evicted = principalCap !== undefined && record.principal !== undefined ? this.#makeRoom(record.principal, principalCap) : [];
    const idleMs = record.used === true ? this.#idleTimeoutMs : this.#unusedIdleTimeoutMs;
    this.#entries.set(record.id, { record: frozenCopy(record), idleMs, expiresAt: this.#now() + idleMs });
    return evicted;
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const entry = this.#liveEntry(id);
    if (entry === undefined) return undefined;
    entry.expiresAt = this.#now() + entry.idleMs;
    return entry.record;
  }

  async update(id: string, patch: SessionPatch): Promise<SessionRecord | undefined> {
    const entry = this.#liveEntry(id);
    if (entry === undefined) return undefined;
    entry.record = frozenCopy(applySessionPatch(entry.record, patch));
    entry.idleMs = this.#idleTimeoutMs;
    entry.expiresAt = this.#now() + entry.idleMs;
    return entry.record;
  }

  async delete(id: string): Promise<boolean> {
    const existed = this.#liveEntry(id) !== undefined;
    this.#entries.delete(id);
    return existed;
  }

  async count(): Promise<number> {
    this.#dropExpired();
    return this.#entries.size;
  }

  async peekMany(ids: readonly string[]): Promise<(SessionRecord | undefined)[]> {
    return ids.map((id) => this.#liveEntry(id)?.record);
  }

  async listIds(): Promise<string[]> {
    this.#dropExpired();
    return [...this.#entries.keys()];
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.#sweep);
  }

  /**
   * Deletes the principal's live sessions nearest their expiry until one more fits under `cap`;
   * returns them. A walk over every session: the memory store serves one replica's few.
   */
  #makeRoom(principal: string, cap: number): SessionRecord[] {
    const live = [...this.#entries.keys()]
      .map((id) => this.#liveEntry(id))
      .filter((entry): entry is Entry => entry !== undefined && entry.record.principal === principal)
      // Nearest its expiry first, as the Redis store orders them: the least recently used, where a
      // session that never made a request counts by its shorter timeout.
      .sort((a, b) => a.expiresAt - b.expiresAt);
    const evicted = live.slice(0, Math.max(0, live.length - cap + 1));
    for (const entry of evicted) this.#entries.delete(entry.record.id);
    return evicted.map((entry) => entry.record);
  }

  #liveEntry(id: string): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry !== undefined && entry.expiresAt <= this.#now()) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry;
  }

  #dropExpired(): void {
    const now = this.#now();
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#entries.delete(id);
    }
  }
}
