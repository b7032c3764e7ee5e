// The access checks of a request to an MCP path, in design.md's order: Origin and Host, the bearer
// token, the rate limit, the 401/403, the declared body size. Written once (checkAccess) and run by
// both ways in: the Hono app's middleware below (GET, DELETE, the legacy transport) and the
// node:http fast path that serves the POSTs (fast-path/post-listener.ts).
import type { MiddlewareHandler } from 'hono';
import type { Principal } from '../../auth/principal.js';
import type { AppEnv } from '../app-env.js';
import { allowedRequestHeaders } from '../cors-headers.js';
import { honoHead, refuseWithHono, type Refusal, type RequestHead } from '../request-head.js';
import { addResponseHeader, applyResponseHeaders, takeResponseHeaders } from '../response-headers.js';
import type { BearerAuth } from './bearer-auth.js';
import { declaresTooLarge, tooLargeRefusal } from './body-size.js';
import type { OriginCheck } from './origin-guard.js';
import type { RateLimitCheck } from './rate-limit.js';

export interface AccessChecks {
  readonly origin?: OriginCheck;
  /** The path's token check (an endpoint's own, or the gateway's); absent: auth is off. */
  readonly auth?: BearerAuth;
  readonly rateLimit?: RateLimitCheck;
  /** A body declared longer than this is refused before it is read; absent: no limit here. */
  readonly maxBodyBytes?: number;
}

type Cors = Readonly<Record<string, string>> | undefined;

/**
 * Refused (with the CORS headers of an allowed origin, so a browser can read why), a CORS
 * preflight to answer at once, or admitted with the caller's principal.
 */
export type AccessVerdict =
  | { readonly refusal: Refusal; readonly cors: Cors }
  | { readonly refusal?: undefined; readonly preflight: true; readonly cors: Cors }
  | { readonly refusal?: undefined; readonly preflight?: undefined; readonly principal: Principal | undefined; readonly cors: Cors };

/**
 * The verdict, synchronously when nothing asked needs to wait (no token check, no rate limit): the
 * fast path then serves the POST without a turn of the event loop in between, as it did before the
 * checks were shared (docs/decisions/0001-node-http-fast-path.md).
 */
export function checkAccess(head: RequestHead, checks: AccessChecks): AccessVerdict | Promise<AccessVerdict> {
  const { origin, auth, rateLimit, maxBodyBytes } = checks;
  let cors: Cors;
  if (origin) {
    const verdict = origin(head);
    if (verdict.refusal) return { refusal: verdict.refusal, cors: undefined };
    cors = verdict.cors;
    // Preflights carry no token: answered before authentication.
    if (cors && head.method === 'OPTIONS' && head.header('access-control-request-method') !== undefined) return { preflight: true, cors };
  }
  if (auth || rateLimit) return checkTokenAndRate(head, checks, cors);
  if (maxBodyBytes !== undefined && declaresTooLarge(head.header('content-length'), maxBodyBytes)) return { refusal: tooLargeRefusal(maxBodyBytes), cors };
  return { principal: undefined, cors };
}

async function checkTokenAndRate(head: RequestHead, { auth, rateLimit, maxBodyBytes }: AccessChecks, cors: Cors): Promise<AccessVerdict> {
  // Token first, so the limit counts by principal; the 401/403 after it, so refused requests count
  // too; and all of it before the body is read, so a client without a token (or over its limit)
  // never makes the gateway buffer a body.
  const outcome = auth && (await auth.check(head.header('authorization')));
  const principal = outcome && 'principal' in outcome ? outcome.principal : undefined;
  if (rateLimit) {
    const refusal = await rateLimit(head, principal?.sub);
    if (refusal) return { refusal, cors };
  }
  if (outcome && 'problem' in outcome) return { refusal: auth!.refusal(outcome.problem, head), cors };
  if (maxBodyBytes !== undefined && declaresTooLarge(head.header('content-length'), maxBodyBytes)) return { refusal: tooLargeRefusal(maxBodyBytes), cors };
  return { principal, cors };
}

const ALLOW_METHODS = 'GET, POST, DELETE';

/** checkAccess as Hono middleware: refusals, CORS headers, the preflight's answer, the principal. */
export function accessChecks(checks: AccessChecks): MiddlewareHandler<AppEnv> {
  if (checks.maxBodyBytes !== undefined && (!Number.isInteger(checks.maxBodyBytes) || checks.maxBodyBytes <= 0)) {
    throw new Error(`accessChecks: maxBodyBytes must be a positive integer, got ${checks.maxBodyBytes}`);
  }
  return async function accessChecksMiddleware(c, next) {
    const verdict = await checkAccess(honoHead(c), checks);
    if (verdict.cors) for (const [name, value] of Object.entries(verdict.cors)) addResponseHeader(c, name, value);
    if (verdict.refusal) {
      const refusal = refuseWithHono(c, verdict.refusal);
      if (!verdict.cors) return refusal;
      c.res = refusal;
      applyResponseHeaders(c);
      return c.res;
    }
    if (verdict.preflight) {
      return c.body(null, 204, {
        ...takeResponseHeaders(c),
        // The allowed headers follow what the preflight asks for (cors-headers.ts).
        Vary: 'Origin, Access-Control-Request-Headers',
        'Access-Control-Allow-Methods': ALLOW_METHODS,
        'Access-Control-Allow-Headers': allowedRequestHeaders(c.req.header('access-control-request-headers')),
        'Access-Control-Max-Age': '600',
      });
    }
    if (verdict.principal) c.set('principal', verdict.principal);
    await next();
    if (verdict.cors) applyResponseHeaders(c);
  };
}
