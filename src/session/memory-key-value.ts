// The in-memory twin of the key-value store: one replica, lost on restart. Expired entries are
// dropped when read and swept once a minute.
import type { KeyValueStore } from './key-value.js';

interface Entry {
  readonly value: string | Set<string>;
  /** Epoch milliseconds; Infinity: kept until deleted. */
  readonly expiresAt: number;
}

const SWEEP_MS = 60_000;

export class MemoryKeyValueStore implements KeyValueStore {
  readonly kind = 'memory';
  readonly #entries = new Map<string, Entry>();
  readonly #sweep: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.#sweep = setInterval(() => this.#dropExpired(), SWEEP_MS);
    this.#sweep.unref();
  }

  async get(key: string): Promise<string | undefined> {
    const value = this.#live(key)?.value;
    return typeof value === 'string' ? value : undefined;
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    this.#entries.set(key, { value, expiresAt: this.#expiry(ttlSeconds) });
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    if (this.#live(key) !== undefined) return false;
    this.#entries.set(key, { value, expiresAt: this.#expiry(ttlSeconds) });
    return true;
  }

  async take(key: string): Promise<string | undefined> {
    // No await between the read and the delete: two takes never both get the value.
    const value = this.#live(key)?.value;
    this.#entries.delete(key);
    return typeof value === 'string' ? value : undefined;
  }

  async delete(...keys: readonly string[]): Promise<void> {
    for (const key of keys) this.#entries.delete(key);
  }

  async addMember(set: string, member: string, ttlSeconds: number): Promise<void> {
    const entry = this.#live(set);
    const members = entry?.value instanceof Set ? entry.value : new Set<string>();
    members.add(member);
    this.#entries.set(set, { value: members, expiresAt: Math.max(entry?.expiresAt ?? 0, this.#expiry(ttlSeconds)) });
  }

  async members(set: string): Promise<readonly string[]> {
    const value = this.#live(set)?.value;
    return value instanceof Set ? [...value] : [];
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    this.#entries.clear();
  }

  #expiry(ttlSeconds: number | undefined): number {
    return ttlSeconds === undefined ? Infinity : this.now() + ttlSeconds * 1000;
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.now()) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  #dropExpired(): void {
    const now = this.now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }
}
