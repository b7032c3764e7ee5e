// Request counts in this process: right for one replica (and the memory session store, which is
// one replica too). Keys that have been quiet for two windows are swept, so a flood of distinct
// client addresses cannot grow the map without bound.
import { assertRateLimitOptions, DEFAULT_WINDOW_MS, type RateDecision, type RateLimiter, type RateLimitOptions } from './rate-limiter.js';
import { hit, retryAfterSeconds, type WindowState } from './sliding-window.js';

export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory' as const;
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #states = new Map<string, WindowState>();
  readonly #sweep: NodeJS.Timeout;

  constructor(options: RateLimitOptions & { now?: () => number }) {
    assertRateLimitOptions(options);
    this.#limit = options.limit;
    this.#windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    this.#now = options.now ?? Date.now;
    this.#sweep = setInterval(() => this.#dropQuietKeys(), this.#windowMs);
    this.#sweep.unref();
  }

  async hit(key: string): Promise<RateDecision> {
    const decision = hit(this.#states.get(key), this.#now(), this.#windowMs, this.#limit);
    this.#states.set(key, decision.state);
    return { allowed: decision.allowed, retryAfterSeconds: decision.allowed ? 0 : retryAfterSeconds(decision.retryAfterMs) };
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    this.#states.clear();
  }

  #dropQuietKeys(): void {
    const window = Math.floor(this.#now() / this.#windowMs);
    for (const [key, state] of this.#states) if (state.window < window - 1) this.#states.delete(key);
  }
}
