// The MCP transport spec's defence against DNS rebinding: a request whose Origin header is present
// and not allowed gets 403 (a request without one, from a non-browser client, passes); and when the
// gateway listens on loopback only, a Host header that names something else is refused too, since
// that is what a rebinding page's requests carry. Allowed browser origins get CORS headers, and
// their preflight (OPTIONS) is answered here, before authentication: preflights carry no token.
// The rule is originCheck, run with the other access checks (access-checks.ts).
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';
import { accessChecks } from './access-checks.js';
import { compileOriginPatterns, isLoopbackHost } from '../origin-patterns.js';
import type { Refusal, RequestHead } from '../request-head.js';
import { catalogueRefusal } from '../../protocol/error-catalogue.js';
import { refusalEvent, report, unreadBodyHeaders, type RefusalListener } from './refusal.js';

export interface OriginGuardOptions {
  /** server.allowedOrigins; undefined allows loopback origins only. */
  readonly allowedOrigins?: readonly string[];
  /** When set (a loopback bind), the Host header must name a loopback host or one of these. */
  readonly allowedHosts?: readonly string[];
  readonly onRefused?: RefusalListener;
}

/** Refused, or allowed with the CORS headers its answer carries (none for a request without Origin). */
export type OriginVerdict = { readonly refusal: Refusal } | { readonly refusal?: undefined; readonly cors: Readonly<Record<string, string>> | undefined };

export type OriginCheck = (head: RequestHead) => OriginVerdict;

const EXPOSE_HEADERS = 'Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After';
const NO_ORIGIN: OriginVerdict = Object.freeze({ cors: undefined });

export function originCheck({ allowedOrigins, allowedHosts, onRefused }: OriginGuardOptions = {}): OriginCheck {
  const originAllowed = compileOriginPatterns(allowedOrigins);
  const extraHosts = new Set((allowedHosts ?? []).map((host) => host.toLowerCase()));
  // Clients send the same Host on every request: the last one allowed passes with one comparison
  // (parsing it and matching it against loopback every time showed in a profile of the gateway).
  // Refused ones are judged, and reported, every time.
  let lastAllowedHost: string | undefined;
  return (head) => {
    if (allowedHosts !== undefined) {
      const header = head.header('host');
      // No Host at all passes too (HTTP/1.0), so it may stand as the last one allowed.
      if (header !== lastAllowedHost) {
        const host = hostnameOf(header);
        if (host !== undefined && !isLoopbackHost(host) && !extraHosts.has(host)) {
          report(onRefused, () => refusalEvent(head, { outcome: 'denied', reason: 'host', detail: host.slice(0, 100), status: 403 }));
          return { refusal: { ...catalogueRefusal('Forbidden', 'this gateway answers to its loopback address only'), headers: unreadBodyHeaders(head) } };
        }
        lastAllowedHost = header;
      }
    }
    const origin = head.header('origin');
    if (origin === undefined) return NO_ORIGIN;
    if (!originAllowed(origin)) {
      report(onRefused, () => refusalEvent(head, { outcome: 'denied', reason: 'origin', detail: origin.slice(0, 200), status: 403 }));
      return { refusal: { ...catalogueRefusal('Forbidden', 'the Origin is not allowed'), headers: unreadBodyHeaders(head) } };
    }
    return { cors: { Vary: 'Origin', 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSE_HEADERS } };
  };
}

/** The origin check alone as Hono middleware (the app runs it among the others: access-checks.ts). */
export function originGuard(options: OriginGuardOptions = {}): MiddlewareHandler<AppEnv> {
  return accessChecks({ origin: originCheck(options) });
}

/** The host name of a Host header (`example.com:8080`, `[::1]:80`), lower case; undefined when absent. */
function hostnameOf(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const host = header.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}
