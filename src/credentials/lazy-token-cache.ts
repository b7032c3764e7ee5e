// The token cache of the store in use, made when the first server with tokenExchange needs it (no
// Redis connection of its own otherwise): Redis for many replicas, so a token any replica obtained
// serves them all, sealed with sessions.credentialKey; memory for one.
import type { Config } from '../config/schema.js';
import type { Logger } from '../observe/logger.js';
import { MemoryTokenCache } from './memory-token-cache.js';
import { RedisTokenCache } from './redis-token-cache.js';
import type { TokenCache } from './token-cache.js';
import { redisTargetOf } from '../session/redis-target.js';

export class LazyTokenCache {
  #cache: (TokenCache & { close?(): Promise<void> }) | undefined;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  get(): TokenCache {
    this.#cache ??= this.#make();
    return this.#cache;
  }

  async close(): Promise<void> {
    await this.#cache?.close?.();
  }

  #make(): TokenCache & { close?(): Promise<void> } {
    const { sessions } = this.config;
    const redis = sessions.store === 'redis' ? redisTargetOf(sessions) : undefined;
    if (redis === undefined) return new MemoryTokenCache();
    // The schema requires the key with Redis and tokenExchange (config/credentials.ts).
    if (sessions.credentialKey === undefined) throw new Error('sessions.credentialKey is required to share exchanged tokens in Redis');
    return new RedisTokenCache({ redis, credentialKey: sessions.credentialKey, keyPrefix: sessions.keyPrefix, logger: this.logger });
  }
}
