// A throwaway team identity provider for the status page's sign-in tests: a real oidc-provider on
// 127.0.0.1 with its own development login form (any password) and consent step, knowing
// Switchboard as one confidential client. Each person's groups come with the `profile` scope, which
// the gateway asks for by default. (The fuller harness for the MCP clients' tests is
// test/support/team-idp.ts on its own branch; this one needs only people with groups.)
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Page } from 'playwright-core';

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

export async function startStatusPageIdp({ people, redirectUri }: StatusPageIdpOptions): Promise<StatusPageIdp> {
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'switchboard';
  const clientSecret = 'team-idp-secret-for-switchboard';
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri] }],
    findAccount: async (_ctx, sub) => {
      const groups = people[sub];
      if (groups === undefined) return undefined;
      return { accountId: sub, claims: async () => ({ sub, email: `${sub}@example.com`, name: sub, groups: [...groups] }) };
    },
    claims: { openid: ['sub'], email: ['email'], profile: ['name', 'groups'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** On the provider's login page: signs in as `login`, and allows Switchboard if the provider asks. */
export async function signInAtIdp(page: Page, idp: StatusPageIdp, login: string): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(idp.issuer));
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any password');
  await page.click('button[type=submit]');
  await page.waitForLoadState();
  if (page.url().startsWith(idp.issuer)) await page.click('button[type=submit]');
}
