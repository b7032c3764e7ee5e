// The in-process token cache (src/credentials/memory-token-cache.ts): due tokens are never handed
// out, and callers who never come back cannot grow it without end.
import { describe, expect, it } from 'vitest';
import { MemoryTokenCache } from '../../src/credentials/memory-token-cache.js';

describe('the memory token cache', () => {
  it('hands out a token until it is due, and not after', async () => {
    let clock = 1_000;
    const cache = new MemoryTokenCache({ now: () => clock });
    await cache.set('k', 'tok', 2_000);
    expect(await cache.get('k')).toEqual({ token: 'tok', expiresAt: 2_000 });
    clock = 2_000;
    expect(await cache.get('k')).toBeUndefined();
  });

  it('does not store a token that is already due', async () => {
    const cache = new MemoryTokenCache({ now: () => 5_000 });
    await cache.set('k', 'tok', 5_000);
    expect(await cache.get('k')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the due ones and then the oldest', async () => {
    let clock = 0;
    const cache = new MemoryTokenCache({ maxEntries: 10, now: () => clock });
    await cache.set('short-lived', 'tok', 5);
    for (let index = 0; index < 10; index++) await cache.set(`k${index}`, 'tok', 1_000);
    clock = 10;
    await cache.set('newest', 'tok', 1_000);
    expect(await cache.get('newest')).toBeDefined();
    expect(await cache.get('k9')).toBeDefined();
    expect(await cache.get('k0')).toBeUndefined();
    const kept = await Promise.all(Array.from({ length: 10 }, (_, index) => cache.get(`k${index}`)));
    expect(kept.filter(Boolean).length).toBeLessThan(10);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new MemoryTokenCache({ maxEntries: 0 })).toThrow(RangeError);
  });
});
