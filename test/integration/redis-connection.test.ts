// The gateway's Redis connections (src/session/redis-connection.ts) come back from whatever ends
// them, but closeRedis. ioredis gives a connection up for good ('end') when a reconnect fails before
// it has a socket (with Sentinel, a failover announced while a reconnect asks for the master); the
// same state is reached here by ending the connection under the gateway's feet, with a real Redis.
import { skipWithout } from '../support/required-tools.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedis, openRedis, openSubscriber, whenConnected } from '../../src/session/redis-connection.js';
import { hasRedisServer, startKillableRedis, type KillableRedis } from '../support/killable-redis.js';

/** The reconnects' backoff starts at 100 ms: well within this. */
const BACK = { timeout: 5_000, interval: 20 };

/** Ends the connection as ioredis ends one it gives up on: status 'end', no retry of its own. */
async function givenUp(connection: Redis): Promise<void> {
  const ended = new Promise<void>((resolve) => connection.once('end', () => resolve()));
  connection.disconnect();
  await ended;
  expect(connection.status).toBe('end');
}

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('a Redis connection of the gateway', () => {
  let redis: KillableRedis;

  beforeAll(async () => {
    redis = await startKillableRedis();
  }, 30_000);

  afterAll(async () => redis?.stop());

  it('connects again when ioredis gives it up, and stays closed once the gateway closes it', async () => {
    const connection = openRedis(redis.url);
    await whenConnected(connection);
    for (let time = 0; time < 3; time++) {
      await givenUp(connection);
      await expect.poll(() => connection.status, BACK).toBe('ready');
      expect(await connection.set(`revived-${time}`, 'yes')).toBe('OK');
    }
    await closeRedis(connection);
    await sleep(1_500);
    expect(connection.status).toBe('end');
  });

  it('resubscribes a subscriber it connects again', async () => {
    const subscriber = openSubscriber(redis.url);
    const publisher = openRedis(redis.url);
    const heard: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => heard.push(message));
    await subscriber.subscribe('revival');
    await whenConnected(publisher);
    await givenUp(subscriber);
    await expect.poll(() => subscriber.status, BACK).toBe('ready');
    await expect
      .poll(async () => {
        await publisher.publish('revival', 'after');
        return heard.includes('after');
      }, BACK)
      .toBe(true);
    await closeRedis(subscriber);
    await closeRedis(publisher);
  });
});
