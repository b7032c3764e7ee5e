// Request counts in this process: right for one replica (and the memory session store, which is
// one replica too). Keys that have been quiet for two windows are swept, so a flood of distinct
// principals or client addresses cannot grow the map without bound.
import { ALLOWED, type Quota, type QuotaDecision, type QuotaLimiter } from './quota-limiter.js';
import { assertWindow, DEFAULT_WINDOW_MS } from './rate-limiter.js';
import { hit, hitAll, retryAfterSeconds, type WindowState } from './sliding-window.js';

export class MemoryQuotaLimiter implements QuotaLimiter {
  readonly kind = 'memory' as const;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #states = new Map<string, WindowState>();
  readonly #sweep: NodeJS.Timeout;

  constructor({ windowMs = DEFAULT_WINDOW_MS, now = Date.now }: { windowMs?: number; now?: () => number } = {}) {
    assertWindow(windowMs);
    this.#windowMs = windowMs;
    this.#now = now;
    this.#sweep = setInterval(() => this.#dropQuietKeys(), this.#windowMs);
    this.#sweep.unref();
  }

  async hit(quotas: readonly Quota[]): Promise<QuotaDecision> {
    const now = this.#now();
    // One limit (the HTTP middleware's, on every request) needs no arrays.
    if (quotas.length === 1) {
      const { key, limit } = quotas[0]!;
      const decision = hit(this.#states.get(key), now, this.#windowMs, limit);
      if (!decision.allowed) return { allowed: false, refusedBy: 0, retryAfterSeconds: retryAfterSeconds(decision.retryAfterMs) };
      this.#states.set(key, decision.state);
      return ALLOWED;
    }
    const decision = hitAll(
      quotas.map(({ key }) => this.#states.get(key)),
      now,
      this.#windowMs,
      quotas.map(({ limit }) => limit),
    );
    if (!decision.allowed) return { allowed: false, refusedBy: decision.refusedBy, retryAfterSeconds: retryAfterSeconds(decision.retryAfterMs) };
    for (const [index, { key }] of quotas.entries()) this.#states.set(key, decision.states[index]!);
    return ALLOWED;
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
