// The person's side of credentials.connection, on the gateway's public origin: the connect link a
// client was given (GET /connections/connect/<id>), the upstream's callback, and the client ID
// metadata document Switchboard publishes for the upstreams' authorization servers. The browser
// must be signed in (sign-in mode's own sign-in, as the status page's: a built-in client of the
// gateway's authorization server and a sealed session cookie) as the person the link was made for.
import type { Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { ConnectRefusedError, CONNECT_CALLBACK_PATH, CONNECT_PATH, CLIENT_METADATA_PATH, type UpstreamConnector } from '../../connections/upstream-connector.js';
import type { AppEnv } from '../app-env.js';
import { browserSignIn, type BrowserSignInNames, type BrowserSignInOptions } from '../admin/browser-sign-in.js';
import type { SessionSealer } from '../admin/session-cookie.js';
import { connectedPage, connectRefusedPage } from './pages.js';

export const PERSON_PAGES: BrowserSignInNames = {
  signIn: '/connections/signin',
  callback: '/connections/signin/callback',
  signOut: '/connections/signout',
  signedOut: '/connections/signed-out',
  sessionCookie: '__Host-switchboard-person',
  pendingCookie: '__Host-switchboard-person-signin',
  home: '/connections',
};

export interface ConnectionRoutesOptions {
  /** The browser sign-in of the person pages (names are PERSON_PAGES). */
  readonly signIn: Omit<BrowserSignInOptions, 'names'>;
  readonly sealer: SessionSealer;
  /** The connector of a server by name, from the config in force; undefined for a server without connection. */
  readonly connectorFor: (server: string) => UpstreamConnector | undefined;
  readonly serverOf: (kind: 'link' | 'state', id: string) => Promise<string | undefined>;
  /** The person connected: their clients are told the elicitation is complete. */
  readonly onConnected: (sub: string, server: string, elicitationId: string) => void;
  /** Switchboard's client ID metadata document for upstreams that take them. */
  readonly clientMetadata: Readonly<Record<string, unknown>>;
}

export function registerConnectionRoutes(app: Hono<AppEnv>, options: ConnectionRoutesOptions): void {
  browserSignIn(app, { ...options.signIn, names: PERSON_PAGES });

  app.get(CLIENT_METADATA_PATH, (c) => c.json(options.clientMetadata, 200, { 'Cache-Control': 'public, max-age=3600' }));

  app.get(`${CONNECT_PATH}/:id`, async (c) => {
    const id = c.req.param('id');
    const sub = await signedIn(c, options.sealer);
    if (sub === undefined) return c.redirect(`${PERSON_PAGES.signIn}?return=${encodeURIComponent(`${CONNECT_PATH}/${id}`)}`, 303);
    const server = await options.serverOf('link', id);
    const connector = server === undefined ? undefined : options.connectorFor(server);
    if (connector === undefined) return page(c, 400, connectRefusedPage('This connect link has expired or was already used. Ask for the tool again in your client to get a new one.'));
    try {
      return c.redirect(await connector.begin(id, sub), 303);
    } catch (error) {
      if (error instanceof ConnectRefusedError) return page(c, 403, connectRefusedPage(`${error.message}.`));
      throw error;
    }
  });

  app.get(CONNECT_CALLBACK_PATH, async (c) => {
    const sub = await signedIn(c, options.sealer);
    const state = c.req.query('state') ?? '';
    const server = await options.serverOf('state', state);
    const connector = server === undefined ? undefined : options.connectorFor(server);
    if (sub === undefined || connector === undefined || server === undefined) {
      return page(c, 400, connectRefusedPage('This connection attempt has expired, was already completed, or was opened in another browser. Ask for the tool again in your client.'));
    }
    if (c.req.query('error') !== undefined) {
      const description = c.req.query('error_description');
      return page(c, 400, connectRefusedPage(`${server} did not allow the connection (${c.req.query('error')}${description ? `: ${description}` : ''}).`));
    }
    try {
      const { elicitationId } = await connector.complete(new URL(c.req.url), sub);
      options.onConnected(sub, server, elicitationId);
      return page(c, 200, connectedPage(server));
    } catch (error) {
      if (error instanceof ConnectRefusedError) return page(c, 403, connectRefusedPage(`${error.message}.`));
      throw error;
    }
  });
}

async function signedIn(c: Context<AppEnv>, sealer: SessionSealer): Promise<string | undefined> {
  const sealed = getCookie(c, PERSON_PAGES.sessionCookie);
  return sealed === undefined ? undefined : (await sealer.openSession(sealed))?.sub;
}

function page(c: Context<AppEnv>, status: 200 | 400 | 403, rendered: { html: string; csp: string }): Response {
  return c.html(rendered.html, status, { 'cache-control': 'no-store', 'content-security-policy': rendered.csp, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' });
}
