// Sessions of one process, for a single replica and for tests. Same contract as the Redis store
// (test/integration/session-store.contract.test.ts), including the sliding idle timeout.
import { applySessionPatch } from './apply-patch.js';
import { frozenCopy } from './deep-freeze.js';
import { assertIdleTimeout } from './idle-timeout.js';
import type { SessionPatch, SessionRecord, SessionStore, SessionStoreOptions } from './store.js';

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
}

export class MemorySessionStore implements SessionStore {
  readonly kind = 'memory' as const;
  readonly #entries = new Map<string, Entry>();
  readonly #idleTimeoutMs: number;
  readonly #now: () => number;
  readonly #sweep: NodeJS.Timeout;

  constructor({ idleTimeoutSeconds, now = Date.now, sweepIntervalMs }: MemorySessionStoreOptions) {
    assertIdleTimeout(idleTimeoutSeconds);
    this.#idleTimeoutMs = idleTimeoutSeconds * 1000;
    this.#now = now;
    // Expiry is decided on access; the sweep only keeps abandoned sessions from piling up. Unref'd so
    // that a forgotten close() does not keep the process alive.
    this.#sweep = setInterval(() => this.#dropExpired(), sweepIntervalMs ?? Math.min(this.#idleTimeoutMs, 60_000));
    this.#sweep.unref();
  }

  async create(record: SessionRecord): Promise<void> {
    this.#entries.set(record.id, { record: frozenCopy(record), expiresAt: this.#nextExpiry() });
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const entry = this.#liveEntry(id);
    if (entry === undefined) return undefined;
    entry.expiresAt = this.#nextExpiry();
    return entry.record;
  }

  async update(id: string, patch: SessionPatch): Promise<SessionRecord | undefined> {
    const entry = this.#liveEntry(id);
    if (entry === undefined) return undefined;
    entry.record = frozenCopy(applySessionPatch(entry.record, patch));
    entry.expiresAt = this.#nextExpiry();
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

  #nextExpiry(): number {
    return this.#now() + this.#idleTimeoutMs;
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
