// credentials.connection keeps working while the upstream's access tokens are short (10 s): the
// gateway refreshes them before a call, with RFC 8707 `resource` on the refresh (checked at the
// upstream's provider), and the person notices nothing. Once the provider revokes the grant, the
// next call says the connection must be renewed, with a new connect link, rather than failing.
// No token, code or verifier the provider handed out or received appears in the gateway's logs.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithoutChromium } from '../support/browser.js';
import { ADA_UPSTREAM, connectInBrowser, textOf } from '../support/connect-account.js';
import type { SignedInClient } from '../support/sdk-sign-in.js';
import { ADA, startSignInTeam, type SignInGateway, type SignInTeam } from '../support/sign-in-team.js';
import { startTeamIdp, type TeamIdp } from '../support/team-idp.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

const TOKEN_SECONDS = 10;

describe.skipIf(skipWithoutChromium())('a connection whose access tokens live 10 s', () => {
  let team: SignInTeam;
  let upstreamIdp: TeamIdp;
  let guarded: HttpUpstream;
  let signIn: SignInGateway;
  let ada: SignedInClient;

  beforeAll(async () => {
    team = await startSignInTeam();
    upstreamIdp = await startTeamIdp({ profile: 'open', accounts: [ADA_UPSTREAM], accessTokenSeconds: TOKEN_SECONDS });
    guarded = await startGuardedServer({ jwks: { url: upstreamIdp.jwksUri, audience: 'resource', issuer: upstreamIdp.issuer } });
    signIn = await team.startGateway({}, { mcpServers: { guarded: { url: guarded.url, isolation: 'session', credentials: { connection: { scopes: ['mcp', 'offline_access'] } } } } });
    ({ client: ada } = await team.signInWithSdk(signIn.gateway, await team.clientApp(), { generation: 'v2', account: ADA, consent: 'allow' }));
  }, 90_000);

  afterAll(async () => {
    await ada?.close();
    await team?.close();
    await guarded?.stop();
    await upstreamIdp?.stop();
  });

  const refreshes = () => upstreamIdp.received.tokenRequests.filter((request) => request.grant_type === 'refresh_token');
  const linkIn = (text: string) => /https?:\/\/\S+\/connections\/connect\/\S+/.exec(text)?.[0];

  it('refreshes before a call once the token is about to lapse, with resource, and the call succeeds', async () => {
    const first = await ada.callTool('guarded__whoami', {});
    const link = linkIn(textOf(first));
    expect(link, textOf(first)).toBeDefined();
    expect(await connectInBrowser(team.browser, link!, ADA, ADA_UPSTREAM)).toMatch(/Your account on guarded is connected/);

    const connected = await ada.callTool('guarded__whoami', {});
    expect(JSON.parse(textOf(connected))).toMatchObject({ sub: 'ada-at-upstream' });
    // A fresh token is used as it is.
    expect(refreshes()).toEqual([]);

    await sleep((TOKEN_SECONDS + 1) * 1000);
    const later = await ada.callTool('guarded__whoami', {});
    expect(later.isError, textOf(later)).not.toBe(true);
    expect(JSON.parse(textOf(later))).toMatchObject({ sub: 'ada-at-upstream', aud: `${new URL(guarded.url).origin}/mcp` });
    expect(refreshes()).toHaveLength(1);
    expect(refreshes()[0]).toMatchObject({ resource: `${new URL(guarded.url).origin}/mcp` });

    // Right after, the refreshed token is used as it is: no second refresh.
    await ada.callTool('guarded__whoami', {});
    expect(refreshes()).toHaveLength(1);
  }, 120_000);

  it('turns a grant revoked at the provider into "connect again" with a new link', async () => {
    upstreamIdp.revokeAllGrants();
    await sleep((TOKEN_SECONDS + 1) * 1000);
    const refused = await ada.callTool('guarded__whoami', {});
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/connection to guarded has expired/);
    expect(linkIn(textOf(refused))).toBeDefined();
    const tried = refreshes().length;
    // Asked again: still to reconnect, and without another refresh at the provider.
    const again = await ada.callTool('guarded__whoami', {});
    expect(textOf(again)).toMatch(/connection to guarded has expired/);
    expect(refreshes()).toHaveLength(tried);
    // Reconnecting works again.
    expect(await connectInBrowser(team.browser, linkIn(textOf(again))!, ADA, ADA_UPSTREAM)).toMatch(/Your account on guarded is connected/);
    expect(JSON.parse(textOf(await ada.callTool('guarded__whoami', {})))).toMatchObject({ sub: 'ada-at-upstream' });
  }, 120_000);

  it('writes no token, code or verifier in any log line', () => {
    const logged = JSON.stringify(signIn.gateway.logs);
    const secrets = upstreamIdp.received.tokenRequests.flatMap((request) => [request.code, request.code_verifier, request.refresh_token]).filter((value): value is string => value !== undefined);
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    for (const secret of secrets) expect(logged).not.toContain(secret);
  });
});
