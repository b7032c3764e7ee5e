// The sliding-window counter shared by the memory and Redis limiters, and the memory limiter.
import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/limits/memory-limiter.js';
import { hit, hitAll, retryAfterSeconds, type WindowState } from '../../src/limits/sliding-window.js';

const W = 60_000;

function run(times: number[], limit: number): { allowed: boolean[]; last: ReturnType<typeof hit> } {
  let state: WindowState | undefined;
  const allowed: boolean[] = [];
  let last!: ReturnType<typeof hit>;
  for (const time of times) {
    last = hit(state, time, W, limit);
    state = last.state;
    allowed.push(last.allowed);
  }
  return { allowed, last };
}

describe('the sliding window', () => {
  it('allows the limit within one window and refuses the next request', () => {
    const { allowed } = run([0, 1, 2, 3], 3);
    expect(allowed).toEqual([true, true, true, false]);
  });

  it('does not allow a double burst across a window edge', () => {
    // Three just before the edge, then three just after: the previous window still weighs ~1.
    const { allowed } = run([W - 3, W - 2, W - 1, W, W + 1, W + 2], 3);
    expect(allowed).toEqual([true, true, true, false, false, false]);
  });

  it('lets requests in again as the previous window ages out', () => {
    const { allowed } = run([0, 1, 2, W + W / 2], 3);
    expect(allowed[3]).toBe(true);
  });

  it('says how long to wait, and the wait is enough', () => {
    const limit = 3;
    const times = [10_000, 10_001, 10_002, 10_003];
    const { last } = run(times, limit);
    expect(last.allowed).toBe(false);
    const retryAt = 10_003 + last.retryAfterMs;
    expect(hit(last.state, retryAt, W, limit).allowed).toBe(true);
    expect(hit(last.state, retryAt - 1_000, W, limit).allowed).toBe(false);
  });

  it('forgets a key that has been quiet for two windows', () => {
    const { allowed } = run([0, 1, 2, 3 * W], 3);
    expect(allowed[3]).toBe(true);
  });

  it('rounds Retry-After up to whole seconds, at least one', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1_001)).toBe(2);
  });
});

describe('the memory rate limiter', () => {
  it('counts keys separately and refuses with a Retry-After of at least one second', async () => {
    let now = 5_000;
    const limiter = new MemoryRateLimiter({ limit: 2, now: () => now });
    try {
      expect((await limiter.hit('a')).allowed).toBe(true);
      expect((await limiter.hit('a')).allowed).toBe(true);
      const refused = await limiter.hit('a');
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect((await limiter.hit('b')).allowed).toBe(true);
      now += 2 * W;
      expect((await limiter.hit('a')).allowed).toBe(true);
    } finally {
      await limiter.close();
    }
  });

  it('refuses options that make no sense at construction', () => {
    expect(() => new MemoryRateLimiter({ limit: 0 })).toThrow(/positive integer/);
    expect(() => new MemoryRateLimiter({ limit: 1.5 })).toThrow(/positive integer/);
  });
});

describe('several limits at once', () => {
  it('counts in all when all allow, and in none when one refuses, naming the longest wait', () => {
    const first = hitAll([undefined, undefined], 1_000, W, [2, 1]);
    expect(first.allowed).toBe(true);
    expect(first.states.map((state) => state.current)).toEqual([1, 1]);
    const second = hitAll(first.states, 2_000, W, [2, 1]);
    expect(second).toMatchObject({ allowed: false, refusedBy: 1, states: [] });
    expect(second.retryAfterMs).toBeGreaterThan(0);
    // Both refuse: the one that frees up later is named.
    const full = hitAll([{ window: 0, current: 1, previous: 0 }, { window: 0, current: 5, previous: 0 }], 2_000, W, [1, 5]);
    expect(full.refusedBy).toBe(0);
  });
});
