// Exchanged tokens shared by the replicas: a caller whose requests a load balancer spreads over
// them is exchanged once per renewal, not once per replica.
//
// Layout: {prefix}credential:{sha256 hex of the cache key}, a string that expires (PXAT) when the
// token is due. The cache key names the caller (exchange-source.ts makes it); hashed, no key shows who
// uses the gateway. The value is token-sealing.ts's seal of {t: token, e: due}, bound to the Redis
// key: one that does not open (another credentialKey, tampering, a value moved between keys) is a
// miss, and the caller gets a fresh exchange rather than an error.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../observe/logger.js';
import { closeRedis, openRedis } from '../session/redis-connection.js';
import { describeRedis, type RedisTarget } from '../session/redis-target.js';
import type { CachedToken, TokenCache } from './token-cache.js';
import { TokenSealer } from './token-sealing.js';

/** ioredis states after a connection was lost or given up; "connecting" (the first one) is waited for. */
const LOST: ReadonlySet<string> = new Set(['reconnecting', 'close', 'end']);

export interface RedisTokenCacheOptions {
  /** A redis:// URL or a Sentinel group: the sessions' Redis (redis-target.ts). */
  readonly redis: RedisTarget;
  /** sessions.credentialKey: the same on every replica, or their tokens do not open for each other. */
  readonly credentialKey: string;
  /** sessions.keyPrefix. Default "switchboard:". */
  readonly keyPrefix?: string;
  /** A cache that does not answer in this long is skipped (the source exchanges instead). */
  readonly commandTimeoutMs?: number;
  /** Told when Redis stops answering and when it answers again (once each, not per retry). */
  readonly logger?: Pick<Logger, 'info' | 'warn'>;
  readonly now?: () => number;
}

export class RedisTokenCache implements TokenCache {
  readonly #redis: Redis;
  readonly #sealer: TokenSealer;
  readonly #keyPrefix: string;
  readonly #describedUrl: string;
  readonly #now: () => number;

  constructor({ redis, credentialKey, keyPrefix = 'switchboard:', commandTimeoutMs = 1_000, logger, now = Date.now }: RedisTokenCacheOptions) {
    this.#sealer = new TokenSealer(credentialKey);
    this.#keyPrefix = keyPrefix;
    this.#describedUrl = describeRedis(redis);
    this.#now = now;
    // A cache that is down costs each resolve nothing (no queue) or a command timeout, then an exchange.
    this.#redis = openRedis(redis, { commandTimeoutMs });
    this.#reportConnectionChanges(logger);
  }

  async get(key: string): Promise<CachedToken | undefined> {
    const redisKey = this.#redisKey(key);
    const sealed = await this.#run('get', () => this.#redis.get(redisKey));
    if (sealed === null) return undefined;
    const entry = parseEntry(this.#sealer.open(sealed, redisKey));
    return entry !== undefined && entry.expiresAt > this.#now() ? entry : undefined;
  }

  async set(key: string, token: string, expiresAt: number): Promise<void> {
    if (expiresAt <= this.#now()) return;
    const redisKey = this.#redisKey(key);
    const sealed = this.#sealer.seal(JSON.stringify({ t: token, e: expiresAt }), redisKey);
    // The due time itself (PXAT, Redis 6.2, as GETEX for sessions), not a TTL counted before the
    // seal and the round trip: the entry never outlives its token, however long those took.
    await this.#run('set', () => this.#redis.set(redisKey, sealed, 'PXAT', Math.floor(expiresAt)));
  }

  async close(): Promise<void> {
    await closeRedis(this.#redis);
  }

  #redisKey(key: string): string {
    return `${this.#keyPrefix}credential:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
  }

  /** Names the cache and Redis in errors (without its password): "Command timed out" alone says little. */
  async #run<T>(operation: string, command: () => Promise<T>): Promise<T> {
    // A cache known to be down is skipped at once rather than waited for on every resolve: an
    // exchange costs less than a command timeout. Only the first connection is waited for.
    if (LOST.has(this.#redis.status)) throw new Error(`credential cache ${operation} skipped: Redis at ${this.#describedUrl} is not connected`);
    try {
      return await command();
    } catch (error) {
      throw new Error(`credential cache ${operation} failed on Redis at ${this.#describedUrl}: ${messageOf(error)}`, { cause: error });
    }
  }

  #reportConnectionChanges(logger: RedisTokenCacheOptions['logger']): void {
    // ioredis prints unhandled 'error' events to the console: listening is required, and logging
    // only the transitions keeps an outage to two lines.
    let answering = true;
    this.#redis.on('error', (error: unknown) => {
      if (!answering) return;
      answering = false;
      logger?.warn({ redis: this.#describedUrl, err: messageOf(error) }, 'Redis credential cache does not answer');
    });
    this.#redis.on('ready', () => {
      if (answering) return;
      answering = true;
      logger?.info({ redis: this.#describedUrl }, 'Redis credential cache answers again');
    });
  }
}

function parseEntry(plain: string | undefined): CachedToken | undefined {
  if (plain === undefined) return undefined;
  try {
    const { t, e } = JSON.parse(plain) as { t?: unknown; e?: unknown };
    return typeof t === 'string' && typeof e === 'number' ? { token: t, expiresAt: e } : undefined;
  } catch {
    return undefined;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
