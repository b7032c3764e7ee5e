// A team in resource-server mode (auth.issuer: the team's provider issues the tokens the gateway
// checks), the variant of sign-in-team.ts for it: the provider in its 'open' profile (dynamic
// registration for MCP clients, resource indicators, JWT access tokens for the resource asked for)
// with Ada and Bob, a browser, and gateways whose pages sign browsers in at the provider
// (auth.browserSignIn) as one confidential client registered there with the pages' callbacks. MCP
// clients sign in with the official SDKs directly at the provider (no consent page of Switchboard's).
import type { Browser } from 'playwright-core';
import type { ConfigInput } from '../../src/config/schema.js';
import { launchBrowser } from './browser.js';
import { freePort } from './free-port.js';
import { startGateway, type TestGateway, type TestGatewayOptions } from './gateway.js';
import { ADA, BOB, IDP_SECRET, newClientApp, sdkSignIn, type ClientApp, type SdkSignInOptions } from './sign-in-team.js';
import type { SignedInClient } from './sdk-sign-in.js';
import { startTeamIdp, type TeamIdp } from './team-idp.js';

export const PAGES_SECRET = 'a-browser-sign-in-secret-for-the-tests-0123456789';
export const ADMIN_SCOPE = 'switchboard:admin';

type AuthInput = NonNullable<ConfigInput['auth']>;
export type BrowserSignInInput = NonNullable<AuthInput['browserSignIn']>;
/** The rest of a gateway's config: everything but `server` and `auth`. */
export type ResourceServerRest = Omit<ConfigInput, 'server' | 'auth'>;

export interface ResourceServerGateway {
  readonly gateway: TestGateway;
  /** The pages' client ID at the team's provider. */
  readonly pagesClientId: string;
}

export interface ResourceServerTeam {
  readonly idp: TeamIdp;
  readonly browser: Browser;
  /**
   * A gateway checking the provider's JWTs for its own URL (`requiredScopes: [mcp]`), its pages
   * signing browsers in at the provider; the status page on the MCP port (one origin, one callback).
   * `browserSignIn: false` leaves the pages without a sign-in.
   */
  startGateway(rest: ResourceServerRest, browserSignIn?: Partial<BrowserSignInInput> | false, options?: TestGatewayOptions): Promise<ResourceServerGateway>;
  /** An MCP client application (SDK, dynamic registration) signed in at the provider as `account`. */
  signedInClient(gateway: TestGateway, account: SdkSignInOptions['account'], options?: Partial<SdkSignInOptions>): Promise<SignedInClient>;
  close(): Promise<void>;
}

export async function startResourceServerTeam(): Promise<ResourceServerTeam> {
  // `mcp` for the gateway's tokens; the admin scope too, which the provider grants whoever asks
  // (the status page then tells people apart by the scope their token carries).
  const idp = await startTeamIdp({ profile: 'open', accounts: [ADA, BOB], resourceScopes: ['mcp', ADMIN_SCOPE] });
  const browser = await launchBrowser().catch(async (error: unknown) => {
    await idp.stop();
    throw error;
  });
  const gateways: TestGateway[] = [];
  const apps: ClientApp[] = [];

  return {
    idp,
    browser,
    async startGateway(rest, browserSignIn = {}, options = {}) {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const pagesClientId = `switchboard-pages-${port}`;
      idp.addClient({ client_id: pagesClientId, client_secret: IDP_SECRET, redirect_uris: [`${origin}/connections/signin/callback`, `${origin}/signin/callback`] });
      const gateway = await startGateway(
        {
          ...rest,
          server: { port },
          admin: { onServerPort: true },
          auth: {
            issuer: idp.issuer,
            jwksUri: idp.jwksUri,
            requiredScopes: ['mcp'],
            ...(browserSignIn !== false && {
              browserSignIn: {
                clientId: pagesClientId,
                clientSecret: IDP_SECRET,
                scopes: ['mcp'],
                // This provider picks the token's audience by RFC 8707 `resource` (Entra by the scope).
                resource: `${origin}/mcp`,
                secret: PAGES_SECRET,
                ...browserSignIn,
              },
            }),
          },
        },
        options,
      );
      gateways.push(gateway);
      return { gateway, pagesClientId };
    },
    async signedInClient(gateway, account, options = {}) {
      const app = await newClientApp();
      apps.push(app);
      const { client } = await sdkSignIn(browser, gateway, app, { generation: 'v2', consent: 'none', ...options, account });
      return client;
    },
    async close() {
      await Promise.allSettled([...gateways.map((gateway) => gateway.close()), ...apps.map((app) => app.callback.stop()), browser.close()]);
      await idp.stop();
    },
  };
}
