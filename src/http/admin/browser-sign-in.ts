// Signing a person in to the status page (sign-in mode): authorization code with PKCE (S256) and
// state at the gateway's own authorization server, as the built-in client status-client.ts names
// (the OAuth part is signin/status-page-client.ts; this file is its HTTP side). The code is
// exchanged at the gateway's local address, and the access token is checked with the same verifier
// as bearer tokens before the session cookie is set. Routes: GET /signin, GET /signin/callback,
// POST /signout, GET /signed-out.
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { TokenVerifier } from '../../auth/token-verifier.js';
import { TokenRejectedError } from '../../auth/token-verifier.js';
import type { AdminActionEvent } from '../../observe/audit.js';
import { clientAddress } from '../client-address.js';
import { isLoopbackHost } from '../origin-patterns.js';
import type { AdminEnv } from './admin-env.js';
import { MAX_SESSION_SECONDS, PENDING_SECONDS, type SessionSealer } from './session-cookie.js';
import { signInErrorPage, signedOutPage } from './sign-in-pages.js';
import { CALLBACK_PATH, SIGN_IN_PATH, SIGN_OUT_PATH, SIGNED_OUT_PATH } from './status-client.js';

/** `__Host-`: Secure, Path=/, no Domain, so no other host (a sibling subdomain) can set or shadow it. */
export const SESSION_COOKIE = '__Host-switchboard-admin';
const PENDING_COOKIE = '__Host-switchboard-signin';
/** The loopback names the built-in client's redirect URIs are registered with. */
const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The status page's OAuth client (signin/status-page-client.ts, loaded only in sign-in mode). */
export interface StatusPageOAuth {
  begin(redirectUri: string): Promise<{ readonly url: string; readonly state: string; readonly verifier: string }>;
  finish(callback: URL, pending: { readonly state: string; readonly verifier: string }): Promise<{ readonly accessToken: string } | { readonly refused: string }>;
}

export interface BrowserSignInOptions {
  readonly oauth: StatusPageOAuth;
  readonly sealer: SessionSealer;
  readonly verifier: TokenVerifier;
  readonly scope: string;
  /** The origin the page is opened at when the config fixes one (onServerPort, admin.publicUrl); else any loopback origin. */
  readonly pageOrigin: string | undefined;
  readonly onAction: (event: AdminActionEvent) => void;
}

export function browserSignIn(app: Hono<AdminEnv>, options: BrowserSignInOptions): void {
  const { oauth, sealer, verifier, scope } = options;
  const audit = (c: Context<AdminEnv>, event: Pick<AdminActionEvent, 'action' | 'outcome'> & Partial<AdminActionEvent>) => {
    try {
      options.onAction({ ...event, client: clientAddress(c), requestId: c.get('requestId'), durationMs: 0 });
    } catch {
      // The audit trail's failure is not the person's problem.
    }
  };

  app.get(SIGN_IN_PATH, async (c) => {
    const origin = options.pageOrigin ?? loopbackOrigin(c.req.header('host'));
    if (origin === undefined) {
      return page(c, 400, signInErrorPage('Sign-in needs the status page\'s address', 'Open the status page on a loopback address (http://127.0.0.1:<port>, through a port-forward), or set admin.publicUrl to the address people open it at.'));
    }
    if (!secureContext(origin)) {
      return page(c, 400, signInErrorPage('Sign-in needs https', `The session cookie is Secure, which a browser keeps only on https or loopback; ${origin} is neither. Serve the status page over https.`));
    }
    const redirectUri = `${origin}${CALLBACK_PATH}`;
    const { url, state, verifier: codeVerifier } = await oauth.begin(redirectUri);
    const sealed = await sealer.sealPending({ state, verifier: codeVerifier, redirectUri, returnTo: safeReturnPath(c.req.query('return')) });
    // Lax: the authorization server sends the browser back with a top-level GET, which carries it.
    setCookie(c, PENDING_COOKIE, sealed, { httpOnly: true, secure: true, sameSite: 'Lax', path: '/', maxAge: PENDING_SECONDS });
    c.header('cache-control', 'no-store');
    return c.redirect(url, 303);
  });

  app.get(CALLBACK_PATH, async (c) => {
    const sealed = getCookie(c, PENDING_COOKIE);
    const pending = sealed === undefined ? undefined : await sealer.openPending(sealed);
    deleteCookie(c, PENDING_COOKIE, { secure: true, path: '/' });
    const again = `${SIGN_IN_PATH}?return=${encodeURIComponent(pending?.returnTo ?? '/status')}`;
    if (pending === undefined) {
      audit(c, { action: 'sign-in', outcome: 'refused', reason: 'no sign-in under way in this browser (expired, or started elsewhere)' });
      return page(c, 400, signInErrorPage('This sign-in has expired', 'It took too long, or was started in another browser.', again));
    }
    const current = new URL(pending.redirectUri);
    current.search = new URL(c.req.url).search;
    const exchange = await oauth.finish(current, pending);
    if ('refused' in exchange) {
      audit(c, { action: 'sign-in', outcome: 'refused', reason: exchange.refused });
      return page(c, 400, signInErrorPage('Sign-in failed', exchange.refused, again));
    }
    let principal;
    try {
      principal = await verifier.verify(exchange.accessToken);
    } catch (error) {
      if (!(error instanceof TokenRejectedError)) throw error;
      audit(c, { action: 'sign-in', outcome: 'refused', reason: `the token is not valid here: ${error.reason}` });
      return page(c, 400, signInErrorPage('Sign-in failed', `The token the authorization server issued is not valid here: ${error.reason}`, again));
    }
    const now = Math.floor(Date.now() / 1000);
    const tokenExp = typeof principal.claims.exp === 'number' ? principal.claims.exp : now + MAX_SESSION_SECONDS;
    const exp = Math.min(tokenExp, now + MAX_SESSION_SECONDS);
    const { email, name, groups } = principal.claims;
    const cookie = await sealer.sealSession({
      sub: principal.sub,
      scopes: principal.scopes,
      groups: Array.isArray(groups) ? groups.filter((group): group is string => typeof group === 'string') : [],
      ...(typeof email === 'string' && { email }),
      ...(typeof name === 'string' && { name }),
      exp,
    });
    setCookie(c, SESSION_COOKIE, cookie, { httpOnly: true, secure: true, sameSite: 'Lax', path: '/', maxAge: Math.max(1, exp - now) });
    audit(c, { action: 'sign-in', outcome: 'ok', sub: principal.sub, ...(!principal.scopes.includes(scope) && { reason: `signed in without the scope ${scope}: the page will refuse them` }) });
    c.header('cache-control', 'no-store');
    return c.redirect(pending.returnTo, 303);
  });

  // A form on the page posts here (request-guard.ts lets this one form through from the page's own origin).
  app.post(SIGN_OUT_PATH, async (c) => {
    const sealed = getCookie(c, SESSION_COOKIE);
    const session = sealed === undefined ? undefined : await sealer.openSession(sealed);
    deleteCookie(c, SESSION_COOKIE, { secure: true, path: '/' });
    audit(c, { action: 'sign-out', outcome: 'ok', ...(session && { sub: session.sub }) });
    c.header('cache-control', 'no-store');
    return c.redirect(SIGNED_OUT_PATH, 303);
  });

  app.get(SIGNED_OUT_PATH, (c) => page(c, 200, signedOutPage(`${SIGN_IN_PATH}?return=%2Fstatus`)));
}

/**
 * Where a sign-in may send the browser afterwards: a path on this origin only (no scheme, no
 * `//host`, no backslash a browser would read as a slash), else /status. No open redirect.
 */
export function safeReturnPath(value: string | undefined): string {
  if (value === undefined || value.length > 512 || !/^\/(?![/\\])[\x21-\x7E]*$/.test(value)) return '/status';
  const base = 'http://return.invalid';
  const url = URL.parse(value, base);
  return url !== null && url.origin === base ? `${url.pathname}${url.search}` : '/status';
}

/** http://<Host> when the Host header names a loopback host: where a loopback listener or a port-forward is opened. */
function loopbackOrigin(host: string | undefined): string | undefined {
  if (host === undefined) return undefined;
  const url = URL.parse(`http://${host.trim().toLowerCase()}`);
  return url !== null && url.host === host.trim().toLowerCase() && LOOPBACK_HOSTNAMES.has(url.hostname) ? url.origin : undefined;
}

function secureContext(origin: string): boolean {
  const url = new URL(origin);
  return url.protocol === 'https:' || isLoopbackHost(url.hostname);
}

function page(c: Context, status: 200 | 400, rendered: { html: string; csp: string }): Response {
  return c.html(rendered.html, status, { 'cache-control': 'no-store', 'content-security-policy': rendered.csp, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' });
}
