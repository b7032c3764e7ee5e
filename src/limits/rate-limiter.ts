// The seam between the HTTP middleware and where request counts live: memory (one process) or
// Redis (every replica counts into the same window).

export interface RateDecision {
  readonly allowed: boolean;
  /** When refused: seconds until a retry can succeed, at least 1. */
  readonly retryAfterSeconds: number;
}

export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  /** Counts one request for `key` (a principal or a client address) and says whether it may pass. */
  hit(key: string): Promise<RateDecision>;
  close(): Promise<void>;
}

export interface RateLimitOptions {
  /** Requests allowed per key per window. */
  readonly limit: number;
  /** Default one minute, as `limits.requestsPerMinute` says. */
  readonly windowMs?: number;
}

export const DEFAULT_WINDOW_MS = 60_000;

export function assertRateLimitOptions({ limit, windowMs = DEFAULT_WINDOW_MS }: RateLimitOptions): void {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`a rate limit must be a positive integer, not ${limit}`);
  assertWindow(windowMs);
}

export function assertWindow(windowMs: number): void {
  if (!Number.isSafeInteger(windowMs) || windowMs < 1000) throw new Error(`a rate window must be at least 1000 ms, not ${windowMs}`);
}
