// What the bus between replicas promises, for the memory bus and the Redis one alike: a change is
// claimed by one replica, a retried claim by the same claimant is not refused, and a logged
// broadcast reaches each replica once, also one whose subscriber was away when it was sent; and a
// message queued with a `once` key reaches each session once across retries.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '../../src/session/bus.js';
import { createSessionBackend, type SessionBackend } from '../../src/session/create-backend.js';
import { MemoryBus } from '../../src/session/memory-bus.js';
import { hasRedisServer, startKillableRedis, type KillableRedis } from '../support/killable-redis.js';
import { skipWithout } from '../support/required-tools.js';

function claims(bus: () => Bus): void {
  it('gives a change to the first claimant only, and again to that claimant when it asks again', async () => {
    expect(await bus().claimChange('k', 'a.b', 60, 'first')).toBe(true);
    expect(await bus().claimChange('k', 'a.b', 60, 'second')).toBe(false);
    expect(await bus().claimChange('k', 'a.b', 60)).toBe(false);
    expect(await bus().claimChange('k', 'a.b', 60, 'first')).toBe(true);
    // Another state is another change, whoever claims it.
    expect(await bus().claimChange('k', 'b.a', 60, 'second')).toBe(true);
  });
}

describe('the memory bus', () => {
  const bus = new MemoryBus();
  claims(() => bus);
});

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('the Redis bus', () => {
  let redis: KillableRedis;
  let replicas: SessionBackend[] = [];

  beforeAll(async () => {
    redis = await startKillableRedis();
    const config = { store: 'redis' as const, redisUrl: redis.url, idleTimeoutSeconds: 60 };
    replicas = [createSessionBackend(config), createSessionBackend(config)];
    await Promise.all(replicas.map((replica) => replica.ready()));
  }, 30_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await redis?.stop();
  });

  claims(() => replicas[0]!.bus);

  it('delivers a logged broadcast once to each replica, also to one whose subscriber was reconnecting', async () => {
    const heard = replicas.map(() => [] as unknown[]);
    replicas.forEach((replica, index) => replica.bus.on('news', (payload) => heard[index]!.push(payload.n)));
    const admin = new Redis(redis.url);
    try {
      // Every subscriber connection drops: what is published next reaches no one by pub/sub.
      await admin.client('KILL', 'TYPE', 'pubsub');
      await replicas[0]!.bus.broadcastLogged('news', { n: 1 });
      await expect.poll(() => heard, { timeout: 5_000, interval: 50 }).toEqual([[1], [1]]);
      await replicas[1]!.bus.broadcastLogged('news', { n: 2 });
      await expect.poll(() => heard, { timeout: 5_000, interval: 50 }).toEqual([[1, 2], [1, 2]]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard).toEqual([[1, 2], [1, 2]]);
    } finally {
      admin.disconnect();
    }
  });

  it('queues a message named by `once` to each session once, however often it is queued again', async () => {
    const events = replicas[0]!.events;
    const message = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
    await events.enqueue(['s1', 's2'], message, 'change-1');
    // A retry after an outcome was lost, from either replica: nothing more for s1 and s2.
    await replicas[1]!.events.enqueue(['s1', 's2', 's3'], message, 'change-1');
    await events.enqueue(['s1'], message, 'change-2');
    const taken = await Promise.all(['s1', 's2', 's3'].map((session) => events.take(session, 'g1', 10)));
    expect(taken.map((batch) => batch.length)).toEqual([2, 1, 1]);
  });
});
