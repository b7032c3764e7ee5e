// notifications/elicitation/complete across replicas (issue 43): Ada's 2025 session and its stream
// are on replica A; she opens the connect link and the upstream sends her back to replica B (one
// public address in front of both, sharing Redis). The notification still reaches her session, on
// A, and her retry succeeds as her.
import { UrlElicitationRequiredError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { skipWithoutChromium } from '../support/browser.js';
import { ADA_UPSTREAM, connectInBrowser } from '../support/connect-account.js';
import { freePort } from '../support/free-port.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { redisUrl } from '../support/redis.js';
import { ADA, IDP_SECRET, SIGN_IN_SECRET, startSignInTeam, type SignInTeam } from '../support/sign-in-team.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startTeamIdp, type TeamIdp } from '../support/team-idp.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

describe.skipIf(skipWithoutChromium())('the completion of a connection reaches the session on another replica', () => {
  let team: SignInTeam;
  let upstreamIdp: TeamIdp;
  let guarded: HttpUpstream;
  let front: TcpProxy;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    team = await startSignInTeam();
    upstreamIdp = await startTeamIdp({ profile: 'open', accounts: [ADA_UPSTREAM] });
    guarded = await startGuardedServer({ jwks: { url: upstreamIdp.jwksUri, audience: 'resource', issuer: upstreamIdp.issuer } });
    // One public address for both replicas; which one it reaches is the test's to say.
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
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    await front?.close();
    await team?.close();
    await guarded?.stop();
    await upstreamIdp?.stop();
  });

  it('tells her session on A when she connected through B, and her retry reaches the upstream as her', async () => {
    const completed: string[] = [];
    const endpoint = new URL(new URL(a.url).pathname, front.url).href;
    const { client } = await team.signInWithSdk({ ...a, url: endpoint }, await team.clientApp(), {
      generation: 'v2',
      account: ADA,
      consent: 'allow',
      capabilities: { elicitation: { url: {} } },
      prepare: (sdk) => sdk.setNotificationHandler('notifications/elicitation/complete', (notification) => void completed.push(notification.params.elicitationId)),
    });
    try {
      const refused: unknown = await client.sdk!.callTool({ name: 'guarded__whoami', arguments: {} }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UrlElicitationRequiredError);
      const [elicitation] = (refused as UrlElicitationRequiredError).elicitations;

      // From now on new connections reach B: the browser, and the upstream's callback. Ada's
      // stream stays open on A.
      front.retarget(b.url);
      expect(await connectInBrowser(team.browser, elicitation!.url, ADA, ADA_UPSTREAM)).toMatch(/Your account on guarded is connected/);
      // B signed her browser in: the connection was made there.
      expect(b.logs.some((line) => line.event === 'sign-in' && line.step === 'signed-in')).toBe(true);
      await vi.waitFor(() => expect(completed).toEqual([elicitation!.elicitationId]), { timeout: 10_000, interval: 100 });
      const retried = await client.sdk!.callTool({ name: 'guarded__whoami', arguments: {} });
      expect(JSON.parse(((retried.content ?? []) as { text: string }[])[0]!.text)).toMatchObject({ sub: 'ada-at-upstream' });
    } finally {
      await client.close();
    }
  }, 150_000);
});
