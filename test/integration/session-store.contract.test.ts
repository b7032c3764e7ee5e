// One contract, two stores: whatever the gateway may rely on holds for the memory store and for the
// Redis store on a real Redis (test/support/global-setup.ts), so swapping them changes nothing but
// where sessions live.
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemorySessionStore } from '../../src/session/memory-store.js';
import { CachingSessionStore } from '../../src/session/caching-store.js';
import { RedisPubSub } from '../../src/session/redis-pubsub.js';
import { RedisSessionStore } from '../../src/session/redis-store.js';
import { RedisSessionChangeFeed } from '../../src/session/session-changes.js';
import { newSessionId } from '../../src/session/session-id.js';
import type { SessionRecord, SessionStore } from '../../src/session/store.js';
import type { SessionChangeFeed } from '../../src/session/session-changes.js';
import { freePort } from '../support/free-port.js';
import { deleteKeysWithPrefix, redisUrl, uniqueKeyPrefix } from '../support/redis.js';

/** A fresh deployment per test: nothing carries over between tests. */
interface Deployment {
  /** Opens another replica of this deployment; all of them see the same sessions. */
  openReplica(options: { idleTimeoutSeconds: number; unusedIdleTimeoutSeconds?: number }): SessionStore;
  /** Lets `ms` pass as the stores see it. */
  elapse(ms: number): Promise<void>;
  /**
   * Waits until every replica has heard of the changes made so far, as replicas in separate
   * processes have by the time a client's next request reaches them; nothing to wait for when
   * replicas keep no copies.
   */
  settle?(): Promise<void>;
  close(): Promise<void>;
}

function aSession(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: newSessionId(),
    principal: 'alice',
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'test-client', version: '1.0.0', title: 'Test Client' },
    // An empty array and a 16-digit number: what a careless JSON round trip (Lua cjson) would mangle.
    clientCapabilities: { roots: { listChanged: true }, experimental: { tags: [], nonce: Number.MAX_SAFE_INTEGER } },
    subscriptions: [],
    upstreamSessions: {},
    createdAt: Date.now(),
    ...overrides,
  };
}

function sessionStoreContract(kind: string, newDeployment: () => Deployment): void {
  describe(`the ${kind} session store`, () => {
    let deployment: Deployment;
    beforeEach(() => {
      deployment = newDeployment();
    });
    afterEach(async () => {
      await deployment.close();
    });
    const open = (idleTimeoutSeconds = 60): SessionStore => deployment.openReplica({ idleTimeoutSeconds });
    const settle = async (): Promise<void> => deployment.settle?.();

    it('get returns the record that create stored', async () => {
      const store = open();
      const record = aSession({ logLevel: 'info', subscriptions: ['file:///a'], upstreamSessions: { search: 'up-1' } });
      await store.create(record);
      expect(await store.get(record.id)).toEqual(record);
    });

    it('get of an unknown id is undefined', async () => {
      expect(await open().get(newSessionId())).toBeUndefined();
    });

    it('delete removes the session, and a second delete returns false', async () => {
      const store = open();
      const record = aSession();
      await store.create(record);
      expect(await store.delete(record.id)).toBe(true);
      expect(await store.get(record.id)).toBeUndefined();
      expect(await store.delete(record.id)).toBe(false);
    });

    it('update merges the patch into the record and returns the new record', async () => {
      const store = open();
      const record = aSession();
      await store.create(record);
      const withLevel = await store.update(record.id, { logLevel: 'debug' });
      expect(withLevel).toEqual({ ...record, logLevel: 'debug' });
      const withBoth = await store.update(record.id, { subscriptions: ['file:///b'] });
      expect(withBoth).toEqual({ ...record, logLevel: 'debug', subscriptions: ['file:///b'] });
      expect(await store.get(record.id)).toEqual(withBoth);
    });

    it('update of a deleted session returns undefined and does not bring it back', async () => {
      const store = open();
      const record = aSession();
      await store.create(record);
      await store.delete(record.id);
      expect(await store.update(record.id, { logLevel: 'debug' })).toBeUndefined();
      expect(await store.get(record.id)).toBeUndefined();
      expect(await store.count()).toBe(0);
    });

    it('a session not used for the idle timeout is gone, and no longer counted', async () => {
      const store = open(1);
      const record = aSession();
      await store.create(record);
      await deployment.elapse(1_500);
      expect(await store.get(record.id)).toBeUndefined();
      // After the get on purpose: asking for an expired id must not revive it in the count.
      expect(await store.count()).toBe(0);
    });

    it('get slides the idle timeout', async () => {
      // 2 s rather than 1 s leaves half a second of slack each way for a busy machine.
      const store = open(2);
      const record = aSession();
      await store.create(record);
      await deployment.elapse(1_000);
      expect(await store.get(record.id)).toBeDefined();
      // 2.5 s after create: gone without the slide, still there with it.
      await deployment.elapse(1_500);
      expect(await store.get(record.id)).toBeDefined();
    });

    it('a session with no patch since create expires after the unused idle timeout, and its first patch gives it the full one', async () => {
      const store = deployment.openReplica({ idleTimeoutSeconds: 60, unusedIdleTimeoutSeconds: 1 });
      const [walkedAway, used, madeUsed] = [aSession(), aSession(), aSession({ used: true })];
      await Promise.all([store.create(walkedAway), store.create(used), store.create(madeUsed)]);
      expect(await store.update(used.id, { used: true })).toEqual({ ...used, used: true });
      // A read is not a request: it slides the session by the short timeout only.
      expect(await store.get(walkedAway.id)).toBeDefined();
      await deployment.elapse(1_500);
      expect(await store.get(walkedAway.id)).toBeUndefined();
      expect(await store.get(used.id)).toEqual({ ...used, used: true });
      expect(await store.get(madeUsed.id)).toEqual(madeUsed);
      expect(await store.count()).toBe(2);
    });

    it("create under a principal cap deletes that principal's sessions nearest expiry, returns them, and leaves others alone", async () => {
      const [first, second] = [open(), open()];
      const [a1, a2, a3, b1] = [aSession(), aSession(), aSession(), aSession({ principal: 'bob' })];
      expect(await first.create(a1, { principalCap: 2 })).toEqual([]);
      await deployment.elapse(20);
      expect(await second.create(a2, { principalCap: 2 })).toEqual([]);
      await first.create(b1, { principalCap: 2 });
      await deployment.elapse(20);
      // a1 is used again: a2 is now the one nearest its expiry.
      expect(await second.get(a1.id)).toBeDefined();
      expect(await first.create(a3, { principalCap: 2 })).toEqual([a2]);
      await settle();
      expect(await second.get(a2.id)).toBeUndefined();
      expect(await first.get(a2.id)).toBeUndefined();
      expect(await Promise.all([a1, a3, b1].map(async ({ id }) => (await second.get(id))?.id))).toEqual([a1.id, a3.id, b1.id]);
      expect(await first.count()).toBe(3);
    });

    it('a cap counts only live sessions, and sessions without a principal have none', async () => {
      const store = open(1);
      const [expired, live] = [aSession(), aSession()];
      await store.create(expired, { principalCap: 1 });
      await deployment.elapse(1_500);
      expect(await store.create(live, { principalCap: 1 })).toEqual([]);
      const anonymous = [aSession({ principal: undefined }), aSession({ principal: undefined })];
      for (const record of anonymous) expect(await store.create(record, { principalCap: 1 })).toEqual([]);
      expect(await store.count()).toBe(3);
    });

    it('peekMany reads sessions in order, unknown ones as undefined, without sliding the idle timeout', async () => {
      const store = open(2);
      const [first, second] = [aSession(), aSession()];
      await store.create(first);
      await store.create(second);
      await deployment.elapse(1_000);
      expect(await store.peekMany([second.id, 'AAAAAAAAAAAAAAAAAAAAAA', first.id])).toEqual([second, undefined, first]);
      // 2.5 s after create: a peek is not use, so both are gone.
      await deployment.elapse(1_500);
      expect(await store.peekMany([first.id, second.id])).toEqual([undefined, undefined]);
    });

    it('count counts the live sessions', async () => {
      const store = open();
      const [first, second, third] = [aSession(), aSession(), aSession()];
      await Promise.all([store.create(first), store.create(second), store.create(third)]);
      await store.delete(second.id);
      expect(await store.count()).toBe(2);
    });

    it('ping resolves while the store answers', async () => {
      await expect(open().ping()).resolves.toBeUndefined();
    });

    it('changing a record a caller holds does not change the stored session', async () => {
      const store = open();
      const record = aSession({ subscriptions: ['file:///a'] });
      await store.create(record);
      (record.subscriptions as string[]).push('file:///changed-after-create');
      const loaded = await store.get(record.id);
      try {
        (loaded?.subscriptions as string[]).push('file:///changed-after-get');
      } catch {
        // A frozen record refusing the change is as good as a copy absorbing it.
      }
      expect((await store.get(record.id))?.subscriptions).toEqual(['file:///a']);
    });

    it('a second replica sees what the first created, updated and deleted', async () => {
      const [first, second] = [open(), open()];
      const record = aSession();
      await first.create(record);
      // first keeps a copy of what it created, second of what it read: both must give way.
      expect(await first.get(record.id)).toEqual(record);
      expect(await second.get(record.id)).toEqual(record);
      await second.update(record.id, { logLevel: 'warning' });
      await settle();
      expect((await first.get(record.id))?.logLevel).toBe('warning');
      await first.delete(record.id);
      await settle();
      expect(await second.get(record.id)).toBeUndefined();
    });

    it('concurrent updates from two replicas all land', async () => {
      const [first, second] = [open(), open()];
      const record = aSession();
      await first.create(record);
      await Promise.all([
        first.update(record.id, { logLevel: 'debug' }),
        second.update(record.id, { subscriptions: ['file:///a', 'file:///b'] }),
        first.update(record.id, { upstreamSessions: { search: 'up-1' } }),
      ]);
      await settle();
      expect(await second.get(record.id)).toEqual({
        ...record,
        logLevel: 'debug',
        subscriptions: ['file:///a', 'file:///b'],
        upstreamSessions: { search: 'up-1' },
      });
    });
  });
}

sessionStoreContract('memory', () => {
  // One process has one memory store: every "replica" is that store. A fake clock expires sessions
  // without sleeping.
  let now = Date.now();
  let store: MemorySessionStore | undefined;
  return {
    openReplica: (options) => (store ??= new MemorySessionStore({ ...options, now: () => now })),
    elapse: async (ms) => {
      now += ms;
    },
    close: async () => {
      await store?.close();
    },
  };
});

describe('on Redis', () => {
  // Each test gets its own prefix under the file's, so tests never see each other's sessions.
  const filePrefix = uniqueKeyPrefix('session-store');
  let deployments = 0;
  afterAll(async () => {
    await deleteKeysWithPrefix(redisUrl(), filePrefix);
  });

  sessionStoreContract('Redis', () => {
    const keyPrefix = `${filePrefix}${++deployments}:`;
    const replicas: RedisSessionStore[] = [];
    return {
      openReplica: (options) => {
        const replica = new RedisSessionStore({ redis: redisUrl(), ...options, keyPrefix });
        replicas.push(replica);
        return replica;
      },
      // Redis expires keys by its own clock: nothing to fake, so wait.
      elapse: (ms) => sleep(ms),
      close: async () => {
        await Promise.all(replicas.map((replica) => replica.close()));
      },
    };
  });

  // As the gateway runs on Redis: each replica keeps copies of the sessions it serves, dropped when
  // any replica announces a change (caching-store.ts).
  sessionStoreContract('Redis, with replica copies', () => {
    const keyPrefix = `${filePrefix}${++deployments}:`;
    const closers: (() => Promise<void>)[] = [];
    const heard: number[] = [];
    let announced = 0;
    return {
      openReplica: ({ idleTimeoutSeconds, unusedIdleTimeoutSeconds }) => {
        const pubsub = new RedisPubSub(redisUrl());
        const publisher = new Redis(redisUrl());
        const feed = countingFeed(new RedisSessionChangeFeed(publisher, pubsub, keyPrefix), heard, () => (announced += 1));
        const inner = new RedisSessionStore({ redis: redisUrl(), idleTimeoutSeconds, ...(unusedIdleTimeoutSeconds !== undefined && { unusedIdleTimeoutSeconds }), keyPrefix });
        const store = new CachingSessionStore(inner, feed, { idleTimeoutSeconds });
        closers.push(async () => {
          await store.close();
          await pubsub.close();
          publisher.disconnect();
        });
        return afterReady(store, pubsub.ready());
      },
      elapse: (ms) => sleep(ms),
      settle: () => vi.waitFor(() => expect(heard.every((count) => count === announced)).toBe(true), { timeout: 2_000, interval: 5 }),
      close: async () => {
        await Promise.all(closers.map((close) => close()));
      },
    };
  });

  it('keeps a session under {prefix}session:{id} with the idle timeout as its TTL', async () => {
    const keyPrefix = `${filePrefix}layout:`;
    const store = new RedisSessionStore({ redis: redisUrl(), idleTimeoutSeconds: 300, keyPrefix });
    const redis = new Redis(redisUrl());
    try {
      const record = aSession();
      await store.create(record);
      const key = `${keyPrefix}session:${record.id}`;
      expect(JSON.parse((await redis.get(key)) ?? 'null')).toEqual(record);
      expect(await redis.ttl(key)).toBeGreaterThan(290);
    } finally {
      redis.disconnect();
      await store.close();
    }
  });

  it('ping on a Redis where nothing listens rejects within 3 s, naming the URL but not its password', async () => {
    const port = await freePort();
    const store = new RedisSessionStore({ redis: `redis://:hunter2@127.0.0.1:${port}`, idleTimeoutSeconds: 60 });
    try {
      const started = Date.now();
      const error: unknown = await store.ping().then(
        () => undefined,
        (rejection: unknown) => rejection,
      );
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(error).toBeInstanceOf(Error);
      const { message } = error as Error;
      expect(message).toContain(`Redis at redis://127.0.0.1:${port} does not answer`);
      expect(message).not.toContain('hunter2');
    } finally {
      await store.close();
    }
  });
});

/** The store, each of whose calls waits until its replica listens for changes (as the gateway waits at startup). */
function afterReady(store: SessionStore, ready: Promise<void>): SessionStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await ready;
        return (value as (...callArgs: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** The feed, counting what this replica hears (in `heard`, one slot per replica) and what is announced. */
function countingFeed(feed: SessionChangeFeed, heard: number[], onAnnounce: () => void): SessionChangeFeed {
  const slot = heard.push(0) - 1;
  return {
    announce: async (sessionId) => {
      onAnnounce();
      await feed.announce(sessionId);
    },
    listen: (onChange, onGap) =>
      feed.listen((sessionId) => {
        heard[slot] = (heard[slot] ?? 0) + 1;
        onChange(sessionId);
      }, onGap),
  };
}
