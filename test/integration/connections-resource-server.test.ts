// credentials.connection in resource-server mode (auth.issuer: the team's provider issues the MCP
// clients' tokens), with auth.browserSignIn: the gateway's pages sign the browser in at the team's
// provider (code + PKCE + state + nonce, one confidential client there) and check the access token
// it gets with the same verifier as bearer tokens, so the browser is the person their MCP client
// is. Ada's client holds a provider JWT, calls a tool of an upstream with its own authorization
// server, gets a connect link, opens it in Chromium, signs in at the team's provider, consents at
// the upstream's, and the retried call reaches the upstream as her account there. Bob's browser is
// refused at her link; the Connections page lists and disconnects; the status page signs an admin
// in (and tells one without the admin scope so); and without browserSignIn the config says what to add.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAtTeamIdp, skipWithoutChromium } from '../support/browser.js';
import { freePort } from '../support/free-port.js';
import { ADA_UPSTREAM, BOB_UPSTREAM, connectInBrowser, textOf } from '../support/connect-account.js';
import { ADMIN_SCOPE, startResourceServerTeam, type ResourceServerGateway, type ResourceServerTeam } from '../support/resource-server-team.js';
import { ADA, BOB, credentialsOf } from '../support/sign-in-team.js';
import { startTeamIdp, type TeamIdp } from '../support/team-idp.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

const CONNECT_LINK = /https?:\/\/\S+\/connections\/connect\/\S+/;

describe.skipIf(skipWithoutChromium())('connections in resource-server mode, browsers signed in at the team\'s provider', () => {
  let team: ResourceServerTeam;
  let upstreamIdp: TeamIdp;
  let guarded: HttpUpstream;
  let rs: ResourceServerGateway;
  let origin: string;

  beforeAll(async () => {
    team = await startResourceServerTeam();
    upstreamIdp = await startTeamIdp({ profile: 'open', accounts: [ADA_UPSTREAM, BOB_UPSTREAM] });
    guarded = await startGuardedServer({ jwks: { url: upstreamIdp.jwksUri, audience: 'resource', issuer: upstreamIdp.issuer } });
    rs = await team.startGateway({ mcpServers: { guarded: { url: guarded.url, isolation: 'session', credentials: { connection: { scopes: ['mcp', 'offline_access'] } } } } });
    origin = new URL(rs.gateway.url).origin;
  }, 90_000);

  afterAll(async () => {
    await team?.close();
    await guarded?.stop();
    await upstreamIdp?.stop();
  });

  it('asks Ada to connect, her browser signs in at the team\'s provider as her, and the retry reaches the upstream as her account', async () => {
    const ada = await team.signedInClient(rs.gateway, ADA);
    try {
      const first = await ada.callTool('guarded__whoami', {});
      expect(first.isError).toBe(true);
      const link = CONNECT_LINK.exec(textOf(first))?.[0];
      expect(link, textOf(first)).toBeDefined();

      // Bob, signed in at the team's provider in his own browser, is refused at Ada's link.
      const context = await team.browser.newContext();
      const page = await context.newPage();
      await page.goto(link!);
      await signInAtTeamIdp(page, credentialsOf(BOB));
      await page.getByRole('heading', { name: 'Not connected' }).waitFor({ timeout: 20_000 });
      expect(await page.locator('main').innerText()).toMatch(/made for someone else/);
      await context.close();

      const shown = await connectInBrowser(team.browser, link!, ADA, ADA_UPSTREAM);
      expect(shown).toMatch(/Your account on guarded is connected/);
      const second = await ada.callTool('guarded__whoami', {});
      expect(second.isError, textOf(second)).not.toBe(true);
      expect(JSON.parse(textOf(second))).toMatchObject({ via: 'jwt', sub: 'ada-at-upstream' });
    } finally {
      await ada.close();
    }

    // The pages signed in as their own confidential client: PKCE, state and nonce, the gateway as
    // the resource, and the secret at the token endpoint.
    const asked = team.idp.received.authorizationRequests.filter((params) => params.client_id === rs.pagesClientId);
    expect(asked.length).toBeGreaterThanOrEqual(2);
    for (const params of asked) {
      expect(params).toMatchObject({ redirect_uri: `${origin}/connections/signin/callback`, code_challenge_method: 'S256', resource: rs.gateway.url, state: expect.any(String), nonce: expect.any(String) });
      expect(params.scope?.split(' ').sort()).toEqual(['mcp', 'openid']);
    }
    const exchanged = team.idp.received.tokenRequests.filter((params) => params.grant_type === 'authorization_code' && params.redirect_uri === `${origin}/connections/signin/callback`);
    expect(exchanged.length).toBe(asked.length);
    for (const params of exchanged) expect(params).toMatchObject({ authorization_scheme: 'Basic', code_verifier: expect.any(String), resource: rs.gateway.url });
  }, 150_000);

  it('shows Ada her Connections page after signing in at the team\'s provider, and disconnects', async () => {
    const context = await team.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/connections`);
      await signInAtTeamIdp(page, credentialsOf(ADA));
      await page.getByRole('heading', { name: 'Your connections' }).waitFor({ timeout: 20_000 });
      expect(page.url()).toBe(`${origin}/connections`);
      const state = page.locator('[data-server="guarded"] [data-field="state"]');
      expect(await state.innerText()).toBe('Connected');
      await page.getByRole('button', { name: 'Disconnect guarded' }).click();
      await page.getByRole('status').waitFor();
      expect(await state.innerText()).toBe('Not connected');
    } finally {
      await context.close();
    }
    const ada = await team.signedInClient(rs.gateway, ADA);
    try {
      const asked = await ada.callTool('guarded__whoami', {});
      expect(asked.isError).toBe(true);
      expect(textOf(asked)).toMatch(CONNECT_LINK);
    } finally {
      await ada.close();
    }
  }, 120_000);

  it('signs an admin in to the status page at the team\'s provider, with the admin scope', async () => {
    const context = await team.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/status`);
      await signInAtTeamIdp(page, credentialsOf(ADA));
      await page.locator('header .signed-in').waitFor({ timeout: 20_000 });
      expect(page.url()).toBe(`${origin}/status`);
      expect(await page.locator('h1').textContent()).toContain('Switchboard');
      expect(await page.locator('header .signed-in').textContent()).toContain(ADA.email);
    } finally {
      await context.close();
    }
    const asked = team.idp.received.authorizationRequests.filter((params) => params.redirect_uri === `${origin}/signin/callback`);
    expect(asked.at(-1)?.scope?.split(' ').sort()).toEqual(['mcp', 'openid', ADMIN_SCOPE].sort());
    expect(asked.at(-1)).toMatchObject({ client_id: rs.pagesClientId, nonce: expect.any(String), code_challenge_method: 'S256' });
  }, 60_000);

  it('tells a person whose token lacks the admin scope that they are not an admin', async () => {
    const plain = await team.startGateway({}, { adminScopes: ['mcp'] });
    const context = await team.browser.newContext();
    try {
      const page = await context.newPage();
      const plainOrigin = new URL(plain.gateway.url).origin;
      await page.goto(`${plainOrigin}/status`);
      await signInAtTeamIdp(page, credentialsOf(BOB));
      await page.getByRole('heading', { name: 'Not an admin of this gateway' }).waitFor({ timeout: 20_000 });
      expect(await page.locator('main').textContent()).toContain(ADMIN_SCOPE);
    } finally {
      await context.close();
      await plain.gateway.close();
    }
  }, 60_000);

  it('refuses a browser whose token from the provider is not for the gateway: the bearer-token verifier decides', async () => {
    const elsewhere = await team.startGateway({}, { resource: 'http://127.0.0.1:1/another-api' });
    const context = await team.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${new URL(elsewhere.gateway.url).origin}/status`);
      await signInAtTeamIdp(page, credentialsOf(ADA));
      await page.getByRole('heading', { name: 'Sign-in failed' }).waitFor({ timeout: 20_000 });
      expect(await page.locator('main').textContent()).toMatch(/not valid here/);
      expect(await context.cookies()).not.toContainEqual(expect.objectContaining({ name: '__Host-switchboard-admin' }));
    } finally {
      await context.close();
      await elsewhere.gateway.close();
    }
  }, 60_000);

  it('says sign-in is not available when the provider cannot be reached, and sets no cookie', async () => {
    const closed = await freePort();
    const down = await team.startGateway({}, { issuer: `http://127.0.0.1:${closed}` });
    try {
      const response = await fetch(`${new URL(down.gateway.url).origin}/signin?return=/status`, { redirect: 'manual' });
      expect(response.status).toBe(503);
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(await response.text()).toMatch(/Sign-in is not available now[\s\S]*cannot be reached/);
    } finally {
      await down.gateway.close();
    }
  }, 60_000);

  it('refuses connections without auth.browserSignIn, naming the key to add', async () => {
    await expect(team.startGateway({ mcpServers: { guarded: { url: guarded.url, isolation: 'session', credentials: { connection: {} } } } }, false)).rejects.toThrow(
      /mcpServers\.guarded\.credentials\.connection.*needs auth\.browserSignIn/s,
    );
  });
});
