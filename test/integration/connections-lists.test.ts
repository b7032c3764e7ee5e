// What a person who has not connected an account sees of such a server: its tools, as they were
// last listed by anyone, kept in the store for every replica, so that they can call one and be told
// how to connect. Here the listing is made on one gateway and seen on another (a replica started
// later, or the same deployment after a restart), sharing Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADA_UPSTREAM, connectInBrowser, textOf } from '../support/connect-account.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { skipWithoutChromium } from '../support/browser.js';
import { redisUrl } from '../support/redis.js';
import { ADA, BOB, startSignInTeam, type SignInTeam } from '../support/sign-in-team.js';
import { startTeamIdp, type TeamIdp } from '../support/team-idp.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

describe.skipIf(skipWithoutChromium())('the tools of a server people connect to, for someone who has not', () => {
  let team: SignInTeam;
  let upstreamIdp: TeamIdp;
  let guarded: HttpUpstream;

  beforeAll(async () => {
    team = await startSignInTeam();
    upstreamIdp = await startTeamIdp({ profile: 'open', accounts: [ADA_UPSTREAM] });
    guarded = await startGuardedServer({ jwks: { url: upstreamIdp.jwksUri, audience: 'resource', issuer: upstreamIdp.issuer } });
  }, 90_000);

  afterAll(async () => {
    await team?.close();
    await guarded?.stop();
    await upstreamIdp?.stop();
  });

  const rest = (): Omit<ConfigInput, 'server' | 'auth'> => ({
    sessions: { store: 'redis', redisUrl: redisUrl(), credentialKey: 'a-credential-key-for-the-connection-tests-0123' },
    mcpServers: { guarded: { url: guarded.url, isolation: 'session', credentials: { connection: { scopes: ['mcp', 'offline_access'] } } } },
  });

  it('are listed on another gateway from the listing the first one made, and a call there asks to connect', async () => {
    const first = await team.startGateway({}, rest());
    const ada = (await team.signInWithSdk(first.gateway, await team.clientApp(), { generation: 'v2', account: ADA, consent: 'allow' })).client;
    try {
      const asked = await ada.callTool('guarded__whoami', {});
      const link = /https?:\/\/\S+\/connections\/connect\/\S+/.exec(textOf(asked))?.[0];
      expect(link, textOf(asked)).toBeDefined();
      expect(await connectInBrowser(team.browser, link!, ADA, ADA_UPSTREAM)).toMatch(/is connected/);
      // Her first call as herself makes the gateway's first listing of the server.
      expect(await ada.listToolNames()).toContain('guarded__whoami');
    } finally {
      await ada.close();
    }

    const second = await team.startGateway({}, rest());
    const bob = (await team.signInWithSdk(second.gateway, await team.clientApp(), { generation: 'v2', account: BOB, consent: 'allow' })).client;
    try {
      expect(await bob.listToolNames()).toContain('guarded__whoami');
      const result = await bob.callTool('guarded__whoami', {});
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/not connected yet.*\/connections\/connect\//s);
    } finally {
      await bob.close();
    }
  }, 180_000);
});
