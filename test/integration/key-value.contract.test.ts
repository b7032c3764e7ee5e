// The key-value store's contract (src/session/key-value.ts), held by both twins: what the sign-in
// state relies on, single-use `take` above all (a code, a state, must be had once across replicas).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { KeyValueStore } from '../../src/session/key-value.js';
import { MemoryKeyValueStore } from '../../src/session/memory-key-value.js';
import { RedisKeyValueStore } from '../../src/session/redis-key-value.js';
import { deleteKeysWithPrefix, redisUrl, uniqueKeyPrefix } from '../support/redis.js';

const prefix = uniqueKeyPrefix('key-value');
const stores: KeyValueStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await deleteKeysWithPrefix(redisUrl(), prefix);
});

const twins: [string, () => KeyValueStore][] = [
  ['memory', () => new MemoryKeyValueStore()],
  ['redis', () => new RedisKeyValueStore({ redis: redisUrl(), keyPrefix: prefix })],
];

describe.each(twins)('the %s key-value store', (_kind, make) => {
  const store = (): KeyValueStore => {
    const made = make();
    stores.push(made);
    return made;
  };

  it('keeps a value, forgets it when deleted, and says undefined for what it never had', async () => {
    const kv = store();
    await kv.set('a', 'one');
    expect(await kv.get('a')).toBe('one');
    await kv.delete('a');
    expect(await kv.get('a')).toBeUndefined();
    expect(await kv.get('never')).toBeUndefined();
  });

  it('lets a value expire after its time to live', async () => {
    const kv = store();
    await kv.set('short', 'x', 0.2);
    expect(await kv.get('short')).toBe('x');
    await sleep(350);
    expect(await kv.get('short')).toBeUndefined();
  });

  it('stores only when absent, so that one of many callers wins', async () => {
    const kv = store();
    const wins = await Promise.all([1, 2, 3, 4, 5].map((n) => kv.setIfAbsent('once', `${n}`, 10)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await kv.setIfAbsent('once', 'late', 10)).toBe(false);
  });

  it('hands a taken value to one caller only', async () => {
    const kv = store();
    await kv.set('single-use', 'code');
    const taken = await Promise.all([kv.take('single-use'), kv.take('single-use'), kv.take('single-use')]);
    expect(taken.filter((value) => value !== undefined)).toEqual(['code']);
    expect(await kv.get('single-use')).toBeUndefined();
  });

  it('keeps a set as long as its longest-lived member needs', async () => {
    const kv = store();
    await kv.addMember('family', 'refresh', 1);
    await kv.addMember('family', 'access', 0.2);
    await sleep(350);
    expect([...(await kv.members('family'))].sort()).toEqual(['access', 'refresh']);
    await kv.delete('family');
    expect(await kv.members('family')).toEqual([]);
  });
});

it('the Redis twins of two replicas see each other\'s values', async () => {
  const one = new RedisKeyValueStore({ redis: redisUrl(), keyPrefix: prefix });
  const two = new RedisKeyValueStore({ redis: redisUrl(), keyPrefix: prefix });
  stores.push(one, two);
  await one.set('shared', 'from one', 10);
  expect(await two.take('shared')).toBe('from one');
  expect(await one.get('shared')).toBeUndefined();
});
