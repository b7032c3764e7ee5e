// The team's identity provider for the status page's sign-in tests: the harness's real
// oidc-provider (team-idp.ts, Entra-like) with people named by login and their groups, knowing
// Switchboard as one confidential client with its broker callback.
import type { Page } from 'playwright-core';
import { signInAtTeamIdp } from './browser.js';
import { startTeamIdp } from './team-idp.js';

export interface StatusPageIdp {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  stop(): Promise<void>;
}

export interface StatusPageIdpOptions {
  /** Login name -> groups. */
  readonly people: Readonly<Record<string, readonly string[]>>;
  /** Switchboard's broker callback, `<public origin>/oauth/callback`. */
  readonly redirectUri: string;
}

const PASSWORD = 'any password';

export async function startStatusPageIdp({ people, redirectUri }: StatusPageIdpOptions): Promise<StatusPageIdp> {
  const clientId = 'switchboard';
  const clientSecret = 'team-idp-secret-for-switchboard';
  const idp = await startTeamIdp({
    profile: 'entra',
    accounts: Object.entries(people).map(([login, groups]) => ({ sub: login, oid: login, email: `${login}@example.com`, name: login, groups: [...groups], password: PASSWORD })),
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri] }],
  });
  return { issuer: idp.issuer, clientId, clientSecret, stop: () => idp.stop() };
}

/** On the provider's login page: signs in as `login` (the provider asks no consent of its own). */
export async function signInAtIdp(page: Page, idp: StatusPageIdp, login: string): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(idp.issuer));
  await signInAtTeamIdp(page, { username: login, password: PASSWORD });
}
