// /readyz follows the session store: a gateway on a Redis that dies says it cannot take traffic,
// and says it can again once Redis is back, without a restart. /healthz stays 200 throughout.
import { skipWithout } from '../support/required-tools.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { hasRedisServer, startKillableRedis, type KillableRedis } from '../support/killable-redis.js';
import { scrapeMetrics } from '../support/metrics-scrape.js';

const POLL = { timeout: 20_000, interval: 100 };

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('readiness with the Redis session store', () => {
  let redis: KillableRedis;
  let gateway: TestGateway;

  beforeAll(async () => {
    redis = await startKillableRedis();
    gateway = await startGateway({
      sessions: { store: 'redis', redisUrl: redis.url },
      mcpServers: {},
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await redis?.stop();
  });

  async function probe(path: '/readyz' | '/healthz'): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(new URL(path, gateway.url));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('is ready while Redis answers, unavailable while it is down, and ready again once it is back', async () => {
    expect(await probe('/readyz')).toMatchObject({ status: 200, body: { status: 'ready', upstreams: {} } });

    await redis.kill();
    await expect.poll(() => probe('/readyz'), POLL).toMatchObject({ status: 503, body: { status: 'unavailable' } });
    expect((await probe('/healthz')).status).toBe(200);

    await redis.restart();
    await expect.poll(() => probe('/readyz'), POLL).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('still answers /metrics while Redis is down, with the last session count and session_store_up 0', async () => {
    await expect.poll(async () => (await scrapeMetrics(gateway.url)).value('switchboard_session_store_up'), POLL).toBe(1);
    await redis.kill();
    try {
      await expect
        .poll(async () => {
          const scrape = await scrapeMetrics(gateway.url);
          return { status: scrape.status, storeUp: scrape.value('switchboard_session_store_up'), hasSessions: scrape.text.includes('\nswitchboard_sessions_active ') };
        }, POLL)
        .toEqual({ status: 200, storeUp: 0, hasSessions: true });
    } finally {
      await redis.restart();
    }
  });
});
