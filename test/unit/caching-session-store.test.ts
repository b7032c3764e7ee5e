// The replica-local copies of sessions: served while fresh, shared by concurrent readers, dropped on
// any replica's announcement, and never made from a read that a change overtook.
import { afterEach, describe, expect, it } from 'vitest';
import { CachingSessionStore } from '../../src/session/caching-store.js';
import { MemorySessionStore } from '../../src/session/memory-store.js';
import { newSessionId } from '../../src/session/session-id.js';
import { MemorySessionChangeFeed, type SessionChangeFeed } from '../../src/session/session-changes.js';
import type { SessionRecord, SessionStore } from '../../src/session/store.js';

function aSession(): SessionRecord {
  return {
    id: newSessionId(),
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'test-client', version: '1.0.0' },
    clientCapabilities: {},
    subscriptions: [],
    upstreamSessions: {},
    createdAt: Date.now(),
  };
}

/** The shared store, counting its reads, with a gate that holds reads back until released. */
class CountingStore extends MemorySessionStore {
  reads = 0;
  gate: Promise<void> | undefined;

  override async get(id: string): Promise<SessionRecord | undefined> {
    this.reads += 1;
    await this.gate;
    return super.get(id);
  }
}

describe('CachingSessionStore', () => {
  let now = 1_000_000;
  const stores: SessionStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  function replicaOf(shared: CountingStore, feed: SessionChangeFeed): CachingSessionStore {
    const store = new CachingSessionStore(shared, feed, { idleTimeoutSeconds: 60, freshMs: 1_000, now: () => now });
    stores.push(store);
    return store;
  }

  it('serves a session from its copy while fresh, then reads the store again', async () => {
    const shared = new CountingStore({ idleTimeoutSeconds: 60 });
    const store = replicaOf(shared, new MemorySessionChangeFeed());
    const record = aSession();
    await store.create(record);
    for (let i = 0; i < 5; i++) expect(await store.get(record.id)).toEqual(record);
    expect(shared.reads).toBe(0);
    now += 1_000;
    expect(await store.get(record.id)).toEqual(record);
    expect(await store.get(record.id)).toEqual(record);
    expect(shared.reads).toBe(1);
  });

  it('shares one read among concurrent requests of a session', async () => {
    const shared = new CountingStore({ idleTimeoutSeconds: 60 });
    const record = aSession();
    await shared.create(record);
    const store = replicaOf(shared, new MemorySessionChangeFeed());
    const records = await Promise.all(Array.from({ length: 10 }, () => store.get(record.id)));
    expect(records.every((read) => read?.id === record.id)).toBe(true);
    expect(shared.reads).toBe(1);
  });

  it('drops its copy when any replica announces a change', async () => {
    const shared = new CountingStore({ idleTimeoutSeconds: 60 });
    const feed = new MemorySessionChangeFeed();
    const [first, second] = [replicaOf(shared, feed), replicaOf(shared, feed)];
    const record = aSession();
    await first.create(record);
    expect(await second.get(record.id)).toEqual(record);
    await first.update(record.id, { logLevel: 'debug' });
    expect((await second.get(record.id))?.logLevel).toBe('debug');
    await second.delete(record.id);
    expect(await first.get(record.id)).toBeUndefined();
  });

  it('does not keep, or let others join, a read that a change overtook', async () => {
    const shared = new CountingStore({ idleTimeoutSeconds: 60 });
    const feed = new MemorySessionChangeFeed();
    const record = aSession();
    await shared.create(record);
    const store = replicaOf(shared, feed);
    let release = (): void => {};
    shared.gate = new Promise((resolve) => (release = resolve));
    const early = store.get(record.id);
    await shared.update(record.id, { logLevel: 'debug' });
    await feed.announce(record.id);
    shared.gate = undefined;
    const late = store.get(record.id);
    release();
    expect((await late)?.logLevel).toBe('debug');
    await early;
    expect((await store.get(record.id))?.logLevel).toBe('debug');
    expect(shared.reads).toBe(2);
  });

  it('drops every copy when the feed may have missed announcements', async () => {
    const shared = new CountingStore({ idleTimeoutSeconds: 60 });
    let gap = (): void => {};
    const feed: SessionChangeFeed = {
      announce: async () => {},
      listen: (_onChange, onGap) => {
        gap = onGap;
        return () => {};
      },
    };
    const store = replicaOf(shared, feed);
    const record = aSession();
    await store.create(record);
    gap();
    await store.get(record.id);
    expect(shared.reads).toBe(1);
  });

  it('hands out frozen copies, so no request can change the session for the others', async () => {
    const shared = new CountingStore({ idleTimeoutSeconds: 60 });
    const store = replicaOf(shared, new MemorySessionChangeFeed());
    const record = aSession();
    await store.create(record);
    const copy = await store.get(record.id);
    expect(Object.isFrozen(copy)).toBe(true);
    expect(Object.isFrozen(copy?.subscriptions)).toBe(true);
  });

  it('serves a copy for at most a quarter of the idle timeout', async () => {
    const shared = new CountingStore({ idleTimeoutSeconds: 2 });
    const store = new CachingSessionStore(shared, new MemorySessionChangeFeed(), { idleTimeoutSeconds: 2, freshMs: 5_000, now: () => now });
    stores.push(store);
    const record = aSession();
    await store.create(record);
    now += 500;
    await store.get(record.id);
    expect(shared.reads).toBe(1);
  });
});
