// How every command connection of ours talks to Redis: commands wait while (re)connecting, but
// only for a couple of attempts and a bounded time, so a down Redis is a fast error, never a hang.
import { Redis } from 'ioredis';

export interface RedisConnectionOptions {
  readonly commandTimeoutMs?: number;
  readonly maxRetriesPerRequest?: number;
}

export function openRedis(url: string, { commandTimeoutMs = 2_000, maxRetriesPerRequest = 2 }: RedisConnectionOptions = {}): Redis {
  return new Redis(url, { lazyConnect: false, enableOfflineQueue: true, maxRetriesPerRequest, commandTimeout: commandTimeoutMs });
}

/** Says goodbye when Redis answers; drops the socket when it does not. */
export async function closeRedis(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
