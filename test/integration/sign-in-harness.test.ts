// The parts the sign-in tests stand on, proved end to end against today's resource-server mode:
// the team's identity provider (a real oidc-provider, test/support/team-idp.ts) in its 'open'
// profile, the official v2 SDK client and mcp-remote starting with nothing but the gateway's URL,
// registering dynamically, signing in in Chromium at the provider's own login page, and listing and
// calling tools with the JWT it issues. And the 'entra' profile: no registration (so the SDK client
// stops there, the starting point), `resource` refused, and a confidential client's code
// flow with PKCE and nonce whose ID token carries Entra's claims (as openid-client sees it).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, signInAtTeamIdp, skipWithoutChromium } from '../support/browser.js';
import { freePort } from '../support/free-port.js';
import { startHttpsFixture } from '../support/https-fixture.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLoopbackCallback, type LoopbackCallback } from '../support/loopback-callback.js';
import { startMcpRemote, type McpRemote } from '../support/mcp-remote.js';
import { TestOAuthClientProvider } from '../support/oauth-client-provider.js';
import { connectWithSignIn, type SignedInClient } from '../support/sdk-sign-in.js';
import { ENTRA_RESOURCE_ERROR, startTeamIdp, type TeamIdp, type TeamIdpAccount } from '../support/team-idp.js';
import { everythingStdio } from '../support/upstreams.js';

const ADA: TeamIdpAccount = {
  sub: 'ada-sub',
  oid: '00000000-0000-0000-0000-00000000ada0',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  groups: ['engineering', 'platform-admins'],
  password: 'correct horse battery staple',
};
const CREDENTIALS = { username: ADA.email, password: ADA.password };

describe.skipIf(skipWithoutChromium())('the sign-in test harness', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** The person's part: open the URL, sign in at the provider, wait until sent back to `returnTo`. */
  async function signInInBrowser(url: string, returnTo: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(url);
    await signInAtTeamIdp(page, CREDENTIALS);
    await page.waitForURL((current) => current.href.startsWith(returnTo), { timeout: 20_000 });
    return page;
  }

  describe("resource-server mode, with the provider's 'open' profile (dynamic registration, resource indicators)", () => {
    let idp: TeamIdp;
    let gateway: TestGateway;

    beforeAll(async () => {
      idp = await startTeamIdp({ profile: 'open', accounts: [ADA] });
      gateway = await startGateway({
        // A port of its own: with port 0 the default publicUrl (and so the resource metadata URL
        // in the challenge) names port 0, which a client cannot reach.
        server: { port: await freePort() },
        auth: { issuer: idp.issuer, jwksUri: idp.jwksUri, requiredScopes: ['mcp'] },
        mcpServers: { everything: everythingStdio() },
      });
    }, 60_000);

    afterAll(async () => {
      await gateway?.close();
      await idp?.stop();
    });

    it.each(['v1', 'v2'] as const)('the %s SDK client registers, signs in in Chromium, and lists and calls a tool', async (generation) => {
      const callback: LoopbackCallback = await startLoopbackCallback();
      const provider = new TestOAuthClientProvider({ redirectUrl: callback.redirectUrl });
      let client: SignedInClient | undefined;
      try {
        client = await connectWithSignIn({
          generation,
          url: gateway.url,
          provider,
          callback,
          signIn: async (authorizationUrl) => {
            await (await signInInBrowser(authorizationUrl.href, callback.redirectUrl)).close();
          },
        });
        expect(await client.listToolNames()).toContain('everything__echo');
        const result = await client.callTool('everything__echo', { message: 'signed in' });
        expect(JSON.stringify(result.content)).toContain('signed in');
      } finally {
        await client?.close();
        await callback.stop();
      }
      // It registered itself, and asked for the gateway as the resource, with PKCE.
      expect(idp.received.registrations).toContainEqual(expect.objectContaining({ redirect_uris: [callback.redirectUrl] }));
      const asked = idp.received.authorizationRequests.find((params) => params.client_id === provider.clientId);
      expect(asked).toMatchObject({ resource: gateway.url, code_challenge_method: 'S256', scope: expect.stringContaining('mcp') });
      const exchanged = idp.received.tokenRequests.find((params) => params.client_id === provider.clientId && params.grant_type === 'authorization_code');
      expect(exchanged).toMatchObject({ code_verifier: expect.any(String), resource: gateway.url });
      // The token is the provider's JWT for the gateway, carrying the person.
      const accessToken = provider.currentTokens?.access_token ?? '';
      const claims = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      expect(claims).toMatchObject({ iss: idp.issuer, aud: gateway.url, sub: ADA.sub, groups: ADA.groups, scope: expect.stringContaining('mcp') });
    }, 90_000);

    it('mcp-remote registers, opens the sign-in in the browser, and lists and calls a tool over stdio', async () => {
      const remote: McpRemote = await startMcpRemote({ serverUrl: gateway.url });
      try {
        const authorizationUrl = await remote.authorizationUrl();
        expect(new URL(authorizationUrl).origin).toBe(new URL(idp.issuer).origin);
        await (await signInInBrowser(authorizationUrl, remote.callbackUrl)).close();
        const client = await remote.connected;
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toContain('everything__echo');
        const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'via mcp-remote' } });
        expect(JSON.stringify(result.content)).toContain('via mcp-remote');
      } finally {
        await remote.close();
      }
      expect(idp.received.registrations).toContainEqual(expect.objectContaining({ redirect_uris: [remote.callbackUrl] }));
      const asked = idp.received.authorizationRequests.find((params) => params.redirect_uri === remote.callbackUrl);
      expect(asked).toMatchObject({ resource: gateway.url, code_challenge_method: 'S256', scope: expect.stringContaining('mcp') });
    }, 90_000);
  });

  describe("the 'entra' profile (no registration, `resource` refused, issuer with a path)", () => {
    let idp: TeamIdp;
    let callback: LoopbackCallback;
    const clientId = 'switchboard-at-entra';
    const clientSecret = 'a-client-secret-that-is-long-enough-0123456789';

    beforeAll(async () => {
      callback = await startLoopbackCallback('/oauth/callback');
      idp = await startTeamIdp({ profile: 'entra', accounts: [ADA] });
      // Added after start, as a test does once the gateway's port (in the broker callback) is known.
      idp.addClient({ client_id: clientId, client_secret: clientSecret, redirect_uris: [callback.redirectUrl] });
    }, 30_000);

    afterAll(async () => {
      await callback?.stop();
      await idp?.stop();
    });

    it('has an issuer with the tenant in its path, and no registration endpoint', async () => {
      expect(idp.issuer).toBe(`${new URL(idp.issuer).origin}/${idp.tenantId}/v2.0`);
      const discovery = (await (await fetch(idp.discoveryUrl)).json()) as Record<string, unknown>;
      expect(discovery.issuer).toBe(idp.issuer);
      expect(discovery.registration_endpoint).toBeUndefined();
      // Like Entra, no RFC 8414 path-inserted form.
      const inserted = await fetch(`${new URL(idp.issuer).origin}/.well-known/oauth-authorization-server/${idp.tenantId}/v2.0`);
      expect(inserted.status).toBe(404);
    });

    it('stops the SDK client at registration when it is the authorization server (the issue\'s starting point)', async () => {
      const gateway = await startGateway({
        server: { port: await freePort() },
        auth: { issuer: idp.issuer, jwksUri: idp.jwksUri, requiredScopes: ['mcp'] },
        mcpServers: { everything: everythingStdio() },
      });
      const provider = new TestOAuthClientProvider({ redirectUrl: callback.redirectUrl });
      try {
        await expect(
          connectWithSignIn({ generation: 'v2', url: gateway.url, provider, callback, signIn: async () => {} }),
        ).rejects.toThrow(/does not support dynamic client registration/);
        expect(provider.authorizationUrls).toEqual([]);
      } finally {
        await gateway.close();
      }
    }, 60_000);

    it('refuses an authorization request that carries `resource`, sending the error back as Entra does', async () => {
      const request = new URL(`${idp.issuer}/auth`);
      for (const [key, value] of Object.entries({
        client_id: clientId,
        redirect_uri: callback.redirectUrl,
        response_type: 'code',
        scope: 'openid',
        state: 'state-1',
        resource: 'http://127.0.0.1:1/mcp',
      })) request.searchParams.set(key, value);
      const refused = await fetch(request, { redirect: 'manual' });
      expect(refused.status).toBe(302);
      const sentBack = new URL(refused.headers.get('location') ?? '');
      expect(sentBack.href.startsWith(callback.redirectUrl)).toBe(true);
      expect(Object.fromEntries(sentBack.searchParams)).toEqual({ error: 'invalid_target', error_description: ENTRA_RESOURCE_ERROR, state: 'state-1' });
      expect(idp.received.authorizationRequests.at(-1)).toMatchObject({ resource: 'http://127.0.0.1:1/mcp' });
      // A client it does not know gets no redirect: a 400 with the error.
      request.searchParams.set('client_id', 'unknown');
      const unknown = await fetch(request, { redirect: 'manual' });
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toEqual({ error: 'invalid_target', error_description: ENTRA_RESOURCE_ERROR });
    });

    it('signs a confidential client in with PKCE and nonce; a wrong password is shown; the ID token carries oid, email, name and groups', async () => {
      const config = await oidc.discovery(new URL(idp.issuer), clientId, clientSecret, undefined, { execute: [oidc.allowInsecureRequests] });
      const verifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      const state = oidc.randomState();
      const authorizationUrl = oidc.buildAuthorizationUrl(config, {
        redirect_uri: callback.redirectUrl,
        scope: 'openid profile email',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        nonce,
        state,
      });
      const page = await browser.newPage();
      try {
        await page.goto(authorizationUrl.href);
        await signInAtTeamIdp(page, { username: ADA.email, password: 'wrong' });
        const alert = page.getByRole('alert');
        await alert.waitFor();
        expect(await alert.textContent()).toBe('Wrong username or password.');
        const returned = callback.next();
        await signInAtTeamIdp(page, CREDENTIALS);
        const params = await returned;
        const tokens = await oidc.authorizationCodeGrant(config, new URL(`${callback.redirectUrl}?${params}`), {
          pkceCodeVerifier: verifier,
          expectedNonce: nonce,
          expectedState: state,
        });
        expect(tokens.claims()).toMatchObject({ iss: idp.issuer, sub: ADA.sub, oid: ADA.oid, tid: idp.tenantId, email: ADA.email, name: ADA.name, groups: ADA.groups, nonce });
      } finally {
        await page.close();
      }
      const asked = idp.received.authorizationRequests.at(-1);
      expect(asked).toMatchObject({ code_challenge_method: 'S256', nonce });
      expect(asked).not.toHaveProperty('resource');
      expect(idp.received.tokenRequests.at(-1)).toMatchObject({ grant_type: 'authorization_code', code_verifier: verifier });
    }, 60_000);
  });
});

describe('the HTTPS fixture (for client ID metadata documents)', () => {
  const fetchInChild = (url: string, env: Record<string, string>) =>
    promisify(execFile)(process.execPath, ['-e', `fetch(${JSON.stringify(url)}).then((r) => r.text()).then(console.log, (e) => console.log('refused', e.cause?.code))`], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });

  it('serves a document over HTTPS that a process started with NODE_EXTRA_CA_CERTS trusts, and one without does not', async () => {
    const document = { client_id: 'https://127.0.0.1/client.json', client_name: 'A client', redirect_uris: ['http://127.0.0.1/callback'] };
    const fixture = await startHttpsFixture({ '/client.json': document });
    try {
      const url = fixture.urlFor('/client.json');
      expect(url.startsWith('https://127.0.0.1:')).toBe(true);
      expect(JSON.parse((await fetchInChild(url, { NODE_EXTRA_CA_CERTS: fixture.caFile })).stdout)).toEqual(document);
      expect((await fetchInChild(url, {})).stdout.trim()).toBe('refused DEPTH_ZERO_SELF_SIGNED_CERT');
      // The refused one never got as far as a request.
      expect(fixture.requests).toEqual(['/client.json']);
    } finally {
      await fixture.stop();
    }
  });
});
