// Everything session-shaped a replica needs, from the `sessions` config section: the store, the
// event queues and logs, and the bus between replicas; in memory, or all on one Redis.
import type { Logger } from '../observe/logger.js';
import type { Bus } from './bus.js';
import { createSessionStore, type SessionStoreConfig } from './create-store.js';
import type { SessionEvents } from './events.js';
import { MemoryBus } from './memory-bus.js';
import { MemorySessionEvents } from './memory-events.js';
import { RedisBus } from './redis-bus.js';
import { RedisSessionEvents } from './redis-events.js';
import { RedisPubSub } from './redis-pubsub.js';
import type { SessionStore } from './store.js';

export interface SessionBackend {
  readonly store: SessionStore;
  readonly events: SessionEvents;
  readonly bus: Bus;
  /** Resolves once cross-replica listening is in place (the Redis subscriptions are live). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createSessionBackend(config: SessionStoreConfig, { logger }: { logger?: Logger } = {}): SessionBackend {
  const store = createSessionStore(config, { ...(logger && { logger }) });
  if (config.store === 'memory' || !config.redisUrl) {
    const events = new MemorySessionEvents({ idleTimeoutSeconds: config.idleTimeoutSeconds });
    const bus = new MemoryBus();
    return {
      store,
      events,
      bus,
      ready: async () => {},
      close: async () => {
        await Promise.all([store.close(), events.close(), bus.close()]);
      },
    };
  }
  const pubsub = new RedisPubSub(config.redisUrl);
  const keyPrefix = config.keyPrefix ?? 'switchboard:';
  const events = new RedisSessionEvents({ url: config.redisUrl, pubsub, idleTimeoutSeconds: config.idleTimeoutSeconds, keyPrefix });
  const bus = new RedisBus({ url: config.redisUrl, pubsub, keyPrefix });
  return {
    store,
    events,
    bus,
    ready: () => pubsub.ready(),
    close: async () => {
      await Promise.all([store.close(), events.close(), bus.close()]);
      await pubsub.close();
    },
  };
}
