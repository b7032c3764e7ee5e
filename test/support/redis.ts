// What integration tests use to reach the Redis that test/support/global-setup.ts found.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

// Visible to global-setup.ts too: tsconfig.json includes all of test/.
declare module 'vitest' {
  export interface ProvidedContext {
    /** Undefined when no Redis could be found or started; redisUrl() then throws. */
    redisUrl: string | undefined;
    /** Why there is no Redis, for the error message. */
    redisUnavailableReason: string | undefined;
  }
}

/** The Redis URL for this run; throws, saying how to get Redis, when there is none. */
export function redisUrl(): string {
  const url = inject('redisUrl');
  if (url === undefined) {
    throw new Error(
      `No Redis for the integration tests (${inject('redisUnavailableReason') ?? 'no reason given'}). ` +
        'Set REDIS_URL=redis://host:port, or install redis-server (Debian/Ubuntu: apt-get install redis-server; ' +
        'macOS: brew install redis), or start Docker or Podman so that testcontainers can run redis:7-alpine.',
    );
  }
  return url;
}

/**
 * A key prefix that no other test file, test or earlier run uses: tests share one Redis (and may run
 * in parallel) without FLUSHALL. Pass it as the stores' keyPrefix; clean up with deleteKeysWithPrefix.
 */
export function uniqueKeyPrefix(label = 'test'): string {
  return `switchboard-test:${label}:${randomUUID()}:`;
}

/** Deletes every key that starts with `prefix` (made by uniqueKeyPrefix: no glob characters). */
export async function deleteKeysWithPrefix(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  try {
    let deleted = 0;
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    }
    return deleted;
  } finally {
    redis.disconnect();
  }
}
