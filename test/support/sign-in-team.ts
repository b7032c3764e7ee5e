// A team for sign-in tests: its identity provider configured like Entra ID (team-idp.ts, 'entra':
// no registration, `resource` refused) with two people, a browser, gateways in sign-in mode each
// registered at the provider as Entra knows an app (one confidential client, one redirect URI: the
// gateway's broker callback on its real port), and MCP client applications that sign in with the
// official SDKs while the person's part happens in the browser (sign-in-person.ts).
import type { Browser } from 'playwright-core';
import type { ConfigInput } from '../../src/config/schema.js';
import { launchBrowser } from './browser.js';
import { freePort } from './free-port.js';
import { startGateway, type TestGateway, type TestGatewayOptions } from './gateway.js';
import { startLoopbackCallback, type LoopbackCallback } from './loopback-callback.js';
import { TestOAuthClientProvider } from './oauth-client-provider.js';
import { connectWithSignIn, type SignedInClient, type SignInClientOptions } from './sdk-sign-in.js';
import { personSignsIn, type PersonSignInOptions, type PersonVisit } from './sign-in-person.js';
import { startTeamIdp, type TeamIdp, type TeamIdpAccount } from './team-idp.js';
import { everythingStdio } from './upstreams.js';

/** In `eng` (which policy rules in the tests name) and `ops` (which may be granted restricted scopes). */
export const ADA: TeamIdpAccount = {
  sub: 'ada-sub',
  oid: '00000000-0000-0000-0000-00000000ada0',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  groups: ['eng', 'ops'],
  password: 'correct horse battery staple',
};

/** In neither. */
export const BOB: TeamIdpAccount = {
  sub: 'bob-sub',
  oid: '00000000-0000-0000-0000-00000000b0b0',
  email: 'bob@example.com',
  name: 'Bob Builder',
  groups: ['sales'],
  password: 'another horse battery staple',
};

export const IDP_SECRET = 'switchboard-secret-at-the-provider-0123456789';
export const SIGN_IN_SECRET = 'a-sign-in-secret-for-the-tests-0123456789abcdef';

type AuthInput = NonNullable<ConfigInput['auth']>;
export type SignInInput = NonNullable<AuthInput['signIn']>;
/** The rest of a gateway's config: everything but `server`, and `auth` without `signIn`. */
export type GatewayRest = Omit<ConfigInput, 'server' | 'auth'> & { readonly auth?: Omit<AuthInput, 'signIn'> };

export interface SignInGateway {
  readonly gateway: TestGateway;
  /** Switchboard's client ID at the team's provider. */
  readonly idpClientId: string;
}

/** An MCP client application: its loopback callback and its OAuth state (registration, tokens), kept across connections. */
export interface ClientApp {
  readonly callback: LoopbackCallback;
  readonly provider: TestOAuthClientProvider;
}

export interface SdkSignInOptions {
  readonly generation: 'v1' | 'v2';
  readonly revision?: '2026-07-28';
  readonly account: TeamIdpAccount;
  readonly consent: PersonSignInOptions['consent'];
  /** v2 only: what the client declares, and its handlers (sdk-sign-in.ts). */
  readonly capabilities?: SignInClientOptions['capabilities'];
  readonly prepare?: SignInClientOptions['prepare'];
  readonly fetch?: SignInClientOptions['fetch'];
}

export interface SignInTeam {
  readonly idp: TeamIdp;
  readonly browser: Browser;
  /** A gateway in sign-in mode with the `everything` upstream (unless `rest` says otherwise); claims.sub is Entra's `oid`. */
  startGateway(signIn?: Partial<SignInInput>, rest?: GatewayRest, options?: TestGatewayOptions): Promise<SignInGateway>;
  clientApp(clientName?: string): Promise<ClientApp>;
  /** An SDK client of `app` connecting to `gateway`, the person signing in in the browser; what the browser saw comes back too. */
  signInWithSdk(gateway: TestGateway, app: ClientApp, options: SdkSignInOptions): Promise<{ client: SignedInClient; visit: PersonVisit }>;
  /** Stops everything it started. */
  close(): Promise<void>;
}

export const credentialsOf = (account: TeamIdpAccount) => ({ username: account.email, password: account.password });

export async function startSignInTeam(): Promise<SignInTeam> {
  const idp = await startTeamIdp({ profile: 'entra', accounts: [ADA, BOB] });
  const browser = await launchBrowser().catch(async (error: unknown) => {
    await idp.stop();
    throw error;
  });
  const gateways: TestGateway[] = [];
  const apps: ClientApp[] = [];

  return {
    idp,
    browser,
    async startGateway(signIn = {}, rest = {}, options = {}) {
      const port = await freePort();
      const idpClientId = `switchboard-${port}`;
      idp.addClient({ client_id: idpClientId, client_secret: IDP_SECRET, redirect_uris: [`http://127.0.0.1:${port}/oauth/callback`] });
      const gateway = await startGateway({
        mcpServers: { everything: everythingStdio() },
        ...rest,
        // The port the public URL names: the broker callback registered above, and what clients reach.
        server: { port },
        auth: {
          ...rest.auth,
          signIn: {
            provider: { issuer: idp.issuer, clientId: idpClientId, clientSecret: IDP_SECRET },
            // Entra's `sub` differs per app; `oid` names the person everywhere.
            claims: { sub: 'oid' },
            secret: SIGN_IN_SECRET,
            ...signIn,
          },
        },
      }, options);
      gateways.push(gateway);
      return { gateway, idpClientId };
    },
    async clientApp(clientName) {
      const app = await newClientApp(clientName);
      apps.push(app);
      return app;
    },
    signInWithSdk: (gateway, app, options) => sdkSignIn(browser, gateway, app, options),
    async close() {
      await Promise.allSettled([...gateways.map((gateway) => gateway.close()), ...apps.map((app) => app.callback.stop()), browser.close()]);
      await idp.stop();
    },
  };
}

/** An MCP client application with a loopback callback of its own (stop its callback when done). */
export async function newClientApp(clientName?: string): Promise<ClientApp> {
  const callback = await startLoopbackCallback();
  return { callback, provider: new TestOAuthClientProvider({ redirectUrl: callback.redirectUrl, ...(clientName !== undefined && { clientName }) }) };
}

/**
 * An SDK client of `app` connecting to `gateway`, the person signing in in a fresh browser context
 * at whatever authorization server the gateway names (Switchboard's in sign-in mode, the team's
 * provider in resource-server mode, where `consent` is 'none').
 */
export async function sdkSignIn(browser: Browser, gateway: TestGateway, app: ClientApp, options: SdkSignInOptions): Promise<{ client: SignedInClient; visit: PersonVisit }> {
  let visit: PersonVisit | undefined;
  const client = await connectWithSignIn({
    generation: options.generation,
    ...(options.revision !== undefined && { revision: options.revision }),
    ...(options.capabilities !== undefined && { capabilities: options.capabilities }),
    ...(options.prepare !== undefined && { prepare: options.prepare }),
    ...(options.fetch !== undefined && { fetch: options.fetch }),
    url: gateway.url,
    provider: app.provider,
    callback: app.callback,
    signIn: async (url) => {
      visit = await personSignsIn(browser, url.href, { credentials: credentialsOf(options.account), returnTo: app.callback.redirectUrl, consent: options.consent });
    },
  });
  if (visit === undefined) {
    await client.close();
    throw new Error('the client connected without a sign-in');
  }
  return { client, visit };
}

/** The gateway's sign-in audit lines of one step (`client-registered`, `token-refreshed`, ...). */
export function auditSteps(gateway: TestGateway, step: string): Record<string, unknown>[] {
  return gateway.logs.filter((line) => line.audit === true && line.event === 'sign-in' && line.step === step);
}

/** Calls `everything__echo`; its content as JSON text. */
export async function echoText(client: SignedInClient, message: string): Promise<string> {
  return JSON.stringify((await client.callTool('everything__echo', { message })).content);
}
