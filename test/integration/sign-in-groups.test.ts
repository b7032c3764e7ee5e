// Sign-in mode carries the groups of the team's provider (Entra-like, test/support/sign-in-team.ts)
// into Switchboard's tokens, where policy rules and scopeGrants act on them: a person in the group a
// rule names has the tools, one outside it has none; a scope restricted to a group is granted to its
// members, and withheld from anyone else (the consent page says so, the token lacks it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithoutChromium } from '../support/browser.js';
import { jwtClaims } from '../support/sign-in-person.js';
import { ADA, BOB, echoText, startSignInTeam, type SignInGateway, type SignInTeam } from '../support/sign-in-team.js';

const scopesOf = (token: string | undefined) => String(jwtClaims(token).scope).split(' ');

describe.skipIf(skipWithoutChromium())("groups from the team's provider, under policy and scopeGrants", () => {
  let team: SignInTeam;
  let signIn: SignInGateway;

  beforeAll(async () => {
    team = await startSignInTeam();
    signIn = await team.startGateway(
      // `mcp` is required; the 401's challenge still names every scope a token may carry, so
      // clients ask for `deploy` too, which only people in `ops` are granted.
      { scopeGrants: { deploy: { groups: ['ops'] } } },
      { auth: { requiredScopes: ['mcp'] }, policy: { default: 'deny', rules: [{ when: { claims: { groups: 'eng' } }, allow: ['everything/*'] }] } },
    );
  }, 60_000);

  it('names every scope a token may carry in the challenge, not only the required one', async () => {
    const response = await fetch(signIn.gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(response.status).toBe(401);
    const scope = /scope="([^"]*)"/.exec(response.headers.get('www-authenticate') ?? '')?.[1]?.split(' ');
    expect(scope).toEqual(expect.arrayContaining(['mcp', 'deploy', 'switchboard:admin']));
  });

  afterAll(async () => {
    await team?.close();
  });

  it('a person in the group the rule names has the tools, and is granted the scope their group may have', async () => {
    const app = await team.clientApp();
    const { client, visit } = await team.signInWithSdk(signIn.gateway, app, { generation: 'v2', account: ADA, consent: 'allow' });
    try {
      expect(jwtClaims(app.provider.currentTokens?.access_token)).toMatchObject({ sub: ADA.oid, email: ADA.email, name: ADA.name, groups: ADA.groups });
      expect(scopesOf(app.provider.currentTokens?.access_token)).toEqual(expect.arrayContaining(['mcp', 'deploy']));
      expect(visit.consentText).toContain('deploy');
      expect(visit.consentText).not.toContain('Not granted');
      expect(await client.listToolNames()).toContain('everything__echo');
      expect(await echoText(client, 'as an engineer')).toContain('as an engineer');
    } finally {
      await client.close();
    }
  }, 90_000);

  it('a person outside it sees no tools, and is told the restricted scope is not granted', async () => {
    const app = await team.clientApp();
    const { client, visit } = await team.signInWithSdk(signIn.gateway, app, { generation: 'v2', account: BOB, consent: 'allow' });
    try {
      expect(jwtClaims(app.provider.currentTokens?.access_token)).toMatchObject({ sub: BOB.oid, groups: BOB.groups });
      expect(scopesOf(app.provider.currentTokens?.access_token)).toContain('mcp');
      expect(scopesOf(app.provider.currentTokens?.access_token)).not.toContain('deploy');
      expect(visit.consentText).toMatch(/Not granted[^]*deploy/);
      expect(await client.listToolNames()).toEqual([]);
      const call = await client.callTool('everything__echo', { message: 'as a salesman' }).catch((error: unknown) => ({ isError: true, content: String(error) }));
      expect(call.isError).toBe(true);
      expect(JSON.stringify(call.content)).not.toContain('as a salesman');
    } finally {
      await client.close();
    }
    // Signing in again with the same client: what was allowed is remembered, and the scope withheld
    // is not asked about again (it was once a redirect loop between the consent step and authorize).
    app.provider.invalidateCredentials('tokens');
    const again = await team.signInWithSdk(signIn.gateway, app, { generation: 'v2', account: BOB, consent: 'none' });
    await again.client.close();
    expect(again.visit.consentPagesShown).toBe(0);
    expect(scopesOf(app.provider.currentTokens?.access_token)).not.toContain('deploy');
  }, 90_000);
});
