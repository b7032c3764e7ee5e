// Where the gateway's task records live (gateway/tasks/task-records.ts): memory, or the sessions'
// Redis under `{keyPrefix}tasks:` so every replica finds a task another created. Opened on first
// use, so a gateway whose clients never ask for a task opens no connection for it.
import type { Config } from '../config/schema.js';
import type { KeyValueStore } from '../session/key-value.js';
import { MemoryKeyValueStore } from '../session/memory-key-value.js';
import { RedisKeyValueStore } from '../session/redis-key-value.js';
import { redisTargetOf } from '../session/redis-target.js';

export function tasksStore(config: Config): KeyValueStore {
  let opened: KeyValueStore | undefined;
  const open = (): KeyValueStore => {
    if (opened === undefined) {
      const redis = config.sessions.store === 'redis' ? redisTargetOf(config.sessions) : undefined;
      opened = redis ? new RedisKeyValueStore({ redis, keyPrefix: `${config.sessions.keyPrefix}tasks:` }) : new MemoryKeyValueStore();
    }
    return opened;
  };
  return {
    get kind() {
      return config.sessions.store;
    },
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
