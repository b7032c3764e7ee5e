import { describe, expect, it } from 'vitest';
import { ExpiringCache } from '../../src/auth/expiring-cache.js';

describe('ExpiringCache', () => {
  it('forgets an entry once its time has come', () => {
    let now = 1_000;
    const cache = new ExpiringCache<string>(10, () => now);
    cache.set('a', 'A', 2_000);
    expect(cache.get('a')).toBe('A');
    now = 2_000;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not keep what is already expired', () => {
    const cache = new ExpiringCache<string>(10, () => 5_000);
    cache.set('a', 'A', 5_000);
    expect(cache.size).toBe(0);
  });

  it('lets the least recently used entry go when full', () => {
    const cache = new ExpiringCache<string>(2, () => 0);
    cache.set('a', 'A', 10);
    cache.set('b', 'B', 10);
    expect(cache.get('a')).toBe('A'); // now b is the least recently used
    cache.set('c', 'C', 10);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['A', undefined, 'C']);
  });
});
