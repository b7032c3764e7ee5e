// credentials.connection on two replicas sharing Redis behind one public address (issue 43): Ada
// connects through replica B and calls through A; once her 10 s access token is due, calls of hers
// on both replicas at once make exactly one refresh at the upstream's provider (the lock in the
// store), each answered as her. Her two clients are pinned to one replica each. When she disconnects
// on B's Connections page, the sessions on both replicas, which hold her token, ask her again.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { signInAtTeamIdp, skipWithoutChromium } from '../support/browser.js';
import { ADA_UPSTREAM, connectInBrowser, textOf } from '../support/connect-account.js';
import { freePort } from '../support/free-port.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { pinnedFetch } from '../support/pinned-fetch.js';
import { redisUrl } from '../support/redis.js';
import type { SignedInClient } from '../support/sdk-sign-in.js';
import { ADA, credentialsOf, IDP_SECRET, SIGN_IN_SECRET, startSignInTeam, type SignInTeam } from '../support/sign-in-team.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startTeamIdp, type TeamIdp } from '../support/team-idp.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

const TOKEN_SECONDS = 10;

describe.skipIf(skipWithoutChromium())('connections across replicas', () => {
  let team: SignInTeam;
  let upstreamIdp: TeamIdp;
  let guarded: HttpUpstream;
  let front: TcpProxy;
  let a: TestGateway;
  let b: TestGateway;
  let onA: SignedInClient;
  let onB: SignedInClient;

  beforeAll(async () => {
    team = await startSignInTeam();
    upstreamIdp = await startTeamIdp({ profile: 'open', accounts: [ADA_UPSTREAM], accessTokenSeconds: TOKEN_SECONDS });
    guarded = await startGuardedServer({ jwks: { url: upstreamIdp.jwksUri, audience: 'resource', issuer: upstreamIdp.issuer } });
    front = await startTcpProxy(`http://127.0.0.1:${await freePort()}/`);
    const publicUrl = front.url.replace(/\/$/, '');
    const idpClientId = `switchboard-replicas-${new URL(publicUrl).port}`;
    team.idp.addClient({ client_id: idpClientId, client_secret: IDP_SECRET, redirect_uris: [`${publicUrl}/oauth/callback`] });
    const config = (): ConfigInput => ({
      server: { publicUrl },
      auth: { signIn: { provider: { issuer: team.idp.issuer, clientId: idpClientId, clientSecret: IDP_SECRET }, claims: { sub: 'oid' }, secret: SIGN_IN_SECRET } },
      sessions: { store: 'redis', redisUrl: redisUrl(), credentialKey: 'a-credential-key-for-the-connection-tests-0123' },
      mcpServers: { guarded: { url: guarded.url, isolation: 'session', credentials: { connection: { scopes: ['mcp', 'offline_access'] } } } },
    });
    [a, b] = await Promise.all([startGateway(config()), startGateway(config())]);
    front.retarget(a.url);
    const endpoint = new URL(new URL(a.url).pathname, front.url).href;
    const signInOn = async (replica: TestGateway) =>
      (await team.signInWithSdk({ ...replica, url: endpoint }, await team.clientApp(), { generation: 'v2', account: ADA, consent: 'allow', fetch: pinnedFetch(replica.url) })).client;
    onA = await signInOn(a);
    onB = await signInOn(b);
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([onA?.close(), onB?.close()]);
    await Promise.allSettled([a?.close(), b?.close()]);
    await front?.close();
    await team?.close();
    await guarded?.stop();
    await upstreamIdp?.stop();
  });

  const callsOn = (replica: TestGateway) => replica.logs.filter((line) => line.audit === true && line.method === 'tools/call' && line.server === 'guarded' && line.outcome === 'ok').length;
  const refreshes = () => upstreamIdp.received.tokenRequests.filter((request) => request.grant_type === 'refresh_token');

  it('connects through B and calls through A as her', async () => {
    const asked = await onA.callTool('guarded__whoami', {});
    const link = /https?:\/\/\S+\/connections\/connect\/\S+/.exec(textOf(asked))?.[0];
    expect(link, textOf(asked)).toBeDefined();
    front.retarget(b.url);
    expect(await connectInBrowser(team.browser, link!, ADA, ADA_UPSTREAM)).toMatch(/Your account on guarded is connected/);
    // B completed it: its callback exchanged the code.
    expect(b.logs.some((line) => line.event === 'sign-in' && line.step === 'signed-in')).toBe(true);
    expect(JSON.parse(textOf(await onA.callTool('guarded__whoami', {})))).toMatchObject({ sub: 'ada-at-upstream' });
    expect(JSON.parse(textOf(await onB.callTool('guarded__whoami', {})))).toMatchObject({ sub: 'ada-at-upstream' });
  }, 120_000);

  it('refreshes once for calls on both replicas at once after expiry', async () => {
    expect(refreshes()).toEqual([]);
    await sleep((TOKEN_SECONDS + 1) * 1000);
    const before = [callsOn(a), callsOn(b)];
    const results = await Promise.all([onA, onB, onA, onB, onA, onB].map((client) => client.callTool('guarded__whoami', {})));
    for (const result of results) {
      expect(result.isError, textOf(result)).not.toBe(true);
      expect(JSON.parse(textOf(result))).toMatchObject({ sub: 'ada-at-upstream' });
    }
    // Each replica answered its three (its audit lines), so the one refresh was shared across them.
    expect([callsOn(a) - before[0]!, callsOn(b) - before[1]!]).toEqual([3, 3]);
    expect(refreshes()).toHaveLength(1);
    expect(refreshes()[0]).toMatchObject({ resource: `${new URL(guarded.url).origin}/mcp` });
  }, 60_000);

  it('asks again on both replicas right after she disconnects on B', async () => {
    const context = await team.browser.newContext();
    try {
      front.retarget(b.url);
      const page = await context.newPage();
      await page.goto(new URL('/connections', front.url).href);
      await signInAtTeamIdp(page, credentialsOf(ADA));
      await page.getByRole('button', { name: 'Disconnect guarded' }).click();
      await page.getByRole('status').waitFor();
    } finally {
      await context.close();
    }
    // B noted it before its page answered; A hears it over the bus (Redis pub/sub), within moments.
    const onBAfter = await onB.callTool('guarded__whoami', {});
    expect(onBAfter.isError, textOf(onBAfter)).toBe(true);
    expect(textOf(onBAfter)).toMatch(/\/connections\/connect\//);
    await expect.poll(async () => textOf(await onA.callTool('guarded__whoami', {})), { timeout: 5_000, interval: 200 }).toMatch(/\/connections\/connect\//);
  }, 60_000);
});
