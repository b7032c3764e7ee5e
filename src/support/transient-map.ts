// A Map for entries that live as long as one request: added and deleted thousands of times a
// second, each value the root of that request's objects (its promise callbacks, its HTTP exchange).
//
// Why a plain Map will not do. V8 never compacts a Map's hash table in place: after enough deletes
// (or to grow or shrink) it copies the live entries into a new table, points the old table at the
// new one for iterators to follow, and leaves the old table's entries where they were. The new
// table is allocated in the generation of the old one, so once a table is in the old generation
// (any full collection moves a live one there, and one comes sooner or later) all its successors
// are too. Each of them, discarded, still holds every value it had when it was copied, and being
// old it is not freed until the next full collection; every young collection in between keeps
// those values and all they reach alive, and promotes them. For the maps of requests in flight that
// is nearly every request: measured on the gateway under 50 callers, megabytes promoted per young
// collection instead of tens of KB, and several times the time in GC
// (docs/decisions/0008-transient-maps.md).
//
// So each value sits in a slot of its own, emptied when its entry is deleted: a discarded table
// then holds empty slots and keys, a few dozen bytes per request, and no request's objects.
// (V8's source: OrderedHashTable::Rehash and EnsureCapacityForAdding, src/objects/ordered-hash-table.cc.)

interface Slot<V> {
  value: V | undefined;
}

export class TransientMap<K, V extends object> {
  readonly #slots = new Map<K, Slot<V>>();

  get size(): number {
    return this.#slots.size;
  }

  get(key: K): V | undefined {
    return this.#slots.get(key)?.value;
  }

  has(key: K): boolean {
    return this.#slots.has(key);
  }

  set(key: K, value: V): this {
    const slot = this.#slots.get(key);
    if (slot === undefined) this.#slots.set(key, { value });
    else slot.value = value;
    return this;
  }

  delete(key: K): boolean {
    const slot = this.#slots.get(key);
    if (slot === undefined) return false;
    slot.value = undefined;
    return this.#slots.delete(key);
  }

  clear(): void {
    for (const slot of this.#slots.values()) slot.value = undefined;
    this.#slots.clear();
  }

  keys(): IterableIterator<K> {
    return this.#slots.keys();
  }

  *values(): IterableIterator<V> {
    for (const slot of this.#slots.values()) if (slot.value !== undefined) yield slot.value;
  }

  *entries(): IterableIterator<[K, V]> {
    for (const [key, slot] of this.#slots) if (slot.value !== undefined) yield [key, slot.value];
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }
}
