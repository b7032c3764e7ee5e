// Redis Sentinel: two gateway replicas configured with three sentinels (not an address) follow a
// failover without a restart. The master is SIGKILLed while clients call through both replicas
// every ~20 ms; the sentinels promote the replica; within seconds both gateways serve again, and
// the sessions made before the kill continue there. Meanwhile clients see 2xx or 503 with
// Retry-After, and what they saw matches what reached the upstreams.
import { skipWithout } from '../support/required-tools.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAnswers, doneOtherThanOnce, FaultTraffic, tally } from '../support/fault-traffic.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { hasRedisServer } from '../support/killable-redis.js';
import { rawRequest } from '../support/raw-http.js';
import { hasRedisSentinel, startSentinelGroup, type SentinelGroup } from '../support/redis-sentinel.js';
import { stdioFixture } from '../support/upstreams.js';

const CLIENTS = 4;
/** Sentinel needs 1 s to call the master down, then an election and a promotion: a few seconds. */
const FAILOVER = { timeout: 20_000, interval: 100 };
/** From the promotion to every client answered by both replicas. */
const FOLLOW_WITHIN_MS = 5_000;
const BOUND_MS = 3_000;

describe.skipIf(skipWithout(hasRedisServer() && hasRedisSentinel(), 'redis-server and redis-sentinel'))('two gateway replicas on Redis Sentinel', () => {
  let group: SentinelGroup;
  const gateways: TestGateway[] = [];

  beforeAll(async () => {
    group = await startSentinelGroup();
    const config = {
      sessions: { redis: { sentinels: group.sentinels.map(({ host, port }) => `${host}:${port}`), masterName: group.masterName } },
      mcpServers: { tally: stdioFixture('tally-server') },
    };
    gateways.push(await startGateway(config), await startGateway(config));
  }, 90_000);

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await group?.stop();
  });

  it('follow a failover within seconds, and the sessions made before it continue', async () => {
    const urls = gateways.map((gateway) => gateway.url);
    const traffic = await FaultTraffic.open(urls, CLIENTS);
    const oldMaster = group.master.port;
    traffic.start();
    await sleep(500);
    // Replication is asynchronous: what the master acknowledged in its last moment may not have
    // reached the replica. The sessions were written before this, so the replica has them.
    await group.replicaCaughtUp();
    const killedAt = Date.now();
    await group.master.kill();
    let promotedAt = 0;
    let followedAt = 0;
    try {
      await expect.poll(() => group.masterPort(), FAILOVER).toBe(group.replica.port);
      promotedAt = Date.now();
      await expect.poll(() => traffic.allAnsweredSince(promotedAt), FAILOVER).toBe(true);
      followedAt = Date.now();
    } finally {
      await traffic.stop();
    }

    const { answers, failures } = traffic;
    const summary = `${describeAnswers(answers)}; promoted ${promotedAt - killedAt} ms after the kill, followed ${followedAt - promotedAt} ms later`;
    expect(group.replica.port).not.toBe(oldMaster);
    expect(followedAt - promotedAt, summary).toBeLessThan(FOLLOW_WITHIN_MS);
    // No 404: every session written before the kill is on the new master.
    for (const failure of failures) expect(failure, summary).toMatchObject({ status: 503, retryAfter: '1', errorMessage: 'the session store is unavailable; retry' });
    expect(failures.length, summary).toBeGreaterThan(0);
    expect(Math.max(...answers.map(({ ms }) => ms)), summary).toBeLessThan(BOUND_MS);
    // Ready throughout (readiness does not follow the store); the store serves again on each replica.
    for (const url of urls) {
      await expect.poll(() => rawRequest(new URL('/readyz', url).toString(), 'GET'), FAILOVER).toMatchObject({ status: 200, body: { store: { state: 'answering' } } });
    }
    for (const gateway of gateways) {
      expect(gateway.logs.filter((line) => line.msg === 'session store outage began')).toEqual([expect.objectContaining({ outage: 'down' })]);
      expect(gateway.logs.filter((line) => line.msg === 'session store outage ended')).toEqual([expect.objectContaining({ outage: 'down' })]);
    }

    const counts = Object.fromEntries(await Promise.all(urls.map(async (url) => [url, await tally(url)] as const)));
    expect(doneOtherThanOnce(answers, counts)).toEqual([]);
  });
});
