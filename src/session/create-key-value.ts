// The key-value store for one part beside the sessions (sign-in, connections, tasks): memory for
// one replica, or the sessions' Redis under `{keyPrefix}{namespace}:` for many. `lazy`: opened on
// first use, so a gateway that never needs the part opens no Redis connection for it.
import type { KeyValueStore } from './key-value.js';
import { MemoryKeyValueStore } from './memory-key-value.js';
import { RedisKeyValueStore } from './redis-key-value.js';
import { redisTargetOf, type RedisSessionsConfig } from './redis-target.js';

export interface KeyValueSessionsConfig extends RedisSessionsConfig {
  readonly store: 'memory' | 'redis';
  readonly keyPrefix: string;
}

export function createKeyValueStore(sessions: KeyValueSessionsConfig, namespace: string, { lazy = false }: { lazy?: boolean } = {}): KeyValueStore {
  const make = (): KeyValueStore => {
    const redis = sessions.store === 'redis' ? redisTargetOf(sessions) : undefined;
    return redis ? new RedisKeyValueStore({ redis, keyPrefix: `${sessions.keyPrefix}${namespace}:` }) : new MemoryKeyValueStore();
  };
  if (!lazy) return make();
  let opened: KeyValueStore | undefined;
  const open = (): KeyValueStore => (opened ??= make());
  return {
    kind: sessions.store,
    get: (key) => open().get(key),
    set: (key, value, ttl) => open().set(key, value, ttl),
    setIfAbsent: (key, value, ttl) => open().setIfAbsent(key, value, ttl),
    take: (key) => open().take(key),
    delete: (...keys) => open().delete(...keys),
    addMember: (set, member, ttl) => open().addMember(set, member, ttl),
    members: (set) => open().members(set),
    close: async () => opened?.close(),
  };
}
