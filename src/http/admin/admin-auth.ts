// Who may use the admin listener, when `auth` is configured: a bearer token checked by the same
// verifier as the MCP endpoint (issuer, JWKS and its cache, audience: the gateway's canonical URI),
// plus the admin scope (config admin.scope). No token or a bad one: 401 with a Bearer challenge; a
// valid token without the scope: 403 `insufficient_scope`. Every refusal is audited. The token is
// read from the Authorization header only.
// With a browser sign-in (sign-in mode, or auth.browserSignIn), a browser without a token may bring the status page's session cookie instead
// (browser-sign-in.ts): a person asking for a page without one is sent to sign in; one signed in
// without the admin scope gets a page saying who they are and what is missing; a request that
// changes something needs the browser to say it comes from this origin (provenSameOrigin).
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import { bearerChallenge } from '../../auth/challenge.js';
import { KeysUnavailableError, TokenRejectedError, type TokenVerifier } from '../../auth/token-verifier.js';
import type { AdminRefusalEvent } from '../../observe/audit.js';
import { clientAddress } from '../client-address.js';
import type { AdminEnv } from './admin-env.js';
import { SESSION_COOKIE } from './browser-sign-in.js';
import { adminError } from './errors.js';
import { provenSameOrigin } from './request-guard.js';
import type { SessionSealer } from './session-cookie.js';
import { forbiddenPage } from './sign-in-pages.js';
import { SIGN_IN_PATH } from './status-client.js';

export interface AdminAuthOptions {
  readonly verifier: TokenVerifier;
  /** The scope an admin's token must carry. */
  readonly scope: string;
  /** The gateway's RFC 9728 metadata URL: where a client learns which authorization server to ask. */
  readonly resourceMetadata: string;
  readonly onRefused?: (event: AdminRefusalEvent) => void;
  /** With a browser sign-in: the status page's session cookies are opened with this. */
  readonly sessions?: SessionSealer;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_HEADER_LENGTH = 16 * 1024;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function adminAuth({ verifier, scope, resourceMetadata, onRefused, sessions }: AdminAuthOptions): MiddlewareHandler<AdminEnv> {
  if (scope === '' || /\s/.test(scope)) throw new Error('adminAuth: a scope is a word without spaces');
  return async function adminAuthMiddleware(c, next) {
    const report = (event: Pick<AdminRefusalEvent, 'outcome' | 'reason' | 'detail' | 'status' | 'sub'>) => {
      try {
        onRefused?.({ ...event, httpMethod: c.req.method, path: c.req.path, client: clientAddress(c), requestId: c.get('requestId') });
      } catch {
        // The audit trail's failure is not the caller's problem.
      }
    };
    const refuse = (
      status: 401 | 403,
      reason: AdminRefusalEvent['reason'],
      error: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | undefined,
      message: string,
      detail?: string,
      sub?: string,
    ): Response => {
      try {
        onRefused?.({
          outcome: status === 401 ? 'unauthenticated' : 'denied',
          reason,
          ...(detail !== undefined && { detail }),
          status,
          httpMethod: c.req.method,
          path: c.req.path,
          ...(sub !== undefined && { sub }),
          client: clientAddress(c),
          requestId: c.get('requestId'),
        });
      } catch {
        // The audit trail's failure is not the caller's problem.
      }
      const challenge = bearerChallenge({ resourceMetadata, scope: [scope], ...(error && { error }), ...(detail !== undefined && { errorDescription: detail }) });
      return adminError(c, status === 401 ? 'unauthorized' : 'forbidden', message, error ? { oauthError: error } : {}, { 'WWW-Authenticate': challenge });
    };

    const header = c.req.header('authorization');
    if ((header === undefined || header.trim() === '') && sessions !== undefined) {
      const sealed = getCookie(c, SESSION_COOKIE);
      const session = sealed === undefined ? undefined : await sessions.openSession(sealed);
      if (session === undefined) {
        if (sealed !== undefined) deleteCookie(c, SESSION_COOKIE, { secure: true, path: '/' });
        if (isPageNavigation(c)) return c.redirect(`${SIGN_IN_PATH}?return=${encodeURIComponent(c.req.path + new URL(c.req.url).search)}`, 303);
        if (sealed !== undefined) return refuse(401, 'invalid-token', 'invalid_token', 'Unauthorized: the session cookie is not valid (changed, or expired); sign in again', 'session cookie not valid');
      } else {
        if (!SAFE_METHODS.has(c.req.method) && !provenSameOrigin(c)) {
          report({ outcome: 'denied', reason: 'origin', detail: 'a signed-in request without a same-origin Origin or Sec-Fetch-Site', status: 403, sub: session.sub });
          return adminError(c, 'forbidden', 'requests signed in by cookie must come from the status page itself (Origin or Sec-Fetch-Site: same-origin)');
        }
        if (!session.scopes.includes(scope)) {
          const detail = `the signed-in person lacks the scope ${scope}`;
          report({ outcome: 'denied', reason: 'insufficient-scope', detail, status: 403, sub: session.sub });
          if (c.req.path.startsWith('/api/')) return adminError(c, 'forbidden', `Forbidden: ${detail}`);
          const page = forbiddenPage(session, scope);
          return c.html(page.html, 403, { 'cache-control': 'no-store', 'content-security-policy': page.csp, 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' });
        }
        c.set('principal', { sub: session.sub, scopes: session.scopes, claims: { groups: session.groups, ...(session.email !== undefined && { email: session.email }), ...(session.name !== undefined && { name: session.name }) } });
        c.set('adminSession', session);
        return next();
      }
    }
    if (header === undefined || header.trim() === '') {
      return refuse(401, 'missing-token', undefined, `Unauthorized: the admin listener needs a bearer token with the scope ${scope}`);
    }
    const match = header.length <= MAX_HEADER_LENGTH ? BEARER.exec(header) : null;
    if (!match?.[1]) return refuse(401, 'invalid-token', 'invalid_request', 'Unauthorized: the Authorization header must be "Bearer <token>"', 'not a Bearer token');
    let principal;
    try {
      principal = await verifier.verify(match[1]);
    } catch (error) {
      if (error instanceof TokenRejectedError) return refuse(401, 'invalid-token', 'invalid_token', `Unauthorized: ${error.reason}`, error.reason);
      if (error instanceof KeysUnavailableError) {
        try {
          onRefused?.({ outcome: 'unauthenticated', reason: 'keys-unavailable', status: 503, httpMethod: c.req.method, path: c.req.path, client: clientAddress(c), requestId: c.get('requestId') });
        } catch {
          // As above.
        }
        return adminError(c, 'unavailable', 'tokens cannot be verified right now (the identity provider\'s keys cannot be fetched)', {}, { 'Retry-After': '5' });
      }
      throw error;
    }
    if (!principal.scopes.includes(scope)) {
      const detail = `the token lacks the scope ${scope}`;
      return refuse(403, 'insufficient-scope', 'insufficient_scope', `Forbidden: ${detail}`, detail, principal.sub);
    }
    c.set('principal', principal);
    await next();
  };
}

/** A browser opening a page (not the page's script, not the API): it can be sent to sign in. */
function isPageNavigation(c: Context): boolean {
  if (c.req.method !== 'GET' || c.req.path.startsWith('/api/')) return false;
  const mode = c.req.header('sec-fetch-mode');
  if (mode !== undefined) return mode === 'navigate';
  return /\btext\/html\b/.test(c.req.header('accept') ?? '');
}
