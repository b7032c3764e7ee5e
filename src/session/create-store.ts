// Picks the session store from the `sessions` config section; the composition root calls this once.
import { MemorySessionStore } from './memory-store.js';
import { RedisSessionStore, type RedisSessionStoreOptions } from './redis-store.js';
import type { RedisTarget } from './redis-target.js';
import type { SessionStore } from './store.js';

export interface SessionStoreConfig {
  store: 'memory' | 'redis';
  /** One Redis by URL; `redis` wins when both are given. */
  redisUrl?: string;
  /** Where Redis is (a URL, or a Sentinel group): redis-target.ts, redisTargetOf. */
  redis?: RedisTarget;
  idleTimeoutSeconds: number;
  /** The idle timeout of a session that has made no request yet (store.ts, `used`). */
  unusedIdleTimeoutSeconds?: number;
  /** Prefix of every Redis key and channel; default "switchboard:". */
  keyPrefix?: string;
  /** A store command unanswered this long fails (503); default 2000 (config `sessions.deadlineMs`). */
  deadlineMs?: number;
}

export interface SessionStoreDeps {
  /** Hears about Redis outages and recoveries. */
  logger?: RedisSessionStoreOptions['logger'];
}

/** The Redis of a `sessions` config, or undefined for the memory store. */
export function redisOf({ store, redis, redisUrl }: SessionStoreConfig): RedisTarget | undefined {
  return store === 'memory' ? undefined : (redis ?? redisUrl);
}

export function createSessionStore(config: SessionStoreConfig, { logger }: SessionStoreDeps = {}): SessionStore {
  const { store, idleTimeoutSeconds, unusedIdleTimeoutSeconds, keyPrefix, deadlineMs } = config;
  const idle = { idleTimeoutSeconds, ...(unusedIdleTimeoutSeconds !== undefined && { unusedIdleTimeoutSeconds }) };
  if (store === 'memory') return new MemorySessionStore(idle);
  const redis = redisOf(config);
  // The config schema should already refuse this; a clear message here costs nothing if it does not.
  if (!redis) throw new Error('sessions.store is redis but sessions.redisUrl (or REDIS_URL) is not set');
  return new RedisSessionStore({
    redis,
    ...idle,
    logger,
    ...(keyPrefix !== undefined && { keyPrefix }),
    ...(deadlineMs !== undefined && { commandTimeoutMs: deadlineMs }),
  });
}
