// 429 with Retry-After once a principal (or, without a valid token, the client address) has used
// up its requests. Runs after bearer authentication so it can count by principal, and before the
// 401 so that unauthenticated requests count too (the contract counts every request).
// Run with the other access checks (access-checks.ts).
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { Refusal, RequestHead } from '../request-head.js';
import { catalogueRefusal } from '../../protocol/error-catalogue.js';
import { refusalEvent, report, unreadBodyHeaders, type RefusalListener } from './refusal.js';

export interface RateLimitMiddlewareOptions {
  readonly limiter: RateLimiter;
  readonly onRefused?: RefusalListener;
}

/** Counts the request; resolves to the refusal once the key is over its limit, else undefined. */
export type RateLimitCheck = (head: RequestHead, sub: string | undefined) => Promise<Refusal | undefined>;

export function rateLimitCheck({ limiter, onRefused }: RateLimitMiddlewareOptions): RateLimitCheck {
  return async (head, sub) => {
    // Distinct prefixes: a token's subject can never collide with an address.
    const key = sub !== undefined ? `sub:${sub}` : `addr:${head.clientAddress()}`;
    const decision = await limiter.hit(key);
    if (decision.allowed) return undefined;
    report(onRefused, () => refusalEvent(head, { outcome: 'denied', reason: 'rate-limit', status: 429, ...(sub !== undefined && { sub }) }));
    return {
      ...catalogueRefusal('TooManyRequests', decision.retryAfterSeconds),
      headers: { ...unreadBodyHeaders(head), 'Retry-After': String(decision.retryAfterSeconds) },
    };
  };
}
