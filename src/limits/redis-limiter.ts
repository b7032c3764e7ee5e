// Request counts in Redis, so that a principal's limit holds across every replica. One script per
// request does it all in one round trip, atomically: roll the key's windows on Redis' own clock
// (replicas' clocks may disagree; Redis has one), decide, count, and set the expiry. The state is
// one small hash per key, `{prefix}{sha256(key)}`, gone two windows after its last request.
// A Redis that does not answer lets requests through (with a warning): the limit protects the
// upstreams from a runaway client, and refusing everyone while Redis is down would do more harm.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { closeRedis, openRedis } from '../session/redis-connection.js';
import type { Logger } from '../observe/logger.js';
import { LuaScript } from '../session/lua-script.js';
import { assertRedisUrl, describeRedisUrl } from '../session/redis-url.js';
import { assertRateLimitOptions, DEFAULT_WINDOW_MS, type RateDecision, type RateLimiter, type RateLimitOptions } from './rate-limiter.js';
import { retryAfterMs, retryAfterSeconds } from './sliding-window.js';

// KEYS[1] the key's hash; ARGV[1] window ms, ARGV[2] limit. Returns {allowed, current, previous, elapsed}.
// The same arithmetic as sliding-window.ts; the refusal's wait is computed there, from these numbers.
const SLIDING_WINDOW_HIT = new LuaScript(`
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local index = math.floor(now / window)
local state = redis.call('HMGET', KEYS[1], 'w', 'c', 'p')
local w = tonumber(state[1])
local current = tonumber(state[2]) or 0
local previous = tonumber(state[3]) or 0
if w == nil or w < index - 1 or w > index then
  current = 0
  previous = 0
elseif w == index - 1 then
  previous = current
  current = 0
end
local elapsed = now - index * window
local allowed = 0
if previous * (window - elapsed) / window + current + 1 <= limit then
  current = current + 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'w', index, 'c', current, 'p', previous)
redis.call('PEXPIRE', KEYS[1], window * 2)
return {allowed, current, previous, elapsed}
`);

export interface RedisRateLimiterOptions extends RateLimitOptions {
  readonly url: string;
  /** Default "switchboard:ratelimit:". */
  readonly keyPrefix?: string;
  /** A Redis that has not answered after this long lets the request through. */
  readonly commandTimeoutMs?: number;
  readonly logger?: Pick<Logger, 'warn' | 'info'>;
}

export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis' as const;
  readonly #redis: Redis;
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #keyPrefix: string;
  readonly #logger: Pick<Logger, 'warn' | 'info'> | undefined;
  readonly #describedUrl: string;
  #failing = false;

  constructor({ url, limit, windowMs = DEFAULT_WINDOW_MS, keyPrefix = 'switchboard:ratelimit:', commandTimeoutMs = 1_000, logger }: RedisRateLimiterOptions) {
    assertRateLimitOptions({ limit, windowMs });
    assertRedisUrl(url);
    this.#limit = limit;
    this.#windowMs = windowMs;
    this.#keyPrefix = keyPrefix;
    this.#logger = logger;
    this.#describedUrl = describeRedisUrl(url);
    this.#redis = openRedis(url, { commandTimeoutMs, maxRetriesPerRequest: 1 });
    // Connection errors are reported once, by the first hit that fails; ioredis would print them.
    this.#redis.on('error', () => {});
  }

  async hit(key: string): Promise<RateDecision> {
    let reply: unknown;
    try {
      reply = await SLIDING_WINDOW_HIT.run(this.#redis, [this.#redisKey(key)], [this.#windowMs, this.#limit]);
    } catch (error) {
      if (!this.#failing) {
        this.#failing = true;
        this.#logger?.warn({ redis: this.#describedUrl, err: error instanceof Error ? error.message : String(error) }, 'rate limits not enforced: Redis does not answer');
      }
      return { allowed: true, retryAfterSeconds: 0 };
    }
    if (this.#failing) {
      this.#failing = false;
      this.#logger?.info({ redis: this.#describedUrl }, 'rate limits enforced again: Redis answers');
    }
    const [allowed, current, previous, elapsed] = (reply as number[]).map(Number) as [number, number, number, number];
    if (allowed === 1) return { allowed: true, retryAfterSeconds: 0 };
    return {
      allowed: false,
      retryAfterSeconds: retryAfterSeconds(retryAfterMs({ window: 0, current, previous }, elapsed, this.#windowMs, this.#limit)),
    };
  }

  async close(): Promise<void> {
    await closeRedis(this.#redis);
  }

  #redisKey(key: string): string {
    return `${this.#keyPrefix}${createHash('sha256').update(key).digest('base64url').slice(0, 32)}`;
  }
}
