// One contract, two limiters: counting several quotas at once (a server's and a tool's) behaves the
// same in this process and in Redis (where one script does it in one round trip), so that the
// memory twin is a faithful stand-in and per-server limits mean the same on one replica and many.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryQuotaLimiter } from '../../src/limits/memory-quotas.js';
import type { QuotaLimiter } from '../../src/limits/quota-limiter.js';
import { RedisQuotaLimiter } from '../../src/limits/redis-quotas.js';
import { deleteKeysWithPrefix, redisUrl, uniqueKeyPrefix } from '../support/redis.js';

function quotaLimiterContract(kind: string, open: () => QuotaLimiter): void {
  describe(`the ${kind} quota limiter`, () => {
    const limiter = open();
    afterAll(() => limiter.close());
    // Fresh keys per test: Redis keeps counts for two minutes.
    const fresh = (label: string) => `${label}:${randomUUID()}`;

    it('allows a quota up to its limit, then refuses with a wait of at least a second and at most two minutes', async () => {
      const key = fresh('server');
      const allowed: boolean[] = [];
      for (let call = 0; call < 4; call++) allowed.push((await limiter.hit([{ key, limit: 3 }])).allowed);
      expect(allowed).toEqual([true, true, true, false]);
      const refused = await limiter.hit([{ key, limit: 3 }]);
      expect(refused).toMatchObject({ allowed: false, refusedBy: 0 });
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(120);
    });

    it('answers an allowed request with refusedBy -1 and no wait', async () => {
      expect(await limiter.hit([{ key: fresh('a'), limit: 1 }, { key: fresh('b'), limit: 1 }])).toEqual({ allowed: true, refusedBy: -1, retryAfterSeconds: 0 });
    });

    it('counts a request in every quota when all allow it', async () => {
      const server = fresh('server');
      const tool = fresh('tool');
      expect((await limiter.hit([{ key: server, limit: 2 }, { key: tool, limit: 5 }])).allowed).toBe(true);
      expect((await limiter.hit([{ key: server, limit: 2 }])).allowed).toBe(true);
      expect(await limiter.hit([{ key: server, limit: 2 }, { key: tool, limit: 5 }])).toMatchObject({ allowed: false, refusedBy: 0 });
    });

    it('counts a refused request in none of them, so one refusal does not use up the other quota', async () => {
      const server = fresh('server');
      const tool = fresh('tool');
      expect((await limiter.hit([{ key: server, limit: 3 }, { key: tool, limit: 1 }])).allowed).toBe(true);
      expect(await limiter.hit([{ key: server, limit: 3 }, { key: tool, limit: 1 }])).toMatchObject({ allowed: false, refusedBy: 1 });
      expect(await limiter.hit([{ key: server, limit: 3 }, { key: tool, limit: 1 }])).toMatchObject({ allowed: false, refusedBy: 1 });
      // The server quota counted one request (the first), not three.
      expect((await limiter.hit([{ key: server, limit: 3 }])).allowed).toBe(true);
      expect((await limiter.hit([{ key: server, limit: 3 }])).allowed).toBe(true);
      expect((await limiter.hit([{ key: server, limit: 3 }])).allowed).toBe(false);
    });

    it('keeps keys apart', async () => {
      const first = fresh('first');
      expect((await limiter.hit([{ key: first, limit: 1 }])).allowed).toBe(true);
      expect((await limiter.hit([{ key: first, limit: 1 }])).allowed).toBe(false);
      expect((await limiter.hit([{ key: fresh('second'), limit: 1 }])).allowed).toBe(true);
    });
  });
}

quotaLimiterContract('memory', () => new MemoryQuotaLimiter());

const prefix = uniqueKeyPrefix('quotas');
quotaLimiterContract('Redis', () => new RedisQuotaLimiter({ redis: redisUrl(), keyPrefix: prefix }));
afterAll(async () => {
  await deleteKeysWithPrefix(redisUrl(), prefix);
});

describe('the Redis quota limiter without Redis', () => {
  it('lets requests through, with one warning', async () => {
    const warnings: string[] = [];
    const limiter = new RedisQuotaLimiter({
      redis: 'redis://127.0.0.1:1',
      commandTimeoutMs: 200,
      logger: { warn: (_fields: unknown, message?: string) => void warnings.push(String(message)), info: () => {} } as never,
    });
    try {
      expect((await limiter.hit([{ key: 'a', limit: 1 }])).allowed).toBe(true);
      expect((await limiter.hit([{ key: 'a', limit: 1 }])).allowed).toBe(true);
      expect(warnings).toEqual(['rate limits not enforced: Redis does not answer']);
    } finally {
      await limiter.close();
    }
  });
});
