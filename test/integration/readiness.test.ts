// /readyz and the session store: by default a gateway on a Redis that dies stays ready (it still
// answers the documented 503, and 2026 requests that need no store) and says the store is out in
// the body; with sessions.notReadyWhileDown it says it cannot take traffic, and says it can again
// once Redis is back, without a restart. /healthz stays 200 throughout.
import { skipWithout } from '../support/required-tools.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { hasRedisServer, startKillableRedis, type KillableRedis } from '../support/killable-redis.js';
import { scrapeMetrics } from '../support/metrics-scrape.js';
import { rawPost } from '../support/raw-http.js';

const POLL = { timeout: 20_000, interval: 100 };

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('readiness with the Redis session store', () => {
  let redis: KillableRedis;
  let gateway: TestGateway;
  /** The same deployment with the store required for readiness, and a longer Retry-After. */
  let strict: TestGateway;

  beforeAll(async () => {
    redis = await startKillableRedis();
    gateway = await startGateway({
      sessions: { store: 'redis', redisUrl: redis.url },
      mcpServers: {},
    });
    strict = await startGateway({
      sessions: { store: 'redis', redisUrl: redis.url, notReadyWhileDown: true, retryAfterSeconds: 5 },
      mcpServers: {},
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await strict?.close();
    await redis?.stop();
  });

  async function probe(path: '/readyz' | '/healthz', of = gateway): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(new URL(path, of.url));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('stays ready while Redis is down, saying so in the body; with notReadyWhileDown, unavailable until it is back', async () => {
    expect(await probe('/readyz')).toMatchObject({ status: 200, body: { status: 'ready', store: { state: 'answering' }, upstreams: {} } });
    expect(await probe('/readyz', strict)).toMatchObject({ status: 200, body: { status: 'ready', store: { state: 'answering' } } });

    await redis.kill();
    await expect.poll(() => probe('/readyz'), POLL).toMatchObject({ status: 200, body: { status: 'ready', store: { state: 'outage', kind: 'down' } } });
    await expect.poll(() => probe('/readyz', strict), POLL).toMatchObject({ status: 503, body: { status: 'unavailable', store: { state: 'outage', kind: 'down' } } });
    expect((await probe('/healthz')).status).toBe(200);
    expect((await probe('/healthz', strict)).status).toBe(200);

    await redis.restart();
    await expect.poll(() => probe('/readyz'), POLL).toMatchObject({ status: 200, body: { status: 'ready', store: { state: 'answering' } } });
    await expect.poll(() => probe('/readyz', strict), POLL).toMatchObject({ status: 200, body: { status: 'ready', store: { state: 'answering' } } });
  });

  it('answers with the configured Retry-After while Redis is down', async () => {
    await redis.kill();
    try {
      const initialize = { jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ready', version: '1' } } };
      const [usual, configured] = await Promise.all([rawPost(gateway.url, initialize), rawPost(strict.url, initialize)]);
      expect(usual).toMatchObject({ status: 503, body: { id: 7, error: { data: { retryAfterSeconds: 1 } } } });
      expect(usual.headers.get('retry-after')).toBe('1');
      expect(configured).toMatchObject({ status: 503, body: { id: 7, error: { data: { retryAfterSeconds: 5 } } } });
      expect(configured.headers.get('retry-after')).toBe('5');
    } finally {
      await redis.restart();
    }
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
