// Picks the limiter: none without `limits.requestsPerMinute`; Redis when sessions live in Redis (so
// the limit holds across replicas); memory otherwise.
import type { Config } from '../config/schema.js';
import type { Logger } from '../observe/logger.js';
import { MemoryRateLimiter } from './memory-limiter.js';
import type { RateLimiter } from './rate-limiter.js';
import { RedisRateLimiter } from './redis-limiter.js';

export function createRateLimiter(config: Pick<Config, 'limits' | 'sessions'>, logger?: Logger): RateLimiter | undefined {
  const limit = config.limits.requestsPerMinute;
  if (limit === undefined) return undefined;
  if (config.sessions.store === 'redis' && config.sessions.redisUrl !== undefined) {
    return new RedisRateLimiter({ url: config.sessions.redisUrl, limit, keyPrefix: `${config.sessions.keyPrefix}ratelimit:`, ...(logger && { logger }) });
  }
  return new MemoryRateLimiter({ limit });
}
