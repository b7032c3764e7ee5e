// The concurrency cap of limits.servers.<name>.maxConcurrent: slots, a bounded line, a bounded
// wait, and slots that come back whatever way a call ends.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConcurrencyGate, GateCancelledError, GateRefusedError, type Release } from '../../src/limits/concurrency-gate.js';
import { CancelSource } from '../../src/protocol/cancellation.js';

const gate = (maxConcurrent: number, maxQueued: number, queueTimeoutMs = 10_000) => new ConcurrencyGate({ maxConcurrent, maxQueued, queueTimeoutMs });

/** Whether a promise has settled, without waiting for it to. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the concurrency gate', () => {
  it('admits up to its cap at once and queues the next', async () => {
    const g = gate(2, 5);
    await g.acquire();
    await g.acquire();
    const third = g.acquire();
    expect(await settled(third)).toBe(false);
    expect([g.active, g.queued]).toEqual([2, 1]);
  });

  it('hands a released slot to the first in line', async () => {
    const g = gate(1, 5);
    const release = await g.acquire();
    const order: string[] = [];
    const first = g.acquire().then((r) => (order.push('first'), r));
    const second = g.acquire().then((r) => (order.push('second'), r));
    release();
    (await first)();
    (await second)();
    expect(order).toEqual(['first', 'second']);
    expect([g.active, g.queued]).toEqual([0, 0]);
  });

  it('refuses at once when the line is full', async () => {
    const g = gate(1, 1);
    await g.acquire();
    g.acquire().catch(() => {}); // queued; it times out long after the test (no stray rejection)
    const refused = g.acquire();
    await expect(refused).rejects.toBeInstanceOf(GateRefusedError);
    await expect(refused).rejects.toMatchObject({ reason: 'queue-full' });
    expect(g.queued).toBe(1);
  });

  it('refuses at once with no line at all', async () => {
    const g = gate(1, 0);
    await g.acquire();
    await expect(g.acquire()).rejects.toMatchObject({ reason: 'queue-full' });
  });

  it('refuses a waiter that waited too long, and its place goes to no one', async () => {
    vi.useFakeTimers();
    const g = gate(1, 5, 1_000);
    const release = await g.acquire();
    const waiting = g.acquire();
    const outcome = waiting.then(
      () => 'admitted',
      (error: unknown) => error,
    );
    vi.advanceTimersByTime(999);
    expect(await settled(waiting)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await outcome).toMatchObject({ reason: 'queue-timeout', message: 'no slot was freed within 1000 ms' });
    expect(g.queued).toBe(0);
    release();
    expect(g.active).toBe(0);
  });

  it('takes a slot back when the call fails, as a finally does', async () => {
    const g = gate(1, 0);
    const call = async () => {
      const release = await g.acquire();
      try {
        throw new Error('upstream failed');
      } finally {
        release();
      }
    };
    await expect(call()).rejects.toThrow('upstream failed');
    expect(g.active).toBe(0);
    (await g.acquire())();
  });

  it('frees a slot once however often it is released', async () => {
    const g = gate(2, 0);
    const release = await g.acquire();
    await g.acquire();
    release();
    release();
    expect(g.active).toBe(1);
  });

  it('lets a cancelled waiter leave the line, and the next one moves up', async () => {
    const g = gate(1, 5);
    const release = await g.acquire();
    const cancel = new CancelSource();
    const cancelled = g.acquire(cancel);
    const next = g.acquire();
    cancel.cancel();
    await expect(cancelled).rejects.toBeInstanceOf(GateCancelledError);
    expect(g.queued).toBe(1);
    release();
    await next;
    expect([g.active, g.queued]).toEqual([1, 0]);
  });

  it('does not queue a caller that was cancelled before it asked', async () => {
    const g = gate(1, 5);
    await g.acquire();
    const cancel = new CancelSource();
    cancel.cancel();
    await expect(g.acquire(cancel)).rejects.toBeInstanceOf(GateCancelledError);
    expect(g.queued).toBe(0);
  });

  it('stops listening for a cancellation once admitted', async () => {
    const g = gate(1, 5);
    const release = await g.acquire();
    const cancel = new CancelSource();
    const waiting = g.acquire(cancel);
    release();
    const admitted: Release = await waiting;
    cancel.cancel();
    expect(g.active).toBe(1);
    admitted();
    expect(g.active).toBe(0);
  });

  it('admits waiters when a reload raises the cap, and none while a lowered one is exceeded', async () => {
    const g = gate(1, 5);
    const first = await g.acquire();
    const waiting = [g.acquire(), g.acquire()];
    g.reconfigure({ maxConcurrent: 3, maxQueued: 5, queueTimeoutMs: 10_000 });
    const [second, third] = await Promise.all(waiting);
    expect(g.active).toBe(3);
    g.reconfigure({ maxConcurrent: 1, maxQueued: 5, queueTimeoutMs: 10_000 });
    const fourth = g.acquire();
    first();
    second!();
    expect(await settled(fourth)).toBe(false);
    third!();
    await fourth;
    expect(g.active).toBe(1);
  });

  it('opens up entirely with an unbounded cap (a cap removed by a reload)', async () => {
    const g = gate(1, 5);
    await g.acquire();
    const waiting = g.acquire();
    g.reconfigure({ maxConcurrent: Number.POSITIVE_INFINITY, maxQueued: 0, queueTimeoutMs: 1 });
    await waiting;
    expect(g.active).toBe(2);
  });

  it('refuses limits it cannot keep', () => {
    expect(() => gate(0, 1)).toThrow(/maxConcurrent/);
    expect(() => gate(1, -1)).toThrow(/maxQueued/);
    expect(() => gate(1, 1, 0)).toThrow(/queueTimeoutMs/);
  });
});
