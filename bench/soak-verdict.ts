// Whether a soak's series stayed flat. The rule, per series (heap, RSS, handles, children, Redis
// memory): drop the first half of the samples (start-up, JIT, pools and caches filling up, V8
// growing its heap to its working size), fit a least-squares line through the second half, and
// take the growth that line shows across that half. The series is flat when that growth is within
// its tolerance: an absolute one (what normal wobble at one sample moment can be: a few streams
// open or not, a page of allocator slack) or a share of its level, whichever is larger.
// A leak shows as a steady slope that the fit keeps however noisy single samples are; one spike
// moves a fitted line little. Too few samples (fewer than 3 in the second half) cannot be judged.

export interface Point {
  /** Seconds since the soak started. */
  readonly t: number;
  readonly value: number;
}

export interface SeriesRule {
  readonly name: string;
  readonly unit: 'bytes' | 'count';
  /** Growth that is always tolerated, in the series' unit. */
  readonly absolute: number;
  /** Growth tolerated as a share of the second half's median (0.1 = 10%). */
  readonly relative: number;
}

export interface SeriesVerdict {
  readonly name: string;
  readonly unit: SeriesRule['unit'];
  /** The fitted line's growth across the second half, in the series' unit. */
  readonly growth: number;
  /** The most growth tolerated. */
  readonly limit: number;
  /** The second half's first and last sample, for the report. */
  readonly from: number;
  readonly to: number;
  /** undefined: too few samples to say. */
  readonly flat: boolean | undefined;
}

const MIN_POINTS = 3;

/** Least-squares slope (units per second) and intercept of `points`. */
export function fitLine(points: readonly Point[]): { slope: number; intercept: number } {
  const n = points.length;
  if (n === 0) return { slope: 0, intercept: 0 };
  const meanT = points.reduce((sum, { t }) => sum + t, 0) / n;
  const meanV = points.reduce((sum, { value }) => sum + value, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const { t, value } of points) {
    covariance += (t - meanT) * (value - meanV);
    variance += (t - meanT) ** 2;
  }
  const slope = variance === 0 ? 0 : covariance / variance;
  return { slope, intercept: meanV - slope * meanT };
}

export function judgeSeries(rule: SeriesRule, points: readonly Point[]): SeriesVerdict {
  const secondHalf = points.slice(Math.floor(points.length / 2));
  const first = secondHalf[0];
  const last = secondHalf.at(-1);
  if (first === undefined || last === undefined || secondHalf.length < MIN_POINTS) {
    return { name: rule.name, unit: rule.unit, growth: 0, limit: 0, from: first?.value ?? 0, to: last?.value ?? 0, flat: undefined };
  }
  const { slope } = fitLine(secondHalf);
  const growth = slope * (last.t - first.t);
  const limit = Math.max(rule.absolute, rule.relative * median(secondHalf.map(({ value }) => value)));
  return { name: rule.name, unit: rule.unit, growth, limit, from: first.value, to: last.value, flat: growth <= limit };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
