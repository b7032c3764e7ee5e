// How browsers sign in to Switchboard's own pages (the status page, the Connections page and
// connect links), in either auth mode: sign-in mode's built-in clients of the gateway's own
// authorization server (sign-in-side.ts), or in resource-server mode with auth.browserSignIn, a
// confidential client of the team's provider (signin/team-provider-pages.ts, loaded only then).
// Resource-server mode without it: no browser sign-in (the status page takes bearer tokens only,
// and the config refuses connections).
import type { Config } from '../config/schema.js';
import type { StatusPageOAuth } from '../http/admin/browser-sign-in.js';
import { CALLBACK_PATH, fixedPageOrigin } from '../http/admin/status-client.js';
import { PERSON_PAGES } from '../http/connections/routes.js';
import type { SignInSide } from './sign-in-side.js';
import { usesConnections } from './sign-in-side.js';

export interface PagesSignIn {
  /** The status page's client; absent with admin.enabled false. `useLocalOrigin`: sign-in mode's exchange on the gateway's own listener. */
  readonly statusPage: (StatusPageOAuth & { useLocalOrigin?(origin: string): void }) | undefined;
  /** The connections pages' client, when a server's credentials are connections. */
  readonly personPages: StatusPageOAuth | undefined;
  /** Seals the pages' cookies and signs their forms: auth.signIn.secret or auth.browserSignIn.secret. */
  readonly secret: string;
}

export async function pagesSignIn(config: Config, signIn: SignInSide | undefined): Promise<PagesSignIn | undefined> {
  const auth = config.auth;
  if (auth?.signIn !== undefined && signIn !== undefined) {
    return { statusPage: signIn.statusPage, personPages: signIn.personPages, secret: auth.signIn.secret };
  }
  const browser = auth?.browserSignIn;
  if (auth?.issuer === undefined || browser === undefined) return undefined;
  const { TeamProviderPages } = await import('../signin/team-provider-pages.js');
  const publicOrigin = new URL(config.server.publicUrl).origin;
  return {
    statusPage: config.admin.enabled
      ? new TeamProviderPages({
          issuer: auth.issuer,
          config: browser,
          // The admin scope, so that the page's session carries it when the provider grants it.
          scopes: browser.adminScopes ?? [...new Set([...browser.scopes, config.admin.scope])],
          callbackUrl: `${fixedPageOrigin(config) ?? 'http://127.0.0.1'}${CALLBACK_PATH}`,
        })
      : undefined,
    personPages: usesConnections(config)
      ? new TeamProviderPages({ issuer: auth.issuer, config: browser, scopes: browser.scopes, callbackUrl: `${publicOrigin}${PERSON_PAGES.callback}` })
      : undefined,
    secret: browser.secret,
  };
}
