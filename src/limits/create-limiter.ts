// Picks the limiters: Redis when sessions live in Redis (so limits hold across replicas), memory
// otherwise. The HTTP middleware's needs `limits.requestsPerMinute`; per-server limits ask for
// theirs only when some server has a rate (and may first do so after a reload).
import type { Config } from '../config/schema.js';
import type { Logger } from '../observe/logger.js';
import { MemoryQuotaLimiter } from './memory-quotas.js';
import { MemoryRateLimiter } from './memory-limiter.js';
import type { QuotaLimiter } from './quota-limiter.js';
import type { RateLimiter } from './rate-limiter.js';
import { redisTargetOf } from '../session/redis-target.js';
import { RedisRateLimiter } from './redis-limiter.js';
import { RedisQuotaLimiter } from './redis-quotas.js';

export function createRateLimiter(config: Pick<Config, 'limits' | 'sessions'>, logger?: Logger): RateLimiter | undefined {
  const limit = config.limits.requestsPerMinute;
  if (limit === undefined) return undefined;
  const redis = config.sessions.store === 'redis' ? redisTargetOf(config.sessions) : undefined;
  if (redis !== undefined) {
    return new RedisRateLimiter({ redis, limit, keyPrefix: `${config.sessions.keyPrefix}ratelimit:`, ...(logger && { logger }) });
  }
  return new MemoryRateLimiter({ limit });
}

/** Dynamic client registrations per client address (auth.signIn.registration), across replicas on Redis. */
export function createRegistrationLimiter(config: Pick<Config, 'sessions'>, perMinute: number, logger?: Logger): RateLimiter {
  const redis = config.sessions.store === 'redis' ? redisTargetOf(config.sessions) : undefined;
  if (redis !== undefined) {
    return new RedisRateLimiter({ redis, limit: perMinute, keyPrefix: `${config.sessions.keyPrefix}registrations:`, ...(logger && { logger }) });
  }
  return new MemoryRateLimiter({ limit: perMinute });
}

/** The counts of limits.servers: `{keyPrefix}serverlimit:*` in Redis, one hash per principal and server (or tool). */
export function createQuotaLimiter(config: Pick<Config, 'sessions'>, logger?: Logger): QuotaLimiter {
  const redis = config.sessions.store === 'redis' ? redisTargetOf(config.sessions) : undefined;
  if (redis !== undefined) {
    return new RedisQuotaLimiter({ redis, keyPrefix: `${config.sessions.keyPrefix}serverlimit:`, ...(logger && { logger }) });
  }
  return new MemoryQuotaLimiter();
}
