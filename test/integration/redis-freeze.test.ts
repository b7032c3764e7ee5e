// A frozen Redis (SIGSTOP): connected, not answering. A request that needs the store waits for one
// command timeout at most, whichever of its connections met it (rate limits run first, with 1 s),
// and once the store is known to be stuck, requests are refused at once until a probe is answered.
// A refused initialize did nothing: the session its create asked for, sent before Redis froze and
// run when it resumed, does not stay.
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { hasRedisServer, startKillableRedis, type KillableRedis } from '../support/killable-redis.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { skipWithout } from '../support/required-tools.js';
import { stdioFixture } from '../support/upstreams.js';

/** The store's command timeout: no request may wait longer for the store (a little for a loaded machine). */
const DEADLINE_MS = 2_000;
const SLACK_MS = 300;
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 7,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'freeze', version: '1' } },
};

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('the gateway while its Redis is frozen', () => {
  let redis: KillableRedis | undefined;
  let gateway: TestGateway | undefined;
  let admin: Redis | undefined;

  afterEach(async () => {
    redis?.resume();
    admin?.disconnect();
    await gateway?.close();
    await redis?.stop();
  });

  async function frozenGateway(limits: Record<string, unknown>): Promise<{ redis: KillableRedis; gateway: TestGateway; sessionKeys: () => Promise<number> }> {
    redis = await startKillableRedis();
    gateway = await startGateway({ sessions: { redisUrl: redis.url }, limits, mcpServers: { tally: stdioFixture('tally-server') } });
    admin = new Redis(redis.url, { lazyConnect: true });
    const connection = admin;
    const sessionKeys = async () => (await connection.keys('*session:*')).length;
    await openSession(gateway.url);
    return { redis, gateway, sessionKeys };
  }

  async function timed(url: string): Promise<{ status: number; ms: number }> {
    const started = Date.now();
    const { status } = await rawPost(url, INITIALIZE);
    return { status, ms: Date.now() - started };
  }

  it('answers 503 within the store timeout, rate limits included, and later requests at once', async () => {
    const { redis, gateway } = await frozenGateway({ requestsPerMinute: 10_000 });
    redis.pause();
    const answers = [];
    for (let n = 0; n < 4; n += 1) answers.push(await timed(gateway.url));
    expect(answers.map(({ status }) => status)).toEqual([503, 503, 503, 503]);
    expect(answers[0]!.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
    for (const { ms } of answers.slice(1)) expect(ms).toBeLessThan(SLACK_MS);
    redis.resume();
    // A probe sees it answer: served again, without waiting for a reconnect.
    await expect.poll(async () => (await rawPost(gateway.url, INITIALIZE)).status, { timeout: 5_000, interval: 100 }).toBe(200);
  }, 30_000);

  it('leaves no session behind for an initialize it refused, although Redis ran its create on resuming', async () => {
    const { redis, gateway, sessionKeys } = await frozenGateway({});
    expect(await sessionKeys()).toBe(1);
    redis.pause();
    const refused = await timed(gateway.url);
    expect(refused.status).toBe(503);
    expect(refused.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
    redis.resume();
    // The create ran when Redis resumed (it was in the socket); the gateway undoes it.
    await sleep(1_000);
    await expect.poll(sessionKeys, { timeout: 5_000, interval: 100 }).toBe(1);
    await sleep(500);
    expect(await sessionKeys()).toBe(1);
  }, 30_000);
});
