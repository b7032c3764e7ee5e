// Everything session-shaped a replica needs, from the `sessions` config section: the store, the
// event queues and logs, and the bus between replicas; in memory, or all on one Redis.
import type { Logger } from '../observe/logger.js';
import type { Bus } from './bus.js';
import { CachingSessionStore } from './caching-store.js';
import { createSessionStore, redisOf, type SessionStoreConfig } from './create-store.js';
import { RedisSessionChangeFeed } from './session-changes.js';
import type { SessionEvents } from './events.js';
import { MemoryBus } from './memory-bus.js';
import { MemorySessionEvents } from './memory-events.js';
import { RedisBus } from './redis-bus.js';
import { RedisSessionEvents } from './redis-events.js';
import { closeRedis, openRedis, whenConnected } from './redis-connection.js';
import { RedisPubSub } from './redis-pubsub.js';
import { RedisSessionStore } from './redis-store.js';
import { describeRedis } from './redis-target.js';
import type { SessionStore } from './store.js';
import { ANSWERING, type StoreState } from './store-outages.js';

export interface SessionBackend {
  readonly store: SessionStore;
  readonly events: SessionEvents;
  readonly bus: Bus;
  /** Whether the store serves, or what kind of outage it is in (store-outages.ts); the memory store always serves. */
  storeState(): StoreState;
  /**
   * Resolves once cross-replica listening is in place (the Redis subscriptions are live) and the
   * command connections are up; rejects when the Redis is a Cluster node (not supported).
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createSessionBackend(config: SessionStoreConfig, { logger }: { logger?: Logger } = {}): SessionBackend {
  const shared = createSessionStore(config, { ...(logger && { logger }) });
  const target = redisOf(config);
  if (target === undefined) {
    const store = shared;
    const events = new MemorySessionEvents({ idleTimeoutSeconds: config.idleTimeoutSeconds });
    const bus = new MemoryBus();
    return {
      store,
      events,
      bus,
      storeState: () => ANSWERING,
      ready: async () => {},
      close: async () => {
        events.close();
        await Promise.all([store.close(), bus.close()]);
      },
    };
  }
  const pubsub = new RedisPubSub(target);
  const keyPrefix = config.keyPrefix ?? 'switchboard:';
  const describedRedis = describeRedis(target);
  // One command connection for the event log and the bus; the store reports outages, so errors on
  // this one surface only on the calls that hit them.
  const redis = openRedis(target, { ...(config.deadlineMs !== undefined && { commandTimeoutMs: config.deadlineMs }) });
  redis.on('error', () => {});
  const events = new RedisSessionEvents({ redis, pubsub, idleTimeoutSeconds: config.idleTimeoutSeconds, keyPrefix, describedRedis });
  // Each request reads its session: a copy on this replica, kept right by the change feed (caching-store.ts).
  const feed = new RedisSessionChangeFeed(redis, pubsub, keyPrefix, describedRedis);
  const store = new CachingSessionStore(shared, feed, { idleTimeoutSeconds: config.idleTimeoutSeconds });
  const bus = new RedisBus({ redis, pubsub, keyPrefix, describedRedis });
  return {
    store,
    events,
    bus,
    storeState: () => (shared instanceof RedisSessionStore ? shared.state : ANSWERING),
    // Command connections fail at once rather than queue while they connect (redis-connection.ts):
    // the first requests must find them up.
    ready: async () => {
      try {
        await Promise.all([pubsub.ready(), whenConnected(redis), bus.ready(), shared instanceof RedisSessionStore ? shared.connected() : undefined]);
      } catch (error) {
        // The gateway will not start (a Cluster node): its connections must not keep reconnecting.
        await close();
        throw error;
      }
    },
    close,
  };
  async function close(): Promise<void> {
    await Promise.all([store.close(), bus.close()]);
    await Promise.all([pubsub.close(), closeRedis(redis)]);
  }
}
