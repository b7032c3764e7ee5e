// The status page's recent traffic: rates and ratios over the window, and latency quantiles from
// histogram buckets as Prometheus' histogram_quantile computes them, on a clock of our own.
import { describe, expect, it } from 'vitest';
import { RPC_DURATION_BOUNDS, type RpcTotals } from '../../src/observe/metrics.js';
import { quantileMs, RecentRates } from '../../src/observe/recent-rates.js';

/** Cumulative buckets with `counts[i]` observations in bucket i (in RPC_DURATION_BOUNDS order). */
function cumulative(counts: Record<number, number>): number[] {
  let sum = 0;
  return RPC_DURATION_BOUNDS.map((_, index) => (sum += counts[index] ?? 0));
}

function totals(requests: number, errors: number, buckets: number[]): RpcTotals {
  return { requests, errors, denied: 0, buckets };
}

describe('quantileMs', () => {
  it('interpolates inside the bucket the rank falls in', () => {
    // 10 observations between 10 ms and 25 ms (bucket index 2): the median is halfway.
    expect(quantileMs(0.5, cumulative({ 2: 10 }))).toBe(17.5);
  });

  it('gives the highest finite bound for a quantile in the +Inf bucket, and null without observations', () => {
    expect(quantileMs(0.95, cumulative({ [RPC_DURATION_BOUNDS.length - 1]: 3 }))).toBe(300_000);
    expect(quantileMs(0.5, cumulative({}))).toBeNull();
  });
});

describe('RecentRates', () => {
  it('reports the rate, the error ratio and the quantiles since the oldest sample in the window, and the requests per interval', async () => {
    let now = 0;
    let current = new Map<string, RpcTotals>([['everything', totals(0, 0, cumulative({}))]]);
    const rates = new RecentRates(async () => current, { intervalMs: 5_000, windowMs: 10_000, now: () => now });
    await rates.sample();
    now = 5_000;
    current = new Map([['everything', totals(50, 5, cumulative({ 0: 40, 5: 10 }))]]);
    await rates.sample();
    now = 10_000;
    current = new Map([['everything', totals(100, 10, cumulative({ 0: 80, 5: 20 }))]]);
    const report = await rates.report();
    expect(report).toMatchObject({ intervalSeconds: 5, windowSeconds: 10 });
    expect(report.servers.everything).toEqual({
      total: { requests: 100, errors: 10, denied: 0 },
      recent: { seconds: 10, requests: 100, errors: 10, denied: 0, ratePerSecond: 10, errorRatio: 0.1, p50Ms: 3.1, p95Ms: 212.5 },
      series: [50],
    });
  });

  it('keeps one sample older than the window, so the window is full, and drops the rest', async () => {
    let now = 0;
    let count = 0;
    const rates = new RecentRates(async () => new Map([['s', totals(count, 0, cumulative({ 0: count }))]]), { intervalMs: 1_000, windowMs: 2_000, now: () => now });
    for (let step = 0; step < 6; step++) {
      await rates.sample();
      now += 1_000;
      count += 10;
    }
    // Samples at 3, 4, 5 s (counts 30, 40, 50) remain; now is 6 s with 60.
    const report = await rates.report();
    expect(report.servers.s!.recent).toMatchObject({ seconds: 3, requests: 30, ratePerSecond: 10 });
    expect(report.servers.s!.series).toEqual([10, 10]);
  });
});
