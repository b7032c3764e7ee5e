// The last few minutes of traffic per upstream, from the gateway's own metrics: a timer reads the
// request counters and the duration histogram every few seconds into a bounded ring, and a report
// compares the oldest sample in the window with the counters as they are at that moment. Nothing
// runs on the request path: the counters are the ones /metrics exports, and they are read here on
// the timer and when the status page or the admin API asks.
import type { RpcTotals } from './metrics.js';
import { RPC_DURATION_BOUNDS } from './metrics.js';

export interface RecentRatesOptions {
  /** How often the counters are sampled. */
  readonly intervalMs?: number;
  /** How far back the rates look (and the ring holds). */
  readonly windowMs?: number;
  /** The clock, in milliseconds (tests). */
  readonly now?: () => number;
}

/** One `server` label value's traffic (the upstream's slug; "" for requests the gateway answered alone). */
export interface ServerTraffic {
  /** Since the gateway started. */
  readonly total: { readonly requests: number; readonly errors: number; readonly denied: number };
  /** Over the window (up to windowSeconds; less while the gateway is younger). */
  readonly recent: {
    readonly seconds: number;
    readonly requests: number;
    readonly errors: number;
    readonly denied: number;
    readonly ratePerSecond: number;
    /** errors / requests; null without requests. */
    readonly errorRatio: number | null;
    /** Estimated from the histogram's buckets as Prometheus' histogram_quantile does; null without requests. */
    readonly p50Ms: number | null;
    readonly p95Ms: number | null;
  };
  /** Requests per sampling interval over the window, oldest first. */
  readonly series: readonly number[];
}

export interface TrafficReport {
  readonly intervalSeconds: number;
  readonly windowSeconds: number;
  readonly servers: Readonly<Record<string, ServerTraffic>>;
}

interface Sample {
  readonly at: number;
  readonly totals: ReadonlyMap<string, RpcTotals>;
}

const EMPTY: RpcTotals = { requests: 0, errors: 0, denied: 0, buckets: RPC_DURATION_BOUNDS.map(() => 0) };

export class RecentRates {
  readonly #read: () => Promise<Map<string, RpcTotals>>;
  readonly #intervalMs: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #ring: Sample[] = [];
  #timer: NodeJS.Timeout | undefined;

  /** `read`: the counters now (GatewayMetrics.rpcTotals). */
  constructor(read: () => Promise<Map<string, RpcTotals>>, { intervalMs = 5_000, windowMs = 300_000, now = Date.now }: RecentRatesOptions = {}) {
    if (!(intervalMs > 0) || !(windowMs >= intervalMs)) throw new Error('RecentRates: need 0 < intervalMs <= windowMs');
    this.#read = read;
    this.#intervalMs = intervalMs;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  start(): void {
    if (this.#timer) return;
    void this.sample();
    this.#timer = setInterval(() => void this.sample(), this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Takes one sample now (the timer does this; tests call it). */
  async sample(): Promise<void> {
    const totals = await this.#read();
    this.#ring.push({ at: this.#now(), totals });
    // One sample older than the window stays, as the base of a full window.
    const capacity = Math.ceil(this.#windowMs / this.#intervalMs) + 1;
    if (this.#ring.length > capacity) this.#ring.splice(0, this.#ring.length - capacity);
  }

  async report(): Promise<TrafficReport> {
    const now: Sample = { at: this.#now(), totals: await this.#read() };
    const base = this.#ring[0] ?? now;
    const seconds = Math.max((now.at - base.at) / 1000, 0);
    const servers: Record<string, ServerTraffic> = {};
    for (const [server, current] of now.totals) {
      const before = base.totals.get(server) ?? EMPTY;
      const requests = nonNegative(current.requests - before.requests);
      const errors = nonNegative(current.errors - before.errors);
      const denied = nonNegative(current.denied - before.denied);
      const buckets = current.buckets.map((count, index) => nonNegative(count - (before.buckets[index] ?? 0)));
      servers[server] = {
        total: { requests: current.requests, errors: current.errors, denied: current.denied },
        recent: {
          seconds: round(seconds, 1),
          requests,
          errors,
          denied,
          ratePerSecond: seconds > 0 ? round(requests / seconds, 3) : 0,
          errorRatio: requests > 0 ? round(errors / requests, 4) : null,
          p50Ms: quantileMs(0.5, buckets),
          p95Ms: quantileMs(0.95, buckets),
        },
        series: this.#series(server),
      };
    }
    return { intervalSeconds: this.#intervalMs / 1000, windowSeconds: this.#windowMs / 1000, servers };
  }

  #series(server: string): number[] {
    const series: number[] = [];
    for (let index = 1; index < this.#ring.length; index++) {
      const before = this.#ring[index - 1]!.totals.get(server) ?? EMPTY;
      const after = this.#ring[index]!.totals.get(server) ?? EMPTY;
      series.push(nonNegative(after.requests - before.requests));
    }
    return series;
  }
}

/**
 * The q-quantile of cumulative bucket counts, in milliseconds, interpolated linearly inside its
 * bucket as Prometheus' histogram_quantile does; a quantile in the +Inf bucket is the highest finite
 * bound. Null without observations.
 */
export function quantileMs(q: number, cumulative: readonly number[]): number | null {
  const total = cumulative.at(-1) ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  for (let index = 0; index < cumulative.length; index++) {
    const count = cumulative[index]!;
    if (count < rank) continue;
    const upper = RPC_DURATION_BOUNDS[index]!;
    if (upper === Number.POSITIVE_INFINITY) return round(RPC_DURATION_BOUNDS[index - 1]! * 1000, 1);
    const lower = index === 0 ? 0 : RPC_DURATION_BOUNDS[index - 1]!;
    const below = index === 0 ? 0 : cumulative[index - 1]!;
    const inBucket = count - below;
    const seconds = inBucket > 0 ? lower + ((upper - lower) * (rank - below)) / inBucket : upper;
    return round(seconds * 1000, 1);
  }
  return null;
}

/** A counter that went down was reset (a server removed and added again): count from zero. */
function nonNegative(value: number): number {
  return value > 0 ? value : 0;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
