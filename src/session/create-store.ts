// Picks the session store from the `sessions` config section; the composition root calls this once.
import { MemorySessionStore } from './memory-store.js';
import { RedisSessionStore, type RedisSessionStoreOptions } from './redis-store.js';
import type { SessionStore } from './store.js';

export interface SessionStoreConfig {
  store: 'memory' | 'redis';
  redisUrl?: string;
  idleTimeoutSeconds: number;
  /** Prefix of every Redis key and channel; default "switchboard:". */
  keyPrefix?: string;
}

export interface SessionStoreDeps {
  /** Hears about Redis outages and recoveries. */
  logger?: RedisSessionStoreOptions['logger'];
}

export function createSessionStore(
  { store, redisUrl, idleTimeoutSeconds, keyPrefix }: SessionStoreConfig,
  { logger }: SessionStoreDeps = {},
): SessionStore {
  if (store === 'memory') return new MemorySessionStore({ idleTimeoutSeconds });
  // The config schema should already refuse this; a clear message here costs nothing if it does not.
  if (!redisUrl) throw new Error('sessions.store is redis but sessions.redisUrl (or REDIS_URL) is not set');
  return new RedisSessionStore({ url: redisUrl, idleTimeoutSeconds, logger, ...(keyPrefix !== undefined && { keyPrefix }) });
}
