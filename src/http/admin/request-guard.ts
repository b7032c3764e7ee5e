// What keeps other web pages out of the admin listener, token or not. A browser that can reach it
// (an operator's, on the same machine or behind a proxy that adds the token) must not be made to
// act for another site:
// - on a loopback bind, a Host header that names anything but a loopback host is refused: that is
//   what a DNS-rebinding page's requests carry;
// - a request that changes something (POST, DELETE) whose Origin is present and is not the
//   listener's own (Origin's host:port against Host, or against X-Forwarded-Host behind a proxy that
//   rewrites Host: no page can set that header on a request to another origin without a CORS
//   preflight, which is never granted here), or that Sec-Fetch-Site calls cross-site, is refused.
//   A GET may come from elsewhere (the Grafana dashboard's link opens the page): it changes nothing,
//   and without CORS headers another origin cannot read the answer;
// - a POST must carry JSON or nothing: the types an HTML form can send without a CORS preflight
//   (urlencoded, multipart, text/plain) are refused, so no form on another site can post one; the
//   one exception is the sign-out form (sign-in mode), whose Origin must be present and this one.
import type { Context, MiddlewareHandler } from 'hono';
import type { AdminRefusalEvent } from '../../observe/audit.js';
import type { AppEnv } from '../app-env.js';
import { clientAddress } from '../client-address.js';
import { isLoopbackHost } from '../origin-patterns.js';
import { adminError } from './errors.js';
import { SIGN_OUT_PATH } from './status-client.js';

export interface AdminRequestGuardOptions {
  /** The listener is bound to a loopback address: the Host header must name a loopback host. */
  readonly loopbackOnly: boolean;
  /** Each refusal, with what the audit trail writes of it (the request's path, method, client and id). */
  readonly onRefused?: (event: AdminRefusalEvent) => void;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const FORM_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\b/i;

export function adminRequestGuard({ loopbackOnly, onRefused }: AdminRequestGuardOptions): MiddlewareHandler<AppEnv> {
  return async function adminRequestGuardMiddleware(c, next) {
    const host = (c.req.header('host') ?? '').trim().toLowerCase();
    if (loopbackOnly && host !== '' && !isLoopbackHost(hostnameOf(host))) {
      report(onRefused, c, 'host', host.slice(0, 100));
      return adminError(c, 'forbidden', 'this admin listener answers to its loopback address only');
    }
    if (SAFE_METHODS.has(c.req.method)) return next();
    const origin = c.req.header('origin');
    const site = c.req.header('sec-fetch-site');
    if ((origin !== undefined && !isOwnOrigin(c, origin)) || site === 'cross-site') {
      report(onRefused, c, 'origin', (origin ?? `sec-fetch-site: ${site}`).slice(0, 200));
      return adminError(c, 'forbidden', 'requests from other web pages are not accepted here');
    }
    // The sign-out button is a plain form (no script on the refusal page); its Origin must be this one.
    const signOutForm = c.req.path === SIGN_OUT_PATH && origin !== undefined;
    if (c.req.method === 'POST' && FORM_TYPES.test(c.req.header('content-type') ?? '') && !signOutForm) {
      return adminError(c, 'unsupported-media-type', 'send a JSON body (Content-Type: application/json), or none');
    }
    await next();
  };
}

/** The request's Origin is the listener's own: its host:port against Host, or X-Forwarded-Host behind a proxy that rewrites Host. */
export function isOwnOrigin(c: Context, origin: string): boolean {
  const from = originHost(origin);
  const host = (c.req.header('host') ?? '').trim().toLowerCase();
  const forwardedHost = c.req.header('x-forwarded-host')?.split(',')[0]?.trim().toLowerCase();
  return from !== undefined && (from === host || from === forwardedHost);
}

/**
 * A request a cookie authenticates may change something only when the browser says it comes from
 * this origin: Origin names it, or (no Origin) Sec-Fetch-Site is same-origin. Absence proves nothing.
 */
export function provenSameOrigin(c: Context): boolean {
  const origin = c.req.header('origin');
  if (origin !== undefined) return isOwnOrigin(c, origin);
  return c.req.header('sec-fetch-site') === 'same-origin';
}

function report(onRefused: AdminRequestGuardOptions['onRefused'], c: Context<AppEnv>, reason: 'host' | 'origin', detail: string): void {
  try {
    onRefused?.({ outcome: 'denied', reason, detail, status: 403, httpMethod: c.req.method, path: c.req.path, client: clientAddress(c), requestId: c.get('requestId') });
  } catch {
    // The audit trail's failure is not the caller's problem.
  }
}

/** `host:port` of an Origin, lower case; undefined for "null" and junk. */
function originHost(origin: string): string | undefined {
  return URL.parse(origin)?.host.toLowerCase();
}

function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}
