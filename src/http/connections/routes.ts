// The person's side of credentials.connection, on the gateway's public origin: their Connections
// page (GET /connections, with its connect links and disconnect forms under /connections/servers/),
// the connect link a client was given (GET /connections/connect/<id>), the upstream's callback, and
// the client ID metadata document Switchboard publishes for the upstreams' authorization servers. The browser
// must be signed in, as the status page's is (a sealed session cookie, from a built-in client of the
// gateway's authorization server in sign-in mode, or auth.browserSignIn's client of the team's
// provider in resource-server mode), as the person the link was made for.
import type { Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { UpstreamAuthorizationError } from '../../connections/authorization-discovery.js';
import { ConnectRefusedError, CONNECT_CALLBACK_PATH, CONNECT_PATH, CLIENT_METADATA_PATH, type UpstreamConnector } from '../../connections/upstream-connector.js';
import type { AppEnv } from '../app-env.js';
import { browserSignIn, type BrowserSignInNames, type BrowserSignInOptions } from '../admin/browser-sign-in.js';
import { provenSameOrigin } from '../admin/request-guard.js';
import type { AdminSession, SessionSealer } from '../admin/session-cookie.js';
import { connectionsPage, CONNECTIONS_PATH, notDonePage, type ServerConnectionRow } from './connections-page.js';
import type { FormTokens, FormAction } from './form-token.js';
import { connectedPage, connectRefusedPage } from './pages.js';
import { pageHeaders } from '../sign-in/page-shell.js';

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
  /** The servers whose credentials are connections, in config order: the Connections page's rows. */
  readonly servers: () => readonly string[];
  /** Makes and checks the page's form tokens (the sign-in secret's). */
  readonly formTokens: FormTokens;
}

export function registerConnectionRoutes(app: Hono<AppEnv>, options: ConnectionRoutesOptions): void {
  browserSignIn(app, { ...options.signIn, names: PERSON_PAGES });

  app.get(CLIENT_METADATA_PATH, (c) => c.json(options.clientMetadata, 200, { 'Cache-Control': 'public, max-age=3600' }));

  app.get(CONNECTIONS_PATH, async (c) => {
    const session = await signedInSession(c, options.sealer);
    if (session === undefined) return c.redirect(`${PERSON_PAGES.signIn}?return=${encodeURIComponent(CONNECTIONS_PATH)}`, 303);
    const rows = await Promise.all(
      options.servers().flatMap((server): Promise<ServerConnectionRow>[] => {
        const connector = options.connectorFor(server);
        if (connector === undefined) return [];
        const tokenOf = (action: FormAction) => options.formTokens.of(action, server, session.sub);
        return [connector.summary(session.sub).then(
          (summary) => ({ server, summary, connectToken: tokenOf('connect'), disconnectToken: tokenOf('disconnect') }),
          () => ({ server, summary: undefined, connectToken: tokenOf('connect'), disconnectToken: tokenOf('disconnect') }),
        )];
      }),
    );
    // After a disconnect (post, redirect, get): said only for a server of the list, so no link can put words on the page.
    const done = c.req.query('disconnected');
    const message = done !== undefined && rows.some((row) => row.server === done) ? `Your account on ${done} is disconnected.` : undefined;
    return page(c, 200, connectionsPage(session, rows, PERSON_PAGES.signOut, message));
  });

  // Connect or reconnect from the page: a connect link made for the person, opened at once.
  app.get(`${CONNECTIONS_PATH}/servers/:server/connect`, async (c) => {
    const checked = await checkedForm(c, options, 'connect');
    if ('refused' in checked) return checked.refused;
    const { url } = await checked.connector.connectLink(checked.sub);
    return c.redirect(url, 303);
  });

  // Disconnect: forgotten here, revoked at the provider when it offers revocation.
  app.post(`${CONNECTIONS_PATH}/servers/:server/disconnect`, async (c) => {
    const checked = await checkedForm(c, options, 'disconnect');
    if ('refused' in checked) return checked.refused;
    await checked.connector.disconnect(checked.sub);
    return c.redirect(`${CONNECTIONS_PATH}?disconnected=${encodeURIComponent(checked.server)}`, 303);
  });

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
      // The upstream's authorization server cannot be used (unreadable, or naming its endpoints on
      // another host): said plainly, nothing is sent there.
      if (error instanceof UpstreamAuthorizationError) return page(c, 502, connectRefusedPage(`${server} cannot be connected now: ${error.message}. Tell the gateway's operator.`));
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
  return (await signedInSession(c, sealer))?.sub;
}

async function signedInSession(c: Context<AppEnv>, sealer: SessionSealer): Promise<AdminSession | undefined> {
  const sealed = getCookie(c, PERSON_PAGES.sessionCookie);
  return sealed === undefined ? undefined : sealer.openSession(sealed);
}

/**
 * A form or link of the Connections page, or a forgery: a form (POST) must come from this origin
 * (Origin, or Sec-Fetch-Site: same-origin); each must come from a signed-in person, for a server
 * with connections, and carry the token made for that person, server and action. Anything else
 * changes nothing.
 */
async function checkedForm(
  c: Context<AppEnv>,
  options: ConnectionRoutesOptions,
  action: FormAction,
): Promise<{ readonly sub: string; readonly server: string; readonly connector: UpstreamConnector } | { readonly refused: Response }> {
  const refuse = (status: 400 | 403, reason: string) => ({ refused: page(c, status, notDonePage(reason)) });
  // A connect link (GET) changes nothing the person does not then complete at the upstream; a disconnect must prove its origin.
  const post = c.req.method === 'POST';
  if (post && !provenSameOrigin(c)) return refuse(403, 'This request did not come from your Connections page.');
  const sub = await signedIn(c, options.sealer);
  if (sub === undefined) return refuse(403, 'You are not signed in (or your sign-in has expired). Open your connections again and sign in.');
  const server = c.req.param('server') ?? '';
  const connector = options.servers().includes(server) ? options.connectorFor(server) : undefined;
  if (connector === undefined) return refuse(400, 'There is no such server to connect here.');
  const form = post ? await c.req.parseBody().catch(() => undefined) : { form_token: c.req.query('form_token') };
  const token = form?.form_token;
  if (typeof token !== 'string' || !options.formTokens.matches(action, server, sub, token)) {
    return refuse(403, 'This form was not made for you, or for this server. Open your connections again and use its buttons.');
  }
  return { sub, server, connector };
}

function page(c: Context<AppEnv>, status: 200 | 400 | 403 | 502, rendered: { html: string; csp: string }): Response {
  return c.html(rendered.html, status, pageHeaders(rendered));
}
