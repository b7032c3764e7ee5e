// Sign-in mode (auth.signIn) with real clients, the team's provider configured like Entra ID (no
// registration, `resource` refused: the starting point): the v1 and v2 SDK clients in 2025
// sessions, the v2 client pinned to 2026-07-28, and mcp-remote each start with nothing but the
// gateway's URL, register with Switchboard, the person signs in at the provider in Chromium and
// consents, and the client lists and calls a tool. And a 2025 session outliving its access token:
// the client refreshes, and the session goes on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithoutChromium } from '../support/browser.js';
import { startMcpRemote } from '../support/mcp-remote.js';
import { scrapeMetrics } from '../support/metrics-scrape.js';
import { jwtClaims, personSignsIn, type PersonVisit } from '../support/sign-in-person.js';
import { ADA, auditSteps, credentialsOf, echoText, startSignInTeam, type SignInGateway, type SignInTeam } from '../support/sign-in-team.js';

describe.skipIf(skipWithoutChromium())('sign-in mode with real clients, the team provider configured like Entra ID', () => {
  let team: SignInTeam;

  beforeAll(async () => {
    team = await startSignInTeam();
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  describe('each client, starting with nothing but the gateway URL', () => {
    let signIn: SignInGateway;

    beforeAll(async () => {
      signIn = await team.startGateway({}, { auth: { requiredScopes: ['mcp'] } });
    }, 60_000);

    /** What Switchboard asked of the team's provider: never `resource` (Entra refuses it), always PKCE S256 and a nonce. */
    function expectProviderAskedProperly(before: number): void {
      const asked = team.idp.received.authorizationRequests.slice(before).filter((params) => params.client_id === signIn.idpClientId);
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
      const { gateway } = signIn;
      const before = team.idp.received.authorizationRequests.length;
      const clientName = `Test client ${variant.generation} ${variant.era}`;
      const callsInEra = async () => (await scrapeMetrics(gateway.url)).value('switchboard_rpc_requests_total', { method: 'tools/call', era: variant.era });
      const callsBefore = await callsInEra();
      const app = await team.clientApp(clientName);
      const { client, visit } = await team.signInWithSdk(gateway, app, {
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
      // It registered with Switchboard (the provider has no registration), and the consent page named it, the person and the scope.
      const { clientId } = app.provider;
      expect(clientId).toEqual(expect.any(String));
      expect(auditSteps(gateway, 'client-registered')).toContainEqual(expect.objectContaining({ clientId }));
      expect(visit.consentPagesShown).toBe(1);
      expect(visit.consentText).toContain(clientName);
      expect(visit.consentText).toContain('mcp');
      expect(visit.consentText).toContain(ADA.email);
      // Switchboard's token: its own issuer, the gateway as audience, the person by `oid`.
      expect(jwtClaims(app.provider.currentTokens?.access_token)).toMatchObject({ iss: new URL(gateway.url).origin, aud: gateway.url, sub: ADA.oid, client_id: clientId, scope: expect.stringContaining('mcp') });
      expectProviderAskedProperly(before);
    }, 90_000);

    it('mcp-remote registers, the person signs in and consents, and it lists and calls a tool over stdio', async () => {
      const { gateway } = signIn;
      const before = team.idp.received.authorizationRequests.length;
      const registeredBefore = auditSteps(gateway, 'client-registered').length;
      const remote = await startMcpRemote({ serverUrl: gateway.url });
      let visit: PersonVisit;
      try {
        const authorizationUrl = await remote.authorizationUrl();
        // Switchboard is the authorization server it found, not the team's provider.
        expect(new URL(authorizationUrl).origin).toBe(new URL(gateway.url).origin);
        visit = await personSignsIn(team.browser, authorizationUrl, { credentials: credentialsOf(ADA), returnTo: remote.callbackUrl, consent: 'allow' });
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
      expect(auditSteps(gateway, 'client-registered').length).toBe(registeredBefore + 1);
      expectProviderAskedProperly(before);
    }, 90_000);
  });

  describe('refresh keeps a 2025 session', () => {
    let signIn: SignInGateway;

    beforeAll(async () => {
      signIn = await team.startGateway({ tokens: { accessTokenSeconds: 5 } }, { auth: { requiredScopes: ['mcp'], clockToleranceSeconds: 0 } });
    }, 60_000);

    it.each(['v1', 'v2'] as const)('the %s client refreshes its expired token and goes on in the same session', async (generation) => {
      const { gateway } = signIn;
      const app = await team.clientApp();
      const { client } = await team.signInWithSdk(gateway, app, { generation, account: ADA, consent: 'allow' });
      try {
        expect(await echoText(client, 'before expiry')).toContain('before expiry');
        const sessionId = client.sessionId;
        expect(sessionId).toEqual(expect.any(String));
        const first = app.provider.currentTokens;
        const { exp } = jwtClaims(first?.access_token) as { exp: number };
        const initializes = async () => (await scrapeMetrics(gateway.url)).value('switchboard_rpc_requests_total', { method: 'initialize' });
        const initializesBefore = await initializes();
        const refreshedBefore = auditSteps(gateway, 'token-refreshed').length;
        // Past the token's expiry (whole seconds, no clock tolerance at the gateway).
        await new Promise((resolve) => setTimeout(resolve, exp * 1000 + 1_100 - Date.now()));

        expect(await echoText(client, 'after expiry')).toContain('after expiry');
        expect(client.sessionId).toBe(sessionId);
        expect(await initializes()).toBe(initializesBefore);
        expect(auditSteps(gateway, 'token-refreshed').slice(refreshedBefore)).toEqual([expect.objectContaining({ sub: ADA.oid, clientId: app.provider.clientId })]);
        // A new access token, and the refresh token rotated.
        const second = app.provider.currentTokens;
        expect(second?.access_token).not.toBe(first?.access_token);
        expect(second?.refresh_token).toEqual(expect.any(String));
        expect(second?.refresh_token).not.toBe(first?.refresh_token);
      } finally {
        await client.close();
      }
    }, 90_000);
  });
});
