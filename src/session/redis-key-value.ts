// The key-value store on the sessions' Redis, for every replica. Keys live under
// `{sessions.keyPrefix}{namespace}:`; expiry is Redis' own. A store that does not answer fails the
// call with a StoreUnavailableError (503 to whoever waits), as the session store does.
import type { Redis } from 'ioredis';
import type { KeyValueStore } from './key-value.js';
import { closeRedis, openRedis, storeCommand } from './redis-connection.js';
import { describeRedis, type RedisTarget } from './redis-target.js';

export interface RedisKeyValueOptions {
  readonly redis: RedisTarget;
  /** sessions.keyPrefix plus the user's namespace, e.g. "switchboard:signin:". */
  readonly keyPrefix: string;
  readonly commandTimeoutMs?: number;
}

/** SADD, then the set lives at least ttl more: an earlier, longer-lived member keeps its life. */
const ADD_MEMBER = `redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

export class RedisKeyValueStore implements KeyValueStore {
  readonly kind = 'redis';
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #where: string;

  constructor({ redis, keyPrefix, commandTimeoutMs = 2_000 }: RedisKeyValueOptions) {
    this.#redis = openRedis(redis, { commandTimeoutMs });
    this.#prefix = keyPrefix;
    this.#where = describeRedis(redis);
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.#run('get', () => this.#redis.get(this.#prefix + key))) ?? undefined;
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    await this.#run('set', () =>
      ttlSeconds === undefined ? this.#redis.set(this.#prefix + key, value) : this.#redis.set(this.#prefix + key, value, 'PX', Math.max(1, Math.round(ttlSeconds * 1000))),
    );
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    const answer = await this.#run('set', () => this.#redis.set(this.#prefix + key, value, 'PX', Math.max(1, Math.round(ttlSeconds * 1000)), 'NX'));
    return answer === 'OK';
  }

  async take(key: string): Promise<string | undefined> {
    // GETDEL (Redis 6.2): one command, so two replicas handed the same single-use state never both get it.
    return (await this.#run('take', () => this.#redis.getdel(this.#prefix + key))) ?? undefined;
  }

  async delete(...keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.#run('delete', () => this.#redis.del(...keys.map((key) => this.#prefix + key)));
  }

  async addMember(set: string, member: string, ttlSeconds: number): Promise<void> {
    const ttlMs = Math.max(1, Math.round(ttlSeconds * 1000));
    await this.#run('add', () => this.#redis.eval(ADD_MEMBER, 1, this.#prefix + set, member, ttlMs));
  }

  async members(set: string): Promise<readonly string[]> {
    return this.#run('members', () => this.#redis.smembers(this.#prefix + set));
  }

  async close(): Promise<void> {
    await closeRedis(this.#redis);
  }

  #run<T>(operation: string, command: () => Promise<T>): Promise<T> {
    return storeCommand(this.#where, operation, command);
  }
}
