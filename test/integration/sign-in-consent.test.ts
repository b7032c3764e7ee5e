// Sign-in mode's consent page, as a person meets it with real clients (the team's provider
// Entra-like, test/support/sign-in-team.ts): what they allowed a client is remembered (per person
// and client, beyond one browser), a denial sends the client back with access_denied and is not
// remembered, and a client the config trusts gets no consent page at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithoutChromium } from '../support/browser.js';
import { AuthorizationRedirectError } from '../support/sdk-sign-in.js';
import { ADA, auditSteps, BOB, echoText, startSignInTeam, type SignInGateway, type SignInTeam } from '../support/sign-in-team.js';

describe.skipIf(skipWithoutChromium())('consent, remembered per person and client, and skipped for a trusted client', () => {
  let team: SignInTeam;
  let signIn: SignInGateway;

  beforeAll(async () => {
    team = await startSignInTeam();
    signIn = await team.startGateway(
      {
        clients: [{ clientId: 'trusted-cli', name: 'The team CLI', redirectUris: ['http://127.0.0.1/callback'] }],
        trustedClients: ['trusted-cli'],
      },
      { auth: { requiredScopes: ['mcp'] } },
    );
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  it('the same client signing the same person in again (another browser) gets no consent page; another person does', async () => {
    const { gateway } = signIn;
    const app = await team.clientApp();
    const first = await team.signInWithSdk(gateway, app, { generation: 'v1', account: ADA, consent: 'allow' });
    await first.client.close();
    expect(first.visit.consentPagesShown).toBe(1);
    const clientId = app.provider.clientId;
    expect(clientId).toEqual(expect.any(String));

    // The client keeps its registration and drops its tokens, as after a sign-out.
    app.provider.invalidateCredentials('tokens');
    const automaticBefore = auditSteps(gateway, 'consent-automatic').length;
    const again = await team.signInWithSdk(gateway, app, { generation: 'v1', account: ADA, consent: 'none' });
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
    const bob = await team.signInWithSdk(gateway, app, { generation: 'v1', account: BOB, consent: 'allow' });
    await bob.client.close();
    expect(bob.visit.consentPagesShown).toBe(1);
  }, 120_000);

  it('a person who denies sends the client back with access_denied, and nothing is remembered', async () => {
    const { gateway } = signIn;
    const app = await team.clientApp();
    const refused = await team.signInWithSdk(gateway, app, { generation: 'v2', account: ADA, consent: 'deny' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthorizationRedirectError);
    expect((refused as AuthorizationRedirectError).params.get('error')).toBe('access_denied');
    expect(app.provider.currentTokens).toBeUndefined();
    expect(auditSteps(gateway, 'consent-denied')).toContainEqual(expect.objectContaining({ sub: ADA.oid, clientId: app.provider.clientId }));
    // Asked again next time.
    const again = await team.signInWithSdk(gateway, app, { generation: 'v2', account: ADA, consent: 'allow' });
    await again.client.close();
    expect(again.visit.consentPagesShown).toBe(1);
  }, 90_000);

  it('a trusted pre-registered client gets no consent page at all', async () => {
    const { gateway } = signIn;
    const app = await team.clientApp();
    // Configured, not registered: the client already knows its ID (stamped with the issuer, as the v2 SDK does).
    app.provider.saveClientInformation({ client_id: 'trusted-cli', issuer: new URL(gateway.url).origin });
    const registeredBefore = auditSteps(gateway, 'client-registered').length;
    const { client, visit } = await team.signInWithSdk(gateway, app, { generation: 'v2', account: BOB, consent: 'none' });
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
