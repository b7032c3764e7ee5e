// Request counts in Redis, so that a principal's limits hold across every replica. One script per
// request does it all in one round trip, atomically, for every quota of the request: roll each
// key's windows on Redis' own clock (replicas' clocks may disagree; Redis has one), decide, count
// in all of them or in none, and set the expiry. The state is one small hash per key,
// `{prefix}{sha256(key)}`, gone two windows after its last counted request.
// A Redis that does not answer lets requests through (with a warning): limits protect upstreams
// from a runaway client, and refusing everyone while Redis is down would do more harm.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../observe/logger.js';
import { LuaScript } from '../session/lua-script.js';
import { closeRedis, openRedis } from '../session/redis-connection.js';
import { describeRedis, type RedisTarget } from '../session/redis-target.js';
import { ALLOWED, type Quota, type QuotaDecision, type QuotaLimiter } from './quota-limiter.js';
import { assertWindow, DEFAULT_WINDOW_MS } from './rate-limiter.js';
import { retryAfterMs, retryAfterSeconds } from './sliding-window.js';

// KEYS: one hash per quota; ARGV[1] window ms, ARGV[1 + i] the limit of KEYS[i].
// Returns {allowed, elapsed, then allowed_i, current_i, previous_i for each key}, the counts as
// they were before this request. The same arithmetic as sliding-window.ts; the refusal's wait is
// computed there, from these numbers.
const SLIDING_WINDOW_HIT_ALL = new LuaScript(`
local window = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local index = math.floor(now / window)
local elapsed = now - index * window
local reply = {1, elapsed}
local counts = {}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[i + 1])
  local state = redis.call('HMGET', key, 'w', 'c', 'p')
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
  local allowed = 0
  if previous * (window - elapsed) / window + current + 1 <= limit then
    allowed = 1
  else
    reply[1] = 0
  end
  counts[i] = {current, previous}
  reply[#reply + 1] = allowed
  reply[#reply + 1] = current
  reply[#reply + 1] = previous
end
if reply[1] == 1 then
  for i, key in ipairs(KEYS) do
    redis.call('HSET', key, 'w', index, 'c', counts[i][1] + 1, 'p', counts[i][2])
    redis.call('PEXPIRE', key, window * 2)
  end
end
return reply
`);

export interface RedisQuotaLimiterOptions {
  /** A redis:// URL or a Sentinel group: the sessions' Redis (redis-target.ts). */
  readonly redis: RedisTarget;
  /** Default one minute. */
  readonly windowMs?: number;
  /** Default "switchboard:ratelimit:". */
  readonly keyPrefix?: string;
  /** A Redis that has not answered after this long lets the request through. */
  readonly commandTimeoutMs?: number;
  readonly logger?: Pick<Logger, 'warn' | 'info'>;
}

export class RedisQuotaLimiter implements QuotaLimiter {
  readonly kind = 'redis' as const;
  readonly #redis: Redis;
  readonly #windowMs: number;
  readonly #keyPrefix: string;
  readonly #logger: Pick<Logger, 'warn' | 'info'> | undefined;
  readonly #describedUrl: string;
  #failing = false;

  constructor({ redis, windowMs = DEFAULT_WINDOW_MS, keyPrefix = 'switchboard:ratelimit:', commandTimeoutMs = 1_000, logger }: RedisQuotaLimiterOptions) {
    assertWindow(windowMs);
    this.#windowMs = windowMs;
    this.#keyPrefix = keyPrefix;
    this.#logger = logger;
    this.#describedUrl = describeRedis(redis);
    this.#redis = openRedis(redis, { commandTimeoutMs });
    // Connection errors are reported once, by the first hit that fails; ioredis would print them.
    this.#redis.on('error', () => {});
  }

  async hit(quotas: readonly Quota[]): Promise<QuotaDecision> {
    let reply: unknown;
    try {
      reply = await SLIDING_WINDOW_HIT_ALL.run(
        this.#redis,
        quotas.map(({ key }) => this.#redisKey(key)),
        [this.#windowMs, ...quotas.map(({ limit }) => limit)],
      );
    } catch (error) {
      if (!this.#failing) {
        this.#failing = true;
        this.#logger?.warn({ redis: this.#describedUrl, err: error instanceof Error ? error.message : String(error) }, 'rate limits not enforced: Redis does not answer');
      }
      return ALLOWED;
    }
    if (this.#failing) {
      this.#failing = false;
      this.#logger?.info({ redis: this.#describedUrl }, 'rate limits enforced again: Redis answers');
    }
    const numbers = (reply as unknown[]).map(Number);
    if (numbers[0] === 1) return ALLOWED;
    const elapsed = numbers[1]!;
    let refusedBy = -1;
    let longest = 0;
    for (const [index, { limit }] of quotas.entries()) {
      const [allowed, current, previous] = numbers.slice(2 + index * 3, 5 + index * 3) as [number, number, number];
      if (allowed === 1) continue;
      const wait = retryAfterMs({ window: 0, current, previous }, elapsed, this.#windowMs, limit);
      if (refusedBy < 0 || wait > longest) {
        refusedBy = index;
        longest = wait;
      }
    }
    return { allowed: false, refusedBy, retryAfterSeconds: retryAfterSeconds(longest) };
  }

  async close(): Promise<void> {
    await closeRedis(this.#redis);
  }

  #redisKey(key: string): string {
    return `${this.#keyPrefix}${createHash('sha256').update(key).digest('base64url').slice(0, 32)}`;
  }
}
