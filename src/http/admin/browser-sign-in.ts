// Signing a person in to Switchboard's pages in a browser (the status page, and the connections
// pages with other names): authorization code with PKCE (S256) and state, at the gateway's own
// authorization server in sign-in mode (a built-in client, signin/status-page-client.ts), or in
// resource-server mode at the team's provider as auth.browserSignIn's confidential client (with a
// nonce too, signin/team-provider-pages.ts). Either way the access token the code is exchanged for
// is checked with the same verifier as bearer tokens before the session cookie is set, so the
// browser is the principal (`sub`) the person's MCP client is. This file is the HTTP side. Routes:
// GET /signin, GET /signin/callback, POST /signout, GET /signed-out.
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { TokenVerifier } from '../../auth/token-verifier.js';
import { TokenRejectedError } from '../../auth/token-verifier.js';
import type { AdminActionEvent } from '../../observe/audit.js';
import { clientAddress } from '../client-address.js';
import { isLoopbackHost } from '../origin-patterns.js';
import type { AppEnv } from '../app-env.js';
import { MAX_SESSION_SECONDS, PENDING_SECONDS, type SessionSealer } from './session-cookie.js';
import { signInErrorPage, signedOutPage } from './sign-in-pages.js';
import { CALLBACK_PATH, SIGN_IN_PATH, SIGN_OUT_PATH, SIGNED_OUT_PATH } from './status-client.js';
import { pageHeaders } from '../sign-in/page-shell.js';

/** `__Host-`: Secure, Path=/, no Domain, so no other host (a sibling subdomain) can set or shadow it. */
export const SESSION_COOKIE = '__Host-switchboard-admin';
const PENDING_COOKIE = '__Host-switchboard-signin';
/** The loopback names the built-in client's redirect URIs are registered with. */
const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** What a sign-in keeps until the browser comes back: state, PKCE verifier, and the OpenID nonce where one was sent. */
export interface PendingAuthorization {
  readonly state: string;
  readonly verifier: string;
  readonly nonce?: string;
}

/**
 * The pages' OAuth client: signin/status-page-client.ts (sign-in mode) or
 * signin/team-provider-pages.ts (resource-server mode), loaded only when configured.
 */
export interface StatusPageOAuth {
  /** Where to send the browser; `unavailable` when the authorization server cannot be used now (said to the person, 503). */
  begin(redirectUri: string): Promise<({ readonly url: string } & PendingAuthorization) | { readonly unavailable: string }>;
  finish(callback: URL, pending: PendingAuthorization): Promise<{ readonly accessToken: string } | { readonly refused: string }>;
}

export interface BrowserSignInOptions {
  readonly oauth: StatusPageOAuth;
  readonly sealer: SessionSealer;
  readonly verifier: TokenVerifier;
  /** The scope the pages need (the status page's admin.scope): a sign-in without it is audited as such. */
  readonly scope?: string;
  /** The origin the page is opened at when the config fixes one (onServerPort, admin.publicUrl); else any loopback origin. */
  readonly pageOrigin: string | undefined;
  readonly onAction: (event: AdminActionEvent) => void;
  /** Another set of pages signing people in the same way (the connections pages): their paths and cookies. */
  readonly names?: BrowserSignInNames;
}

/** Where a set of pages signs people in, and the cookies it keeps. */
export interface BrowserSignInNames {
  readonly signIn: string;
  readonly callback: string;
  readonly signOut: string;
  readonly signedOut: string;
  readonly sessionCookie: string;
  readonly pendingCookie: string;
  /** Where a sign-in returns without a (valid) `return`. */
  readonly home: string;
}

export const STATUS_PAGE_NAMES: BrowserSignInNames = {
  signIn: SIGN_IN_PATH,
  callback: CALLBACK_PATH,
  signOut: SIGN_OUT_PATH,
  signedOut: SIGNED_OUT_PATH,
  sessionCookie: SESSION_COOKIE,
  pendingCookie: PENDING_COOKIE,
  home: '/status',
};

export function browserSignIn<E extends AppEnv>(app: Hono<E>, options: BrowserSignInOptions): void {
  const { oauth, sealer, verifier, scope } = options;
  const names = options.names ?? STATUS_PAGE_NAMES;
  const audit = (c: Context<E>, event: Pick<AdminActionEvent, 'action' | 'outcome'> & Partial<AdminActionEvent>) => {
    try {
      options.onAction({ ...event, client: clientAddress(c), requestId: (c as unknown as Context<AppEnv>).get('requestId'), durationMs: 0 });
    } catch {
      // The audit trail's failure is not the person's problem.
    }
  };

  app.get(names.signIn, async (c) => {
    const origin = options.pageOrigin ?? loopbackOrigin(c.req.header('host'));
    if (origin === undefined) {
      return page(c, 400, signInErrorPage('Sign-in needs the status page\'s address', 'Open the status page on a loopback address (http://127.0.0.1:<port>, through a port-forward), or set admin.publicUrl to the address people open it at.'));
    }
    if (!secureContext(origin)) {
      return page(c, 400, signInErrorPage('Sign-in needs https', `The session cookie is Secure, which a browser keeps only on https or loopback; ${origin} is neither. Serve the status page over https.`));
    }
    const redirectUri = `${origin}${names.callback}`;
    const begun = await oauth.begin(redirectUri);
    if ('unavailable' in begun) {
      audit(c, { action: 'sign-in', outcome: 'error', reason: begun.unavailable });
      return page(c, 503, signInErrorPage('Sign-in is not available now', `${begun.unavailable}. Try again in a moment; if it goes on, tell the gateway's operator.`));
    }
    const { url, state, verifier: codeVerifier, nonce } = begun;
    const sealed = await sealer.sealPending({ state, verifier: codeVerifier, ...(nonce !== undefined && { nonce }), redirectUri, returnTo: safeReturnPath(c.req.query('return'), names.home) });
    // Lax: the authorization server sends the browser back with a top-level GET, which carries it.
    setCookie(c, names.pendingCookie, sealed, { httpOnly: true, secure: true, sameSite: 'Lax', path: '/', maxAge: PENDING_SECONDS });
    c.header('cache-control', 'no-store');
    return c.redirect(url, 303);
  });

  app.get(names.callback, async (c) => {
    const sealed = getCookie(c, names.pendingCookie);
    const pending = sealed === undefined ? undefined : await sealer.openPending(sealed);
    deleteCookie(c, names.pendingCookie, { secure: true, path: '/' });
    const again = `${names.signIn}?return=${encodeURIComponent(pending?.returnTo ?? names.home)}`;
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
    setCookie(c, names.sessionCookie, cookie, { httpOnly: true, secure: true, sameSite: 'Lax', path: '/', maxAge: Math.max(1, exp - now) });
    audit(c, { action: 'sign-in', outcome: 'ok', sub: principal.sub, ...(scope !== undefined && !principal.scopes.includes(scope) && { reason: `signed in without the scope ${scope}: the page will refuse them` }) });
    c.header('cache-control', 'no-store');
    return c.redirect(pending.returnTo, 303);
  });

  // A form on the page posts here (request-guard.ts lets this one form through from the page's own origin).
  app.post(names.signOut, async (c) => {
    const sealed = getCookie(c, names.sessionCookie);
    const session = sealed === undefined ? undefined : await sealer.openSession(sealed);
    deleteCookie(c, names.sessionCookie, { secure: true, path: '/' });
    audit(c, { action: 'sign-out', outcome: 'ok', ...(session && { sub: session.sub }) });
    c.header('cache-control', 'no-store');
    return c.redirect(names.signedOut, 303);
  });

  app.get(names.signedOut, (c) => page(c, 200, signedOutPage(`${names.signIn}?return=${encodeURIComponent(names.home)}`)));
}

/**
 * Where a sign-in may send the browser afterwards: a path on this origin only (no scheme, no
 * `//host`, no backslash a browser would read as a slash), else /status. No open redirect.
 */
export function safeReturnPath(value: string | undefined, home = '/status'): string {
  if (value === undefined || value.length > 512 || !/^\/(?![/\\])[\x21-\x7E]*$/.test(value)) return home;
  const base = 'http://return.invalid';
  const url = URL.parse(value, base);
  return url !== null && url.origin === base ? `${url.pathname}${url.search}` : home;
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

function page<E extends AppEnv>(c: Context<E>, status: 200 | 400 | 503, rendered: { html: string; csp: string }): Response {
  return c.html(rendered.html, status, pageHeaders(rendered));
}
