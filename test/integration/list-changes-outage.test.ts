// A list change while the shared store is down: two replicas on a Redis of the test's own, 2025
// sessions and 2026 listens on each, and a tool added upstream (a remote server, which both replicas
// see change) during a 3 s outage. Neither replica can claim or announce the change then; both keep
// it, and once Redis is back every session and every listen hears of it exactly once. Then a
// demotion behind one address: the master the gateways' URL reaches becomes a replica, a proxy sends
// new connections to the new master, and the next list change is announced at once, on connections
// that noticed the demotion before anything failed on them.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGatewayProcess, writeConfigFile, type GatewayProcess } from '../support/gateway-process.js';
import { hasRedisServer, startKillableRedis, type KillableRedis } from '../support/killable-redis.js';
import { scrapeMetrics } from '../support/metrics-scrape.js';
import { connectModern } from '../support/modern-client.js';
import { connectRecordingClient, type RecordingClient } from '../support/recording-client.js';
import { skipWithout } from '../support/required-tools.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startHttpFixture, type HttpUpstream } from '../support/upstreams.js';

const OUTAGE_MS = 3_000;
const SETTLE_MS = 1_000;

interface Listener {
  readonly client: Client;
  heard: number;
}

/**
 * Two 2025 sessions and a 2026 listen on each replica, once it lists the upstream's tools: the
 * gateway listens before its upstreams have answered, and a session opened before the first
 * listing's announcement has gone out is rightly told of it (it may have listed nothing), so
 * SETTLE_MS more lets that announcement, to nobody, go out first.
 */
async function openClients(replicas: readonly GatewayProcess[]): Promise<{ sessions: RecordingClient[]; listeners: Listener[] }> {
  await Promise.all(replicas.map((replica) => untilListed(replica.url)));
  await sleep(SETTLE_MS);
  const sessions: RecordingClient[] = [];
  const listeners: Listener[] = [];
  for (const replica of replicas) {
    for (let n = 0; n < 2; n += 1) sessions.push(await connectRecordingClient(replica.url));
    const client = await connectModern(replica.url);
    const listener: Listener = { client, heard: 0 };
    client.setNotificationHandler(CHANGED, () => void (listener.heard += 1));
    await client.listen({ toolsListChanged: true });
    listeners.push(listener);
  }
  return { sessions, listeners };
}

async function untilListed(url: string): Promise<void> {
  const client = await connectModern(url);
  try {
    await vi.waitFor(async () => expect((await client.listTools()).tools.some((tool) => tool.name.startsWith('shifting__'))).toBe(true), { timeout: 15_000, interval: 100 });
  } finally {
    await client.close();
  }
}

async function closeClients(sessions: readonly RecordingClient[], listeners: readonly Listener[]): Promise<void> {
  await Promise.all([...sessions.map((session) => session.close()), ...listeners.map(({ client }) => client.close())].map((closing) => closing.catch(() => {})));
}

const CHANGED = 'notifications/tools/list_changed';
const DEFERRALS = 'switchboard_list_change_deferrals_total';

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('a list change while Redis is down, on two replicas', () => {
  let redis: KillableRedis;
  let upstream: HttpUpstream;
  let replicas: GatewayProcess[] = [];
  let sessions: RecordingClient[] = [];
  let listeners: Listener[] = [];

  beforeAll(async () => {
    // Append-only: the sessions outlive the restart, so the change has someone to reach.
    redis = await startKillableRedis({ appendOnly: true });
    upstream = await startHttpFixture('shifting-server');
    const config = writeConfigFile({ sessions: { store: 'redis', redisUrl: redis.url }, mcpServers: { shifting: { url: upstream.url } } });
    replicas = await Promise.all([startGatewayProcess(config), startGatewayProcess(config)]);
    ({ sessions, listeners } = await openClients(replicas));
  }, 90_000);

  afterAll(async () => {
    await closeClients(sessions, listeners);
    await Promise.all(replicas.map((replica) => replica.stop()));
    await upstream?.stop();
    await redis?.stop();
  });

  it('reaches every 2025 session and every 2026 listen exactly once after Redis is back', async () => {
    const killedAt = Date.now();
    await redis.kill();
    // A 2026 call needs no store: the tool is added upstream while Redis is down.
    const caller = await connectModern(replicas[0]!.url);
    await caller.callTool({ name: 'shifting__add_tool', arguments: { name: 'added_in_outage' } });
    await caller.close();
    // Both replicas have the new list before Redis is back: the change happened during the outage.
    for (const replica of replicas) {
      const client = await connectModern(replica.url);
      await expect.poll(async () => (await client.listTools()).tools.map((tool) => tool.name), { timeout: 15_000, interval: 100 }).toContain('shifting__added_in_outage');
      await client.close();
    }
    expect(Date.now() - killedAt).toBeLessThan(OUTAGE_MS);
    for (const replica of replicas) expect((await scrapeMetrics(replica.url)).value(DEFERRALS, { outcome: 'deferred' })).toBe(1);
    await sleep(OUTAGE_MS - (Date.now() - killedAt));
    expect(sessions.map((session) => session.received(CHANGED).length)).toEqual([0, 0, 0, 0]);
    expect(listeners.map(({ heard }) => heard)).toEqual([0, 0]);

    await redis.restart();
    await expect.poll(() => sessions.map((session) => session.received(CHANGED).length), { timeout: 20_000, interval: 100 }).toEqual([1, 1, 1, 1]);
    await expect.poll(() => listeners.map(({ heard }) => heard), { timeout: 20_000, interval: 100 }).toEqual([1, 1]);
    // Once: the other replica, which kept the same change, does not announce it again.
    await sleep(2_000);
    expect(sessions.map((session) => session.received(CHANGED).length)).toEqual([1, 1, 1, 1]);
    expect(listeners.map(({ heard }) => heard)).toEqual([1, 1]);

    const scrapes = await Promise.all(replicas.map((replica) => scrapeMetrics(replica.url)));
    const total = (outcome: string) => scrapes.reduce((sum, scrape) => sum + scrape.value(DEFERRALS, { outcome }), 0);
    expect({ announced: total('announced'), otherReplica: total('other-replica'), failed: total('failed') }).toEqual({ announced: 1, otherReplica: 1, failed: 0 });
  }, 60_000);
});

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('a list change after a demotion behind one address, on two replicas', () => {
  let primary: KillableRedis;
  let secondary: KillableRedis;
  let proxy: TcpProxy;
  let upstream: HttpUpstream;
  let replicas: GatewayProcess[] = [];
  const admins: Redis[] = [];
  let sessions: RecordingClient[] = [];
  let listeners: Listener[] = [];

  beforeAll(async () => {
    primary = await startKillableRedis();
    secondary = await startKillableRedis({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
    admins.push(new Redis(primary.url), new Redis(secondary.url));
    proxy = await startTcpProxy(primary.url);
    upstream = await startHttpFixture('shifting-server');
    const config = writeConfigFile({ sessions: { store: 'redis', redisUrl: proxy.url }, mcpServers: { shifting: { url: upstream.url } } });
    replicas = await Promise.all([startGatewayProcess(config), startGatewayProcess(config)]);
    ({ sessions, listeners } = await openClients(replicas));
  }, 90_000);

  afterAll(async () => {
    await closeClients(sessions, listeners);
    await Promise.all(replicas.map((replica) => replica.stop()));
    for (const admin of admins) admin.disconnect();
    await proxy?.close();
    await upstream?.stop();
    await Promise.all([primary?.stop(), secondary?.stop()]);
  });

  it('announces the first change after it to every 2025 session and 2026 listen once, without waiting on the demoted node', async () => {
    const [toPrimary, toSecondary] = admins as [Redis, Redis];
    // Every session is on the secondary before it takes over.
    expect(await toPrimary.wait(1, 5_000)).toBe(1);
    await toSecondary.replicaof('NO', 'ONE');
    proxy.retarget(secondary.url);
    await toPrimary.replicaof('127.0.0.1', String(secondary.port));
    // The gateways' open connections still reach the old master, now a replica: they notice by asking.
    await sleep(2_500);

    const caller = await connectModern(replicas[0]!.url);
    await caller.callTool({ name: 'shifting__add_tool', arguments: { name: 'added_after_demotion' } });
    await caller.close();
    await expect.poll(() => sessions.map((session) => session.received(CHANGED).length), { timeout: 10_000, interval: 100 }).toEqual([1, 1, 1, 1]);
    await expect.poll(() => listeners.map(({ heard }) => heard), { timeout: 10_000, interval: 100 }).toEqual([1, 1]);
    await sleep(1_500);
    expect(sessions.map((session) => session.received(CHANGED).length)).toEqual([1, 1, 1, 1]);
    expect(listeners.map(({ heard }) => heard)).toEqual([1, 1]);
    // Announced at once: no claim or queue write met the demoted node and had to be kept for later.
    for (const replica of replicas) expect((await scrapeMetrics(replica.url)).value(DEFERRALS, { outcome: 'deferred' })).toBe(0);
  }, 60_000);
});
