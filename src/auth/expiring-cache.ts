// A bounded map whose entries expire: at most `maxEntries`, the least recently used going first
// when a new one would pass that, and an entry past its time is as good as absent. A Map keeps
// insertion order, so moving a used entry to the end is all the bookkeeping LRU needs.

export class ExpiringCache<V> {
  readonly #entries = new Map<string, { readonly value: V; readonly expiresAt: number }>();

  constructor(
    readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new Error('ExpiringCache: maxEntries must be a positive integer');
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` until `expiresAt` (ms since the epoch); one already past it is not kept. */
  set(key: string, value: V, expiresAt: number): void {
    this.#entries.delete(key);
    if (expiresAt <= this.now()) return;
    this.#entries.set(key, { value, expiresAt });
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }
}
