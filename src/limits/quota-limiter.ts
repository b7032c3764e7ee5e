// Several limits checked and counted together, in one step: a call to a server counts against the
// server's limit and, for a tool with one of its own, the tool's. Where the counts live (this
// process, or Redis for every replica) is behind this seam; the gateway knows only the interface.

export interface Quota {
  /** What is counted, e.g. a principal's calls to one server. */
  readonly key: string;
  /** Requests allowed per key per window. */
  readonly limit: number;
}

export interface QuotaDecision {
  readonly allowed: boolean;
  /** When refused: the index of the quota that keeps the caller waiting longest; else -1. */
  readonly refusedBy: number;
  /** When refused: seconds until a retry can succeed, at least 1; else 0. */
  readonly retryAfterSeconds: number;
}

export interface QuotaLimiter {
  readonly kind: 'memory' | 'redis';
  /** Counts one request against every quota when all allow it, against none when any refuses. */
  hit(quotas: readonly Quota[]): Promise<QuotaDecision>;
  close(): Promise<void>;
}

export const ALLOWED: QuotaDecision = Object.freeze({ allowed: true, refusedBy: -1, retryAfterSeconds: 0 });
