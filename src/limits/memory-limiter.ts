// One limit per key, counted in this process (MemoryQuotaLimiter with a single quota): the HTTP
// middleware's limiter for one replica.
import { MemoryQuotaLimiter } from './memory-quotas.js';
import { assertRateLimitOptions, type RateDecision, type RateLimiter, type RateLimitOptions } from './rate-limiter.js';

export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory' as const;
  readonly #limit: number;
  readonly #quotas: MemoryQuotaLimiter;

  constructor(options: RateLimitOptions & { now?: () => number }) {
    assertRateLimitOptions(options);
    this.#limit = options.limit;
    this.#quotas = new MemoryQuotaLimiter({
      ...(options.windowMs !== undefined && { windowMs: options.windowMs }),
      ...(options.now !== undefined && { now: options.now }),
    });
  }

  async hit(key: string): Promise<RateDecision> {
    const { allowed, retryAfterSeconds } = await this.#quotas.hit([{ key, limit: this.#limit }]);
    return { allowed, retryAfterSeconds };
  }

  close(): Promise<void> {
    return this.#quotas.close();
  }
}
