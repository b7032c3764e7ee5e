// One limit per key, counted in Redis (RedisQuotaLimiter with a single quota), so that a
// principal's limit holds across every replica: the HTTP middleware's limiter with Redis.
import type { Logger } from '../observe/logger.js';
import { assertRateLimitOptions, type RateDecision, type RateLimiter, type RateLimitOptions } from './rate-limiter.js';
import { RedisQuotaLimiter } from './redis-quotas.js';
import type { RedisTarget } from '../session/redis-target.js';

export interface RedisRateLimiterOptions extends RateLimitOptions {
  /** A redis:// URL or a Sentinel group: the sessions' Redis (redis-target.ts). */
  readonly redis: RedisTarget;
  /** Default "switchboard:ratelimit:". */
  readonly keyPrefix?: string;
  /** A Redis that has not answered after this long lets the request through. */
  readonly commandTimeoutMs?: number;
  readonly logger?: Pick<Logger, 'warn' | 'info'>;
}

export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis' as const;
  readonly #limit: number;
  readonly #quotas: RedisQuotaLimiter;

  constructor({ limit, ...options }: RedisRateLimiterOptions) {
    assertRateLimitOptions({ limit, ...(options.windowMs !== undefined && { windowMs: options.windowMs }) });
    this.#limit = limit;
    this.#quotas = new RedisQuotaLimiter(options);
  }

  async hit(key: string): Promise<RateDecision> {
    const { allowed, retryAfterSeconds } = await this.#quotas.hit([{ key, limit: this.#limit }]);
    return { allowed, retryAfterSeconds };
  }

  close(): Promise<void> {
    return this.#quotas.close();
  }
}
