// Sign-in mode (auth.signIn) with real clients, the team's provider configured like Entra ID (no
// registration, `resource` refused: the starting point): the v1 and v2 SDK clients in 2025
// sessions, the v2 client pinned to 2026-07-28, and mcp-remote each start with nothing but the
// gateway's URL, register with Switchboard, the person signs in at the provider in Chromium and
// consents, and the client lists and calls a tool. Then what the tokens carry and what they allow:
// refresh keeping a 2025 session, mapped groups under a policy rule, scopes granted by group, and
// consent remembered (per person and client) or skipped for a trusted client.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { launchBrowser, skipWithoutChromium } from '../support/browser.js';
import { freePort } from '../support/free-port.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLoopbackCallback, type LoopbackCallback } from '../support/loopback-callback.js';
import { startMcpRemote } from '../support/mcp-remote.js';
import { scrapeMetrics } from '../support/metrics-scrape.js';
import { TestOAuthClientProvider } from '../support/oauth-client-provider.js';
import { AuthorizationRedirectError, connectWithSignIn, type SignedInClient } from '../support/sdk-sign-in.js';
import { jwtClaims, personSignsIn, type PersonSignInOptions, type PersonVisit } from '../support/sign-in-person.js';
import { startTeamIdp, type TeamIdp, type TeamIdpAccount } from '../support/team-idp.js';
import { everythingStdio } from '../support/upstreams.js';

const ADA: TeamIdpAccount = {
  sub: 'ada-sub',
  oid: '00000000-0000-0000-0000-00000000ada0',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  groups: ['eng', 'ops'],
  password: 'correct horse battery staple',
};
const BOB: TeamIdpAccount = {
  sub: 'bob-sub',
  oid: '00000000-0000-0000-0000-00000000b0b0',
  email: 'bob@example.com',
  name: 'Bob Builder',
  groups: ['sales'],
  password: 'another horse battery staple',
};
const credentialsOf = (account: TeamIdpAccount) => ({ username: account.email, password: account.password });
const IDP_SECRET = 'switchboard-secret-at-the-provider-0123456789';
const SIGN_IN_SECRET = 's'.repeat(48);

type AuthInput = NonNullable<ConfigInput['auth']>;
type SignInInput = NonNullable<AuthInput['signIn']>;

interface SignInGateway {
  readonly gateway: TestGateway;
  /** Switchboard's client ID at the team's provider. */
  readonly idpClientId: string;
}

describe.skipIf(skipWithoutChromium())('sign-in mode with real clients, the team provider configured like Entra ID', () => {
  let idp: TeamIdp;
  let browser: Browser;

  beforeAll(async () => {
    idp = await startTeamIdp({ profile: 'entra', accounts: [ADA, BOB] });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await idp?.stop();
  });

  /**
   * A gateway in sign-in mode, registered at the team's provider as Entra knows an app: one
   * confidential client whose one redirect URI is the gateway's broker callback (on its real port).
   */
  async function startSignInGateway(signIn: Partial<SignInInput>, rest: Omit<ConfigInput, 'server'> & { auth?: Partial<AuthInput> }): Promise<SignInGateway> {
    const port = await freePort();
    const idpClientId = `switchboard-${port}`;
    idp.addClient({ client_id: idpClientId, client_secret: IDP_SECRET, redirect_uris: [`http://127.0.0.1:${port}/oauth/callback`] });
    const gateway = await startGateway({
      mcpServers: { everything: everythingStdio() },
      ...rest,
      server: { port },
      auth: {
        ...rest.auth,
        signIn: {
          provider: { issuer: idp.issuer, clientId: idpClientId, clientSecret: IDP_SECRET, scopes: ['openid', 'email', 'profile'] },
          // Entra's `sub` differs per app; `oid` names the person everywhere.
          claims: { sub: 'oid' },
          secret: SIGN_IN_SECRET,
          ...signIn,
        },
      },
    });
    return { gateway, idpClientId };
  }

  /** A client application: its loopback callback and its OAuth state (registration, tokens), kept across connections. */
  interface ClientApp {
    readonly callback: LoopbackCallback;
    readonly provider: TestOAuthClientProvider;
  }
  const apps: ClientApp[] = [];

  async function clientApp(clientName?: string): Promise<ClientApp> {
    const callback = await startLoopbackCallback();
    const app = { callback, provider: new TestOAuthClientProvider({ redirectUrl: callback.redirectUrl, ...(clientName !== undefined && { clientName }) }) };
    apps.push(app);
    return app;
  }

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.callback.stop()));
  });

  /** An SDK client of `app` signing in, the person's part in the browser; what the browser saw comes back with it. */
  async function signInWithSdk(
    gateway: TestGateway,
    app: ClientApp,
    options: { generation: 'v1' | 'v2'; revision?: '2026-07-28'; account: TeamIdpAccount; consent: PersonSignInOptions['consent'] },
  ): Promise<{ client: SignedInClient; visit: PersonVisit }> {
    let visit: PersonVisit | undefined;
    const client = await connectWithSignIn({
      generation: options.generation,
      ...(options.revision !== undefined && { revision: options.revision }),
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

  const auditSteps = (gateway: TestGateway, step: string) => gateway.logs.filter((line) => line.audit === true && line.event === 'sign-in' && line.step === step);

  const echoText = async (client: SignedInClient, message: string) => JSON.stringify((await client.callTool('everything__echo', { message })).content);

  describe('each client, starting with nothing but the gateway URL', () => {
    let signInGateway: SignInGateway;

    beforeAll(async () => {
      signInGateway = await startSignInGateway({}, { auth: { requiredScopes: ['mcp'] } });
    }, 60_000);

    afterAll(async () => {
      await signInGateway?.gateway.close();
    });

    /** What Switchboard asked of the team's provider: never `resource` (Entra refuses it), always PKCE S256 and a nonce. */
    function expectProviderAskedProperly(before: number): void {
      const asked = idp.received.authorizationRequests.slice(before).filter((params) => params.client_id === signInGateway.idpClientId);
      expect(asked.length).toBeGreaterThan(0);
      for (const params of asked) {
        expect(params).not.toHaveProperty('resource');
        expect(params).toMatchObject({ code_challenge_method: 'S256', code_challenge: expect.stringMatching(/^[\w-]{43}$/), nonce: expect.stringMatching(/.{16,}/) });
      }
    }

    it.each([
      { label: 'the v1 SDK client (2025 session)', generation: 'v1', era: '2025' },
      { label: 'the v2 SDK client (2025 session)', generation: 'v2', era: '2025' },
      { label: 'the v2 SDK client pinned to 2026-07-28', generation: 'v2', revision: '2026-07-28', era: '2026' },
    ] as const)('$label registers, the person signs in and consents, and it lists and calls a tool', async (variant) => {
      const { gateway } = signInGateway;
      const before = idp.received.authorizationRequests.length;
      const clientName = `Test client ${variant.generation} ${variant.era}`;
      const callsInEra = async () => (await scrapeMetrics(gateway.url)).value('switchboard_rpc_requests_total', { method: 'tools/call', era: variant.era });
      const callsBefore = await callsInEra();
      const { provider, ...app } = await clientApp(clientName);
      const { client, visit } = await signInWithSdk(gateway, { provider, ...app }, {
        generation: variant.generation,
        ...('revision' in variant && { revision: variant.revision }),
        account: ADA,
        consent: 'allow',
      });
      try {
        expect(await client.listToolNames()).toContain('everything__echo');
        expect(await echoText(client, `hello from ${variant.label}`)).toContain(`hello from ${variant.label}`);
        // The call went through in the era the client speaks.
        expect(await callsInEra()).toBe(callsBefore + 1);
      } finally {
        await client.close();
      }
      // It registered with Switchboard (the provider has no registration), and the consent page named it and the scope.
      expect(provider.clientId).toEqual(expect.any(String));
      expect(auditSteps(gateway, 'client-registered')).toContainEqual(expect.objectContaining({ clientId: provider.clientId }));
      expect(visit.consentPagesShown).toBe(1);
      expect(visit.consentText).toContain(clientName);
      expect(visit.consentText).toContain('mcp');
      expect(visit.consentText).toContain(ADA.email);
      // Switchboard's token: its own issuer, the gateway as audience, the person by `oid`.
      expect(jwtClaims(provider.currentTokens?.access_token)).toMatchObject({ iss: new URL(gateway.url).origin, aud: gateway.url, sub: ADA.oid, scope: expect.stringContaining('mcp') });
      expectProviderAskedProperly(before);
    }, 90_000);

    it('mcp-remote registers, the person signs in and consents, and it lists and calls a tool over stdio', async () => {
      const { gateway } = signInGateway;
      const before = idp.received.authorizationRequests.length;
      const remote = await startMcpRemote({ serverUrl: gateway.url });
      let visit: PersonVisit;
      try {
        const authorizationUrl = await remote.authorizationUrl();
        // Switchboard is the authorization server it found, not the team's provider.
        expect(new URL(authorizationUrl).origin).toBe(new URL(gateway.url).origin);
        visit = await personSignsIn(browser, authorizationUrl, { credentials: credentialsOf(ADA), returnTo: remote.callbackUrl, consent: 'allow' });
        const client = await remote.connected;
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('everything__echo');
        const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'via mcp-remote' } });
        expect(JSON.stringify(result.content)).toContain('via mcp-remote');
      } catch (error) {
        throw new Error(`${String(error)}\nmcp-remote's log ended with:\n${remote.stderr().slice(-3_000)}`, { cause: error });
      } finally {
        await remote.close();
      }
      expect(visit.consentText).toContain('MCP CLI Proxy');
      expect(visit.consentText).toContain('mcp');
      expect(auditSteps(gateway, 'client-registered').length).toBeGreaterThan(0);
      expectProviderAskedProperly(before);
    }, 90_000);
  });

  describe('refresh keeps a 2025 session', () => {
    let signInGateway: SignInGateway;

    beforeAll(async () => {
      signInGateway = await startSignInGateway({ tokens: { accessTokenSeconds: 5 } }, { auth: { requiredScopes: ['mcp'], clockToleranceSeconds: 0 } });
    }, 60_000);

    afterAll(async () => {
      await signInGateway?.gateway.close();
    });

    it.each(['v1', 'v2'] as const)('the %s client refreshes its expired token and goes on in the same session', async (generation) => {
      const { gateway } = signInGateway;
      const app = await clientApp();
      const { provider } = app;
      const { client } = await signInWithSdk(gateway, app, { generation, account: ADA, consent: 'allow' });
      try {
        expect(await echoText(client, 'before expiry')).toContain('before expiry');
        const sessionId = client.sessionId;
        expect(sessionId).toEqual(expect.any(String));
        const first = provider.currentTokens;
        const { exp } = jwtClaims(first?.access_token) as { exp: number };
        const initializes = async () => (await scrapeMetrics(gateway.url)).value('switchboard_rpc_requests_total', { method: 'initialize' });
        const initializesBefore = await initializes();
        const refreshedBefore = auditSteps(gateway, 'token-refreshed').length;
        // Past the token's expiry (whole seconds, no clock tolerance at the gateway).
        await new Promise((resolve) => setTimeout(resolve, exp * 1000 + 1_100 - Date.now()));

        expect(await echoText(client, 'after expiry')).toContain('after expiry');
        expect(client.sessionId).toBe(sessionId);
        expect(await initializes()).toBe(initializesBefore);
        expect(auditSteps(gateway, 'token-refreshed').slice(refreshedBefore)).toEqual([expect.objectContaining({ sub: ADA.oid, clientId: provider.clientId })]);
        // A new access token, and the refresh token rotated.
        const second = provider.currentTokens;
        expect(second?.access_token).not.toBe(first?.access_token);
        expect(second?.refresh_token).toEqual(expect.any(String));
        expect(second?.refresh_token).not.toBe(first?.refresh_token);
      } finally {
        await client.close();
      }
    }, 90_000);
  });

  describe("groups from the team's provider, under policy and scopeGrants", () => {
    let signInGateway: SignInGateway;

    beforeAll(async () => {
      signInGateway = await startSignInGateway(
        // `deploy` only for people in `ops`; `mcp` for anyone.
        { scopes: ['mcp', 'deploy'], scopeGrants: { deploy: { groups: ['ops'] } } },
        { policy: { default: 'deny', rules: [{ when: { claims: { groups: 'eng' } }, allow: ['everything/*'] }] } },
      );
    }, 60_000);

    afterAll(async () => {
      await signInGateway?.gateway.close();
    });

    it('a person in the group the rule names has the tools, and is granted the scope their group may have', async () => {
      const app = await clientApp();
      const { provider } = app;
      const { client, visit } = await signInWithSdk(signInGateway.gateway, app, { generation: 'v2', account: ADA, consent: 'allow' });
      try {
        const claims = jwtClaims(provider.currentTokens?.access_token);
        expect(claims).toMatchObject({ sub: ADA.oid, email: ADA.email, name: ADA.name, groups: ADA.groups });
        expect(String(claims.scope).split(' ')).toEqual(expect.arrayContaining(['mcp', 'deploy']));
        expect(visit.consentText).toContain('deploy');
        expect(visit.consentText).not.toContain('Not granted');
        expect(await client.listToolNames()).toContain('everything__echo');
        expect(await echoText(client, 'as an engineer')).toContain('as an engineer');
      } finally {
        await client.close();
      }
    }, 90_000);

    it('a person outside it sees no tools, and is told the restricted scope is not granted', async () => {
      const app = await clientApp();
      const { provider } = app;
      const { client, visit } = await signInWithSdk(signInGateway.gateway, app, { generation: 'v2', account: BOB, consent: 'allow' });
      try {
        const claims = jwtClaims(provider.currentTokens?.access_token);
        expect(claims).toMatchObject({ sub: BOB.oid, groups: BOB.groups });
        expect(String(claims.scope).split(' ')).toContain('mcp');
        expect(String(claims.scope).split(' ')).not.toContain('deploy');
        expect(visit.consentText).toMatch(/Not granted[^]*deploy/);
        expect(await client.listToolNames()).toEqual([]);
        const call = await client.callTool('everything__echo', { message: 'as a salesman' }).catch((error: unknown) => ({ isError: true, content: String(error) }));
        expect(call.isError).toBe(true);
        expect(JSON.stringify(call.content)).not.toContain('as a salesman');
      } finally {
        await client.close();
      }
      // Signing in again with the same client: what was allowed is remembered, and the scope
      // withheld is not asked again (it was once a redirect loop between consent and authorize).
      app.provider.invalidateCredentials('tokens');
      const again = await signInWithSdk(signInGateway.gateway, app, { generation: 'v2', account: BOB, consent: 'none' });
      await again.client.close();
      expect(again.visit.consentPagesShown).toBe(0);
      expect(String(jwtClaims(provider.currentTokens?.access_token).scope).split(' ')).not.toContain('deploy');
    }, 90_000);
  });

  describe('consent, remembered per person and client, and skipped for a trusted client', () => {
    let signInGateway: SignInGateway;

    beforeAll(async () => {
      signInGateway = await startSignInGateway(
        {
          clients: [{ clientId: 'trusted-cli', name: 'The team CLI', redirectUris: ['http://127.0.0.1/callback'] }],
          trustedClients: ['trusted-cli'],
        },
        { auth: { requiredScopes: ['mcp'] } },
      );
    }, 60_000);

    afterAll(async () => {
      await signInGateway?.gateway.close();
    });

    it('the same client signing the same person in again (another browser) gets no consent page; another person does', async () => {
      const { gateway } = signInGateway;
      const app = await clientApp();
      const first = await signInWithSdk(gateway, app, { generation: 'v1', account: ADA, consent: 'allow' });
      await first.client.close();
      expect(first.visit.consentPagesShown).toBe(1);
      const clientId = app.provider.clientId;
      expect(clientId).toEqual(expect.any(String));

      // The client keeps its registration and drops its tokens, as after a sign-out.
      app.provider.invalidateCredentials('tokens');
      const automaticBefore = auditSteps(gateway, 'consent-automatic').length;
      const again = await signInWithSdk(gateway, app, { generation: 'v1', account: ADA, consent: 'none' });
      try {
        expect(app.provider.clientId).toBe(clientId);
        expect(again.visit.consentPagesShown).toBe(0);
        expect(await echoText(again.client, 'consent remembered')).toContain('consent remembered');
      } finally {
        await again.client.close();
      }
      expect(auditSteps(gateway, 'consent-automatic').slice(automaticBefore)).toEqual([expect.objectContaining({ sub: ADA.oid, clientId })]);

      // What Ada allowed is hers: Bob, with the same client, is asked.
      app.provider.invalidateCredentials('tokens');
      const bob = await signInWithSdk(gateway, app, { generation: 'v1', account: BOB, consent: 'allow' });
      await bob.client.close();
      expect(bob.visit.consentPagesShown).toBe(1);
    }, 120_000);

    it('a person who denies sends the client back with access_denied, and nothing is remembered', async () => {
      const { gateway } = signInGateway;
      const app = await clientApp();
      const refused = await signInWithSdk(gateway, app, { generation: 'v2', account: ADA, consent: 'deny' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AuthorizationRedirectError);
      expect((refused as AuthorizationRedirectError).params.get('error')).toBe('access_denied');
      expect(app.provider.currentTokens).toBeUndefined();
      expect(auditSteps(gateway, 'consent-denied')).toContainEqual(expect.objectContaining({ sub: ADA.oid, clientId: app.provider.clientId }));
      // Asked again next time.
      const again = await signInWithSdk(gateway, app, { generation: 'v2', account: ADA, consent: 'allow' });
      await again.client.close();
      expect(again.visit.consentPagesShown).toBe(1);
    }, 90_000);

    it('a trusted pre-registered client gets no consent page at all', async () => {
      const { gateway } = signInGateway;
      const app = await clientApp();
      // Configured, not registered: the client already knows its ID.
      app.provider.saveClientInformation({ client_id: 'trusted-cli', issuer: new URL(gateway.url).origin });
      const registeredBefore = auditSteps(gateway, 'client-registered').length;
      const { client, visit } = await signInWithSdk(gateway, app, { generation: 'v2', account: BOB, consent: 'none' });
      try {
        expect(visit.consentPagesShown).toBe(0);
        expect(await echoText(client, 'trusted')).toContain('trusted');
      } finally {
        await client.close();
      }
      expect(auditSteps(gateway, 'client-registered').length).toBe(registeredBefore);
      expect(auditSteps(gateway, 'consent-automatic')).toContainEqual(expect.objectContaining({ sub: BOB.oid, clientId: 'trusted-cli' }));
    }, 90_000);
  });
});
