// The person's Connections page (issue 43), end to end: a gateway in sign-in mode in front of an
// upstream that takes only tokens of its own authorization server (a second oidc-provider). Ada
// opens /connections in Chromium, signs in, connects from the page, sees her connection (scopes,
// when connected, last used), and disconnects it: the tokens are revoked at the provider, and her
// next call is asked to connect again. Bob's page never shows or touches Ada's connection, and a
// forged disconnect (another origin, a token made for someone else, none) changes nothing. A second
// server's provider issues 10 s tokens (refreshed once two thirds of their life is gone) and then forgets every grant: Ada's
// page says she must reconnect, and Reconnect brings her back.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADA_UPSTREAM, textOf } from '../support/connect-account.js';
import { signInAtTeamIdp, skipWithoutChromium } from '../support/browser.js';
import { ADA, BOB, credentialsOf, startSignInTeam, type SignInGateway, type SignInTeam } from '../support/sign-in-team.js';
import type { SignedInClient } from '../support/sdk-sign-in.js';
import { startTeamIdp, type TeamIdp } from '../support/team-idp.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

describe.skipIf(skipWithoutChromium())('the Connections page', () => {
  let team: SignInTeam;
  let upstreamIdp: TeamIdp;
  let guarded: HttpUpstream;
  let shortIdp: TeamIdp;
  let short: HttpUpstream;
  let signIn: SignInGateway;
  let origin: string;

  beforeAll(async () => {
    team = await startSignInTeam();
    upstreamIdp = await startTeamIdp({ profile: 'open', accounts: [ADA_UPSTREAM] });
    guarded = await startGuardedServer({ jwks: { url: upstreamIdp.jwksUri, audience: 'resource', issuer: upstreamIdp.issuer } });
    shortIdp = await startTeamIdp({ profile: 'open', accounts: [ADA_UPSTREAM], accessTokenSeconds: 10 });
    short = await startGuardedServer({ jwks: { url: shortIdp.jwksUri, audience: 'resource', issuer: shortIdp.issuer } });
    // Ada (group ops) is an operator too: the status page counts connections.
    signIn = await team.startGateway({ scopeGrants: { 'switchboard:admin': { groups: ['ops'] } } }, {
      mcpServers: {
        guarded: { url: guarded.url, isolation: 'session', credentials: { connection: { scopes: ['mcp', 'offline_access'] } } },
        short: { url: short.url, isolation: 'session', credentials: { connection: { scopes: ['mcp', 'offline_access'] } } },
      },
    });
    origin = new URL(signIn.gateway.url).origin;
  }, 90_000);

  afterAll(async () => {
    await team?.close();
    await guarded?.stop();
    await upstreamIdp?.stop();
    await short?.stop();
    await shortIdp?.stop();
  });

  async function signedInClient(account: typeof ADA): Promise<SignedInClient> {
    const app = await team.clientApp();
    const { client } = await team.signInWithSdk(signIn.gateway, app, { generation: 'v2', account, consent: 'allow' });
    return client;
  }

  /** A call of a new session (its upstream connection resolves the person's credential afresh). */
  async function callAs(account: typeof ADA, server = 'guarded'): Promise<{ isError?: boolean; text: string }> {
    const client = await signedInClient(account);
    try {
      const result = await client.callTool(`${server}__whoami`, {});
      return { ...(result.isError !== undefined && { isError: Boolean(result.isError) }), text: textOf(result) };
    } finally {
      await client.close();
    }
  }

  /** The person's page, signed in at the gateway in this browser context. */
  async function openPage(context: BrowserContext, account: typeof ADA): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${origin}/connections`);
    await signInAtTeamIdp(page, credentialsOf(account));
    await page.getByRole('heading', { name: 'Your connections' }).waitFor({ timeout: 20_000 });
    return page;
  }

  /** The status page's connection counts for a server, as an operator sees them. */
  async function statusCounts(page: Page, server = 'guarded'): Promise<{ connected: string; needsReconnect: string }> {
    await page.goto(signIn.gateway.adminUrl!);
    await signInAtTeamIdp(page, credentialsOf(ADA));
    const row = page.locator(`#connections [data-connections="${server}"]`);
    await row.waitFor({ timeout: 20_000 });
    return { connected: await row.locator('[data-field="connected"]').innerText(), needsReconnect: await row.locator('[data-field="needs-reconnect"]').innerText() };
  }

  const stateOf = (page: Page, server = 'guarded') => page.locator(`[data-server="${server}"] [data-field="state"]`).innerText();

  it('lists, connects and disconnects; Bob and forged posts never touch Ada\'s connection', async () => {
    const ada = await team.browser.newContext();
    const bob = await team.browser.newContext();
    try {
      // Not signed in: the page sends the browser to the person pages' sign-in first.
      const page = await openPage(ada, ADA);
      expect(page.url()).toBe(`${origin}/connections`);
      expect(await page.locator('main').innerText()).toMatch(/Signed in as ada@example\.com/);
      expect(await stateOf(page)).toBe('Not connected');

      // Connect from the page: the upstream's own sign-in, then back on the gateway.
      await page.getByRole('link', { name: 'Connect guarded' }).click();
      await page.getByLabel('Username').waitFor({ timeout: 20_000 });
      await signInAtTeamIdp(page, credentialsOf(ADA_UPSTREAM));
      await page.getByRole('heading', { name: 'Your account on guarded is connected' }).waitFor({ timeout: 20_000 });
      await page.getByRole('link', { name: 'all your connections' }).click();
      await page.getByRole('heading', { name: 'Your connections' }).waitFor();
      expect(await stateOf(page)).toBe('Connected');
      expect(await page.locator('[data-server="guarded"] [data-field="scopes"]').innerText()).toMatch(/\bmcp\b/);
      expect(await page.locator('[data-server="guarded"] [data-field="connected-at"] time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(await page.locator('[data-server="guarded"] [data-field="last-used"]').innerText()).toBe('not yet');

      // A call uses it, as Ada's account at the upstream; the page says when.
      const used = await callAs(ADA);
      expect(used.isError, used.text).not.toBe(true);
      expect(JSON.parse(used.text)).toMatchObject({ sub: 'ada-at-upstream' });
      await page.reload();
      expect(await page.locator('[data-server="guarded"] [data-field="last-used"] time').count()).toBe(1);

      // The operators' status page counts it (and shows nobody's token).
      const status = await ada.newPage();
      expect(await statusCounts(status)).toEqual({ connected: '1', needsReconnect: '0' });

      // Bob's page shows his own state, not Ada's, and offers no disconnect.
      const bobPage = await openPage(bob, BOB);
      expect(await stateOf(bobPage)).toBe('Not connected');
      expect(await bobPage.getByRole('button', { name: 'Disconnect guarded' }).count()).toBe(0);

      // Forgeries: Ada's own form token posted by Bob; Ada's cookie with another Origin, with no
      // proof of origin, with a wrong token, with none. Each is refused and changes nothing.
      const adaToken = await page.locator('form[action$="/disconnect"] input[name="form_token"]').getAttribute('value');
      expect(adaToken).toBeTruthy();
      const disconnectUrl = `${origin}/connections/servers/guarded/disconnect`;
      const forgeries: { context: BrowserContext; headers: Record<string, string>; token: string }[] = [
        { context: bob, headers: { origin }, token: adaToken! },
        { context: ada, headers: { origin: 'http://attacker.example' }, token: adaToken! },
        { context: ada, headers: { 'sec-fetch-site': 'cross-site' }, token: adaToken! },
        { context: ada, headers: {}, token: adaToken! },
        { context: ada, headers: { origin }, token: `${adaToken!.slice(0, -2)}xx` },
        { context: ada, headers: { origin }, token: '' },
      ];
      for (const { context, headers, token } of forgeries) {
        const response = await context.request.post(disconnectUrl, { headers, form: { form_token: token }, maxRedirects: 0 });
        expect(response.status(), JSON.stringify(headers)).toBe(403);
        expect(await response.text()).toMatch(/Nothing was changed/);
      }
      await page.reload();
      expect(await stateOf(page)).toBe('Connected');
      expect(upstreamIdp.received.revocations).toHaveLength(0);

      // Disconnect from the page: revoked at the provider, and the next call asks again.
      await page.getByRole('button', { name: 'Disconnect guarded' }).click();
      await page.getByRole('status').waitFor();
      expect(await page.getByRole('status').innerText()).toBe('Your account on guarded is disconnected.');
      expect(await stateOf(page)).toBe('Not connected');
      expect(await page.getByRole('link', { name: 'Connect guarded' }).count()).toBe(1);
      expect(upstreamIdp.received.revocations.length).toBeGreaterThanOrEqual(1);
      const revokedRefresh = upstreamIdp.received.revocations[0]!.token!;
      // The refresh token the gateway held no longer works at the provider, for the gateway's own client.
      const client = upstreamIdp.received.registeredClients.at(-1)!;
      const discovery = (await (await fetch(upstreamIdp.discoveryUrl)).json()) as { token_endpoint: string };
      const refused = await fetch(discovery.token_endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(client.client_secret !== undefined && { authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}` }),
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: revokedRefresh, ...(client.client_secret === undefined && { client_id: client.client_id }) }),
      });
      expect(refused.status).toBe(400);
      const refusal = (await refused.json()) as { error: string; error_description?: string };
      expect(refusal.error, refusal.error_description).toBe('invalid_grant');

      expect(await statusCounts(status)).toEqual({ connected: '0', needsReconnect: '0' });
      expect(await status.content()).not.toContain(revokedRefresh);

      const after = await callAs(ADA);
      expect(after.isError).toBe(true);
      expect(after.text).toMatch(/https?:\/\/\S+\/connections\/connect\/\S+/);

      // The audit trail and the metrics say what happened, and no token is in the log.
      const lines = signIn.gateway.logs.filter((line) => line.event === 'connection' && line.server === 'guarded');
      expect(lines.map((line) => line.step)).toEqual(['connected', 'disconnected']);
      expect(lines[1]).toMatchObject({ server: 'guarded', sub: lines[0]!.sub, revoked: true });
      expect(lines[0]!.sub).toEqual(expect.any(String));
      expect(JSON.stringify(signIn.gateway.logs)).not.toContain(revokedRefresh);
      const metrics = await (await fetch(`${origin}/metrics`)).text();
      expect(metrics).toMatch(/switchboard_connection_events_total\{server="guarded",outcome="connected"\} 1/);
      expect(metrics).toMatch(/switchboard_connection_events_total\{server="guarded",outcome="disconnected"\} 1/);
    } finally {
      await ada.close();
      await bob.close();
    }
  }, 180_000);

  it('says when a connection needs reconnecting, and Reconnect renews it', async () => {
    const ada = await team.browser.newContext();
    try {
      const page = await openPage(ada, ADA);
      expect(await stateOf(page, 'short')).toBe('Not connected');
      await page.getByRole('link', { name: 'Connect short' }).click();
      await page.getByLabel('Username').waitFor({ timeout: 20_000 });
      await signInAtTeamIdp(page, credentialsOf(ADA_UPSTREAM));
      await page.getByRole('heading', { name: 'Your account on short is connected' }).waitFor({ timeout: 20_000 });

      // 10 s tokens: due for refresh after two thirds of their life, then a call refreshes first, unnoticed.
      await sleep(7_500);
      const refreshed = await callAs(ADA, 'short');
      expect(refreshed.isError, refreshed.text).not.toBe(true);
      expect(shortIdp.received.tokenRequests.filter((request) => request.grant_type === 'refresh_token')).not.toHaveLength(0);

      // The provider forgets every grant: the next refresh is refused, and Ada is asked again.
      shortIdp.revokeAllGrants();
      await sleep(7_500);
      const asked = await callAs(ADA, 'short');
      expect(asked.isError).toBe(true);
      expect(asked.text).toMatch(/\/connections\/connect\//);
      await page.goto(`${origin}/connections`);
      expect(await stateOf(page, 'short')).toBe('Needs reconnecting');
      const status = await ada.newPage();
      expect(await statusCounts(status, 'short')).toEqual({ connected: '0', needsReconnect: '1' });

      await page.getByRole('link', { name: 'Reconnect short' }).click();
      await page.getByLabel('Username').waitFor({ timeout: 20_000 });
      await signInAtTeamIdp(page, credentialsOf(ADA_UPSTREAM));
      await page.getByRole('heading', { name: 'Your account on short is connected' }).waitFor({ timeout: 20_000 });
      await page.goto(`${origin}/connections`);
      expect(await stateOf(page, 'short')).toBe('Connected');
      const again = await callAs(ADA, 'short');
      expect(again.isError, again.text).not.toBe(true);
      expect(JSON.parse(again.text)).toMatchObject({ sub: 'ada-at-upstream' });

      const steps = signIn.gateway.logs.filter((line) => line.event === 'connection' && line.server === 'short').map((line) => [line.step, line.reason]);
      expect(steps).toEqual([['connected', undefined], ['needs-reconnect', 'invalid_grant'], ['connected', undefined]]);
      const metrics = await (await fetch(`${origin}/metrics`)).text();
      expect(metrics).toMatch(/switchboard_connection_events_total\{server="short",outcome="refreshed"\} [1-9]/);
      expect(metrics).toMatch(/switchboard_connection_events_total\{server="short",outcome="needs-reconnect"\} 1/);
    } finally {
      await ada.close();
    }
  }, 180_000);
});
