// Latency figures from raw samples. Percentiles are computed from every sample (nearest rank), not
// from a histogram or a running estimate: with a few thousand samples that is exact and cheap, and
// a p99 from buckets would hide the tail the benchmark is there to show.

export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly max: number;
}

/** The nearest-rank percentile of ascending `sorted` samples: the smallest value with at least p% at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error('no samples');
  if (!(p > 0 && p <= 100)) throw new Error(`percentile out of range: ${p}`);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[rank - 1]!;
}

export function summarise(samples: readonly number[]): LatencySummary {
  // A copied Float64Array sorts numerically (an Array would sort as strings) and leaves the caller's order alone.
  const sorted = Float64Array.from(samples).sort();
  const values = Array.from(sorted);
  const sum = values.reduce((total, value) => total + value, 0);
  return {
    count: values.length,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    mean: sum / values.length,
    max: values[values.length - 1]!,
  };
}
