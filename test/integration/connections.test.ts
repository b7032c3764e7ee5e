// credentials.connection end to end (issue 43, first slice): a gateway in sign-in mode in front of an
// upstream that takes only tokens of its own authorization server (a second oidc-provider, with
// dynamic registration). Ada calls a tool of it before connecting: her client (no URL elicitation)
// gets a tool result with a connect link; she opens it in Chromium, is signed in to the gateway's
// pages, consents at the upstream's provider, and the next call reaches the upstream as her own
// account there. Bob is never served with Ada's connection, and cannot use her link.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADA_UPSTREAM, BOB_UPSTREAM, connectInBrowser, textOf } from '../support/connect-account.js';
import { signInAtTeamIdp, skipWithoutChromium } from '../support/browser.js';
import { ADA, BOB, credentialsOf, startSignInTeam, type SignInGateway, type SignInTeam } from '../support/sign-in-team.js';
import type { SignedInClient } from '../support/sdk-sign-in.js';
import { startTeamIdp, type TeamIdp } from '../support/team-idp.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

/** Ada's and Bob's own accounts at the upstream: other names than at the team's provider. */

describe.skipIf(skipWithoutChromium())('each person connects their own account on an upstream', () => {
  let team: SignInTeam;
  let upstreamIdp: TeamIdp;
  let guarded: HttpUpstream;
  let signIn: SignInGateway;
  let browser: Browser;

  beforeAll(async () => {
    team = await startSignInTeam();
    browser = team.browser;
    upstreamIdp = await startTeamIdp({ profile: 'open', accounts: [ADA_UPSTREAM, BOB_UPSTREAM] });
    guarded = await startGuardedServer({ jwks: { url: upstreamIdp.jwksUri, audience: 'resource', issuer: upstreamIdp.issuer } });
    signIn = await team.startGateway({}, { mcpServers: { guarded: { url: guarded.url, isolation: 'session', credentials: { connection: { scopes: ['mcp', 'offline_access'] } } } } });
  }, 90_000);

  afterAll(async () => {
    await team?.close();
    await guarded?.stop();
    await upstreamIdp?.stop();
  });

  async function signedInClient(account: typeof ADA): Promise<SignedInClient> {
    const app = await team.clientApp();
    const { client } = await team.signInWithSdk(signIn.gateway, app, { generation: 'v2', account, consent: 'allow' });
    return client;
  }

  it('asks Ada to connect with a link in the tool result, and then reaches the upstream as her', async () => {
    const ada = await signedInClient(ADA);
    try {
      const first = await ada.callTool('guarded__whoami', {});
      expect(first.isError).toBe(true);
      const link = /https?:\/\/\S+\/connections\/connect\/\S+/.exec(textOf(first))?.[0];
      expect(link, textOf(first)).toBeDefined();

      // Bob, signed in in his own browser, cannot use Ada's link.
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(link!);
      await signInAtTeamIdp(page, credentialsOf(BOB));
      await page.getByRole('heading', { name: 'Not connected' }).waitFor({ timeout: 20_000 });
      expect(await page.locator('main').innerText()).toMatch(/made for someone else/);
      await context.close();

      const shown = await connectInBrowser(browser, link!, ADA, ADA_UPSTREAM);
      expect(shown).toMatch(/Your account on guarded is connected/);
      const second = await ada.callTool('guarded__whoami', {});
      expect(second.isError, textOf(second)).not.toBe(true);
      expect(JSON.parse(textOf(second))).toMatchObject({ via: 'jwt', sub: 'ada-at-upstream', aud: `${new URL(guarded.url).origin}/mcp` });
    } finally {
      await ada.close();
    }
  }, 120_000);

  it("never serves Bob with Ada's connection: he is asked to connect his own", async () => {
    const bob = await signedInClient(BOB);
    try {
      const result = await bob.callTool('guarded__whoami', {});
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/not connected yet/);
    } finally {
      await bob.close();
    }
  }, 60_000);
});
