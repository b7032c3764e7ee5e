// 429 with Retry-After once a principal (or, without a valid token, the client address) has used
// up its requests. Runs after bearer authentication so it can count by principal, and before the
// 401 so that unauthenticated requests count too (the contract counts every request).
import type { MiddlewareHandler } from 'hono';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { AppEnv } from '../app-env.js';
import { clientAddress } from '../client-address.js';
import { TransportCode, transportError } from '../transport-errors.js';
import { refusalEvent, report, unreadBodyHeaders, type RefusalListener } from './refusal.js';

export interface RateLimitMiddlewareOptions {
  readonly limiter: RateLimiter;
  readonly onRefused?: RefusalListener;
}

export function rateLimit({ limiter, onRefused }: RateLimitMiddlewareOptions): MiddlewareHandler<AppEnv> {
  return async function rateLimitMiddleware(c, next) {
    const sub = c.get('principal')?.sub;
    // Distinct prefixes: a token's subject can never collide with an address.
    const key = sub !== undefined ? `sub:${sub}` : `addr:${clientAddress(c)}`;
    const decision = await limiter.hit(key);
    if (decision.allowed) return next();
    report(onRefused, () => refusalEvent(c, { outcome: 'denied', reason: 'rate-limit', status: 429, ...(sub !== undefined && { sub }) }));
    return transportError(c, 429, TransportCode.BadRequest, `Too Many Requests: retry in ${decision.retryAfterSeconds} s`, {
      ...unreadBodyHeaders(c),
      'Retry-After': String(decision.retryAfterSeconds),
    });
  };
}
