// Sign-in mode (auth.signIn) against hostile input: each attempt gets a clear OAuth error (JSON at
// the token and registration endpoints, an error redirect to a registered redirect URI, or an HTML
// error page when the redirect URI itself is not trusted) and changes nothing it should not. The
// person signs in at the team's provider (team-idp.ts) in Chromium; the client's side is raw HTTP
// (sign-in-gateway.ts) so that the tests can send what no SDK would.
//
// What oidc-provider does, and these tests hold: a wrong or missing PKCE verifier is refused without
// consuming the code (the right verifier still works: a verifier has 256 bits, so guessing is no
// way in); a code used twice revokes its grant; a reused refresh token revokes its family. Revoked
// means the refresh tokens and codes are gone from the store: access tokens are JWTs, checked by
// their signature and expiry only, so one already issued keeps working until it expires
// (auth.signIn.tokens.accessTokenSeconds).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser, skipWithoutChromium } from '../support/browser.js';
import { startLoopbackCallback, type LoopbackCallback } from '../support/loopback-callback.js';
import {
  ADA_CREDENTIALS,
  authorizationUrl,
  authorizeInBrowser,
  mcpStatusWith,
  openConsentPage,
  pkce,
  register,
  registerClient,
  signInAuditLines,
  startSignInGateway,
  tokenRequest,
  type SignInGateway,
} from '../support/sign-in-gateway.js';

const TEST_TIMEOUT_MS = 60_000;

describe.skipIf(skipWithoutChromium())('sign-in mode against hostile input', () => {
  let browser: Browser;
  let server: SignInGateway;
  let context: BrowserContext;
  let page: Page;
  let callback: LoopbackCallback;

  beforeAll(async () => {
    browser = await launchBrowser();
    // Many registrations in this file: the flood has its own gateway below.
    server = await startSignInGateway({ registration: { perMinutePerAddress: 1_000 }, trustedClients: ['a-trusted-client', 'https://trusted.example/client.json'] });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await browser?.close();
  });

  // A fresh browser (no cookies at the gateway or the provider) and a fresh client callback per test.
  beforeEach(async () => {
    context = await browser.newContext();
    page = await context.newPage();
    callback = await startLoopbackCallback();
  });

  afterEach(async () => {
    await context?.close();
    await callback?.stop();
  });

  /** A registered client, signed in and consented: a fresh code, its verifier and what the exchange needs. */
  async function freshCode(): Promise<{ clientId: string; code: string; verifier: string; exchange: Record<string, string> }> {
    const clientId = await registerClient(server.endpoints.registration, callback.redirectUrl);
    const { verifier, challenge } = pkce();
    const url = authorizationUrl(server.endpoints.authorization, {
      client_id: clientId,
      redirect_uri: callback.redirectUrl,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: server.resource,
    });
    const returned = await authorizeInBrowser(page, url, callback);
    const code = returned.get('code');
    if (code === null) throw new Error(`no code came back: ${returned}`);
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: callback.redirectUrl, client_id: clientId, resource: server.resource };
    return { clientId, code, verifier, exchange };
  }

  /** Signed in with tokens: the client, its access and refresh tokens. */
  async function freshTokens(): Promise<{ clientId: string; accessToken: string; refreshToken: string }> {
    const { clientId, verifier, exchange } = await freshCode();
    const issued = await tokenRequest(server.endpoints.token, { ...exchange, code_verifier: verifier });
    expect(issued.status).toBe(200);
    return { clientId, accessToken: String(issued.body.access_token), refreshToken: String(issued.body.refresh_token) };
  }

  /** What an authorization request gets without a browser: status, Location and body. */
  async function authorizeRaw(params: Record<string, string | undefined>): Promise<{ status: number; location: string | null; body: string; type: string }> {
    const response = await fetch(authorizationUrl(server.endpoints.authorization, params), { redirect: 'manual' });
    return { status: response.status, location: response.headers.get('location'), body: await response.text(), type: response.headers.get('content-type') ?? '' };
  }

  /** Nothing came back to the client's callback within a moment. */
  async function expectNothingAtCallback(): Promise<void> {
    await expect(callback.next(500)).rejects.toThrow(/nothing came back/);
  }

  describe('PKCE', () => {
    it('refuses a wrong or a missing verifier with invalid_grant, and the code still works with the right one', async () => {
      const { clientId, verifier, exchange } = await freshCode();
      const wrong = await tokenRequest(server.endpoints.token, { ...exchange, code_verifier: pkce().verifier });
      expect(wrong).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
      const missing = await tokenRequest(server.endpoints.token, exchange);
      expect(missing).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
      // The client is told little; the operator's audit line says why.
      const refused = signInAuditLines(server.gateway, 'token-refused').filter((line) => line.clientId === clientId);
      expect(refused.map((line) => line.reason)).toEqual(['invalid_grant: code_verifier does not match code_challenge', 'invalid_grant: code_verifier must be provided']);
      expect(signInAuditLines(server.gateway, 'token-issued').filter((line) => line.clientId === clientId)).toEqual([]);

      const right = await tokenRequest(server.endpoints.token, { ...exchange, code_verifier: verifier });
      expect(right.status).toBe(200);
      expect(await mcpStatusWith(server.resource, String(right.body.access_token))).toBe(200);
    }, TEST_TIMEOUT_MS);

    it('sends an authorization request without code_challenge, or with the plain method, back to the client with invalid_request, before any sign-in', async () => {
      const clientId = await registerClient(server.endpoints.registration, callback.redirectUrl);
      const base = { client_id: clientId, redirect_uri: callback.redirectUrl, resource: server.resource, state: 'state-1' };
      const withoutChallenge = await authorizeRaw(base);
      const plain = await authorizeRaw({ ...base, code_challenge: pkce().verifier, code_challenge_method: 'plain' });
      for (const [answer, description] of [
        [withoutChallenge, 'Authorization Server policy requires PKCE to be used for this request'],
        [plain, 'not supported value of code_challenge_method'],
      ] as const) {
        expect(answer.status).toBe(303);
        const sentBack = new URL(answer.location ?? '');
        expect(`${sentBack.origin}${sentBack.pathname}`).toBe(callback.redirectUrl);
        expect(Object.fromEntries(sentBack.searchParams)).toEqual({ error: 'invalid_request', error_description: description, state: 'state-1', iss: server.origin });
      }
      // No sign-in was started for either.
      expect(server.idp.received.authorizationRequests.filter((params) => params.state !== undefined && params.client_id === clientId)).toEqual([]);
    }, TEST_TIMEOUT_MS);
  });

  it('refuses a code exchanged by another client or with another redirect URI, and the code still works for its own', async () => {
    const { clientId, verifier, exchange } = await freshCode();
    const other = await registerClient(server.endpoints.registration, callback.redirectUrl);
    const byOther = await tokenRequest(server.endpoints.token, { ...exchange, client_id: other, code_verifier: verifier });
    expect(byOther).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
    const elsewhere = await tokenRequest(server.endpoints.token, { ...exchange, redirect_uri: callback.redirectUrl.replace('/callback', '/other'), code_verifier: verifier });
    expect(elsewhere).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
    expect(signInAuditLines(server.gateway, 'token-refused').filter((line) => line.clientId === clientId).map((line) => line.reason)).toEqual([
      'invalid_grant: authorization code redirect_uri mismatch',
    ]);
    const right = await tokenRequest(server.endpoints.token, { ...exchange, code_verifier: verifier });
    expect(right.status).toBe(200);
  }, TEST_TIMEOUT_MS);

  it("refuses a code used twice, and revokes the grant's refresh token (its JWT access token lives until it expires)", async () => {
    const { clientId, verifier, exchange } = await freshCode();
    const first = await tokenRequest(server.endpoints.token, { ...exchange, code_verifier: verifier });
    expect(first.status).toBe(200);
    const second = await tokenRequest(server.endpoints.token, { ...exchange, code_verifier: verifier });
    expect(second).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
    expect(signInAuditLines(server.gateway, 'token-refused').filter((line) => line.clientId === clientId).map((line) => line.reason)).toEqual([
      'invalid_grant: authorization code already consumed',
    ]);

    // The code's grant is revoked: the refresh token issued from it is gone.
    const refreshed = await tokenRequest(server.endpoints.token, { grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token), client_id: clientId });
    expect(refreshed).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
    // The access token is a JWT the gateway checks by signature and expiry alone: it still works.
    expect(await mcpStatusWith(server.resource, String(first.body.access_token))).toBe(200);
  }, TEST_TIMEOUT_MS);

  describe('redirect URIs', () => {
    it('shows an error page, and redirects nowhere, for a redirect URI the client did not register', async () => {
      const clientId = await registerClient(server.endpoints.registration, callback.redirectUrl);
      const { challenge } = pkce();
      const port = new URL(callback.redirectUrl).port;
      const base = { client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256', resource: server.resource };
      for (const redirectUri of [
        `http://127.0.0.1:${port}/another-path`,
        `${callback.redirectUrl}?extra=1`,
        `https://127.0.0.1:${port}/callback`,
      ]) {
        const answer = await authorizeRaw({ ...base, redirect_uri: redirectUri });
        expect({ redirectUri, status: answer.status, location: answer.location }).toEqual({ redirectUri, status: 400, location: null });
        expect(answer.type).toMatch(/^text\/html/);
        expect(answer.body).toContain('redirect_uri did not match any of the client&#39;s registered redirect_uris');
        expect(answer.body).toContain('<code>invalid_redirect_uri</code>');
      }
      await expectNothingAtCallback();
    }, TEST_TIMEOUT_MS);

    it('takes another port on loopback (RFC 8252), but not another loopback name', async () => {
      const clientId = await registerClient(server.endpoints.registration, callback.redirectUrl);
      const port = new URL(callback.redirectUrl).port;
      const base = { client_id: clientId, code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: server.resource };
      const otherPort = await authorizeRaw({ ...base, redirect_uri: 'http://127.0.0.1:1/callback' });
      expect(otherPort.status).toBe(303);
      expect(otherPort.location).toMatch(/^\/oauth\/interaction\//);
      for (const redirectUri of [`http://localhost:${port}/callback`, `http://[::1]:${port}/callback`]) {
        const answer = await authorizeRaw({ ...base, redirect_uri: redirectUri });
        expect({ redirectUri, status: answer.status, location: answer.location }).toEqual({ redirectUri, status: 400, location: null });
      }
    }, TEST_TIMEOUT_MS);

    it('never redirects to another host (an open-redirect attempt): an error page, whatever the client', async () => {
      const clientId = await registerClient(server.endpoints.registration, callback.redirectUrl);
      const { challenge } = pkce();
      const port = new URL(callback.redirectUrl).port;
      const foreign = [
        'https://evil.example/callback',
        `http://127.0.0.1.evil.example:${port}/callback`,
        `http://127.0.0.1:${port}@evil.example/callback`,
        '//evil.example/callback',
        `http://localhost.evil.example:${port}/callback`,
      ];
      for (const clientIdSent of [clientId, 'not-a-registered-client']) {
        for (const redirectUri of foreign) {
          // Also with an error to send back (a resource naming no endpoint): still no redirect.
          for (const resource of [server.resource, 'https://evil.example/mcp']) {
            const answer = await authorizeRaw({ client_id: clientIdSent, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', resource });
            expect({ redirectUri, clientIdSent, status: answer.status, location: answer.location }).toEqual({ redirectUri, clientIdSent, status: 400, location: null });
            expect(answer.type).toMatch(/^text\/html/);
            expect(answer.body).toMatch(/<code>(invalid_redirect_uri|invalid_client|invalid_request)<\/code>/);
          }
        }
      }
    }, TEST_TIMEOUT_MS);
  });

  it('sends a resource that names no MCP endpoint back with invalid_target, at authorization and at the token endpoint', async () => {
    const clientId = await registerClient(server.endpoints.registration, callback.redirectUrl);
    const { challenge } = pkce();
    const answer = await authorizeRaw({
      client_id: clientId,
      redirect_uri: callback.redirectUrl,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: 'https://elsewhere.example/mcp',
      state: 'state-2',
    });
    expect(answer.status).toBe(303);
    const sentBack = new URL(answer.location ?? '');
    expect(`${sentBack.origin}${sentBack.pathname}`).toBe(callback.redirectUrl);
    expect(sentBack.searchParams.get('error')).toBe('invalid_target');
    expect(sentBack.searchParams.get('error_description')).toBe(`https://elsewhere.example/mcp is not an MCP endpoint of this gateway; ask for one of ${server.resource}`);
    expect(sentBack.searchParams.get('state')).toBe('state-2');

    // A code granted for the gateway, exchanged for another resource: refused. oidc-provider checks
    // the resource after it has consumed the code (PKCE and redirect_uri are checked before), so the
    // code is spent: the client starts again, and no token was issued for either resource.
    const { clientId: exchanging, verifier, exchange } = await freshCode();
    const elsewhere = await tokenRequest(server.endpoints.token, { ...exchange, code_verifier: verifier, resource: 'https://elsewhere.example/mcp' });
    expect(elsewhere).toEqual({ status: 400, body: { error: 'invalid_target', error_description: 'resource indicator is missing, or unknown' } });
    const right = await tokenRequest(server.endpoints.token, { ...exchange, code_verifier: verifier });
    expect(right).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
    expect(signInAuditLines(server.gateway, 'token-issued').filter((line) => line.clientId === exchanging)).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it("refuses a replayed answer from the team's provider (its state already used): an error page, nothing issued", async () => {
    const answers: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${server.origin}/oauth/callback?`)) answers.push(request.url());
    });
    const { clientId } = await freshCode();
    expect(answers).toHaveLength(1);
    const signedIn = signInAuditLines(server.gateway, 'signed-in').length;

    // In the same browser (its cookies), and from elsewhere (none).
    const again = await page.goto(answers[0]!);
    expect(again?.status()).toBe(400);
    expect(await page.getByRole('heading', { name: 'Sign-in failed' }).isVisible()).toBe(true);
    expect(await page.content()).toContain('this sign-in has expired or was already completed');
    const elsewhere = await fetch(answers[0]!, { redirect: 'manual' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
    expect(await elsewhere.text()).toContain('<code>invalid_request</code>');

    await expectNothingAtCallback();
    expect(signInAuditLines(server.gateway, 'signed-in')).toHaveLength(signedIn);
    expect(signInAuditLines(server.gateway, 'token-issued').filter((line) => line.clientId === clientId)).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it("gives nothing to another browser that opens the provider's answer first (a leaked callback URL)", async () => {
    const clientId = await registerClient(server.endpoints.registration, callback.redirectUrl);
    const { challenge } = pkce();
    // The person signs in at the provider, but the browser never delivers the provider's answer: the
    // login form is sent from the browser's cookie jar without following redirects, and the answer
    // (the redirect to /oauth/callback) is opened in another browser instead.
    await page.goto(
      authorizationUrl(server.endpoints.authorization, { client_id: clientId, redirect_uri: callback.redirectUrl, code_challenge: challenge, code_challenge_method: 'S256', resource: server.resource }).href,
    );
    const action = new URL((await page.locator('form').getAttribute('action')) ?? '', page.url()).href;
    let next = await context.request.post(action, { form: { username: ADA_CREDENTIALS.username, password: ADA_CREDENTIALS.password }, maxRedirects: 0 });
    let leaked: string | undefined;
    for (let hop = 0; hop < 5 && leaked === undefined; hop += 1) {
      const location = new URL(next.headers().location ?? '', next.url()).href;
      if (location.startsWith(`${server.origin}/oauth/callback?`)) leaked = location;
      else next = await context.request.get(location, { maxRedirects: 0 });
    }
    expect(leaked).toBeDefined();

    const elsewhere = await browser.newContext();
    try {
      const other = await elsewhere.newPage();
      const answer = await other.goto(leaked!);
      // It signs the person in to the authorization it was for, but that authorization goes on only
      // in the browser that started it (oidc-provider's interaction cookie): here, an error page.
      expect(answer?.status()).toBe(400);
      expect(await other.getByRole('heading', { name: 'Sign-in failed' }).isVisible()).toBe(true);
      expect(other.url().startsWith(`${server.origin}/oauth/authorize/`)).toBe(true);
      expect(await other.locator('main').innerText()).toContain('authorization request has expired');
    } finally {
      await elsewhere.close();
    }
    await expectNothingAtCallback();
    expect(signInAuditLines(server.gateway, 'token-issued').filter((line) => line.clientId === clientId)).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it('refuses a reused refresh token and revokes its family: the newest refresh token stops working too', async () => {
    const { clientId, accessToken, refreshToken } = await freshTokens();
    const rotated = await tokenRequest(server.endpoints.token, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    expect(rotated.status).toBe(200);
    const newest = String(rotated.body.refresh_token);
    expect(newest).not.toBe(refreshToken);

    const reused = await tokenRequest(server.endpoints.token, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    expect(reused).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
    expect(signInAuditLines(server.gateway, 'refresh-token-reused').filter((line) => line.clientId === clientId)).toEqual([
      expect.objectContaining({ reason: 'invalid_grant: refresh token already used', client: '127.0.0.1' }),
    ]);

    // The family is revoked: the newest refresh token, never used, is refused as well.
    const newestUsed = await tokenRequest(server.endpoints.token, { grant_type: 'refresh_token', refresh_token: newest, client_id: clientId });
    expect(newestUsed).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
    // Access tokens are JWTs, checked by signature and expiry: those issued keep working until they expire.
    for (const token of [accessToken, String(rotated.body.access_token)]) {
      expect(await mcpStatusWith(server.resource, token)).toBe(200);
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iat: number; exp: number };
      expect(claims.exp - claims.iat).toBe(3_600);
    }
  }, TEST_TIMEOUT_MS);

  it('revokes a refresh token at /oauth/revoke (RFC 7009): it no longer refreshes, and the revocation is audited', async () => {
    const { clientId, refreshToken } = await freshTokens();
    const revoked = await fetch(server.endpoints.revocation, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshToken, token_type_hint: 'refresh_token', client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    const refreshed = await tokenRequest(server.endpoints.token, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(signInAuditLines(server.gateway, 'token-revoked')).toContainEqual(expect.objectContaining({ clientId }));
  }, TEST_TIMEOUT_MS);

  describe('registration', () => {
    const registered = () => signInAuditLines(server.gateway, 'client-registered').length;

    it('registers a public client on loopback, with an audit line naming it', async () => {
      const { status, body } = await register(server.endpoints.registration, { redirect_uris: [callback.redirectUrl], client_name: 'Audited', token_endpoint_auth_method: 'none' });
      expect(status).toBe(201);
      expect(signInAuditLines(server.gateway, 'client-registered')).toContainEqual(expect.objectContaining({ clientId: body.client_id, client: '127.0.0.1' }));
    });

    it('ignores a client_id or client_secret the registration names: no one registers as a trusted or configured client', async () => {
      for (const chosen of ['a-trusted-client', 'https://trusted.example/client.json']) {
        const { status, body } = await register(server.endpoints.registration, { redirect_uris: [callback.redirectUrl], client_id: chosen, client_secret: 'chosen-secret' });
        expect(status).toBe(201);
        expect(body.client_id).not.toBe(chosen);
        expect(body).not.toHaveProperty('client_secret');
        expect(body.token_endpoint_auth_method).toBe('none');
      }
    });

    it('refuses an oversized body (413), malformed JSON, a confidential client and an http redirect off loopback (400), registering nothing', async () => {
      const before = registered();
      const oversized = await fetch(server.endpoints.registration, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [callback.redirectUrl], client_name: 'x'.repeat(20_000) }),
      });
      expect(oversized.status).toBe(413);
      expect(await oversized.json()).toEqual({ error: 'invalid_client_metadata', error_description: 'a registration is at most 16384 bytes' });

      const malformed = await fetch(server.endpoints.registration, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris": [' });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toEqual({ error: 'invalid_client_metadata', error_description: 'the registration is not valid JSON' });

      // oidc-provider routes /oauth/Register/ to registration as well: the same guard holds there.
      const paths = ['/oauth/register', '/oauth/register/', '/oauth/REGISTER', '/oauth/Register/'];
      for (const [index, method] of ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'client_secret_jwt'].entries()) {
        const confidential = await register(`${server.origin}${paths[index]}`, { redirect_uris: [callback.redirectUrl], token_endpoint_auth_method: method });
        expect(confidential.status).toBe(400);
        expect(confidential.body).toEqual({
          error: 'invalid_client_metadata',
          error_description: `only public clients may register here (token_endpoint_auth_method "none", with PKCE), not "${method}"`,
        });
      }

      for (const path of paths) {
        const offLoopback = await register(`${server.origin}${path}`, { redirect_uris: [callback.redirectUrl, 'http://evil.example/callback'] });
        expect({ path, status: offLoopback.status }).toEqual({ path, status: 400 });
        expect(offLoopback.body).toEqual({
          error: 'invalid_redirect_uri',
          error_description: 'http://evil.example/callback uses http on a host that is not loopback (127.0.0.1, [::1] or localhost)',
        });
      }
      expect(registered()).toBe(before);
    });
  });

  it('limits registrations per address: 429 with Retry-After past perMinutePerAddress', async () => {
    const limited = await startSignInGateway({ registration: { perMinutePerAddress: 3 } });
    try {
      // Every spelling oidc-provider routes to registration counts against the same limit.
      const answers = [];
      for (const path of ['/oauth/register', '/oauth/register/', '/oauth/Register', '/oauth/REGISTER/', '/oauth/register']) {
        answers.push(await register(`${limited.origin}${path}`, { redirect_uris: [callback.redirectUrl], token_endpoint_auth_method: 'none' }));
      }
      expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 429, 429]);
      const refused = answers[3]!;
      expect(refused.body.error).toBe('too_many_requests');
      expect(String(refused.body.error_description)).toMatch(/^too many registrations from this address; try again in \d+ s$/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      // A sliding window: three in this minute still weigh on the next one, so the wait may pass 60 s.
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(120);
      expect(refused.body.error_description).toBe(`too many registrations from this address; try again in ${retryAfter} s`);
      expect(signInAuditLines(limited.gateway, 'client-registered')).toHaveLength(3);
    } finally {
      await limited.stop();
    }
  }, TEST_TIMEOUT_MS);

  it('counts authorization requests per address under limits.requestsPerMinute: 429 past it, and the other endpoints are not counted', async () => {
    const limited = await startSignInGateway({}, { limits: { requestsPerMinute: 2 } });
    try {
      const clientId = await registerClient(`${limited.origin}/oauth/register`, callback.redirectUrl);
      const { challenge } = pkce();
      const url = authorizationUrl(`${limited.origin}/oauth/authorize`, { client_id: clientId, redirect_uri: callback.redirectUrl, code_challenge: challenge, code_challenge_method: 'S256' });
      const statuses = [];
      for (let attempt = 0; attempt < 3; attempt++) statuses.push((await fetch(url, { redirect: 'manual' })).status);
      expect(statuses.slice(0, 2).every((status) => status === 303 || status === 302)).toBe(true);
      expect(statuses[2]).toBe(429);
      // The metadata (and the token endpoint) still answer: only what stores state for anyone is counted.
      expect((await fetch(`${limited.origin}/.well-known/oauth-authorization-server`)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  }, TEST_TIMEOUT_MS);

  describe('the consent form', () => {
    /** The consent page of a fresh client, opened and signed in; its form's action and token. */
    async function consentForm(): Promise<{ clientId: string; action: string; formToken: string }> {
      const clientId = await registerClient(server.endpoints.registration, callback.redirectUrl);
      const { challenge } = pkce();
      await openConsentPage(
        page,
        authorizationUrl(server.endpoints.authorization, { client_id: clientId, redirect_uri: callback.redirectUrl, code_challenge: challenge, code_challenge_method: 'S256', resource: server.resource }),
      );
      const action = new URL((await page.locator('form').getAttribute('action')) ?? '', server.origin).href;
      const formToken = (await page.locator('input[name=form_token]').getAttribute('value')) ?? '';
      return { clientId, action, formToken };
    }

    /** POSTs the decision through the browser's own cookie jar (or `cookie`, when given, and no jar). */
    async function post(action: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: string; location: string | undefined }> {
      const response = await context.request.post(action, { form, headers, maxRedirects: 0 });
      return { status: response.status(), body: await response.text(), location: response.headers().location };
    }

    it('refuses a wrong form token, a POST from another origin, and one without the interaction cookie; then Allow still works', async () => {
      const { clientId, action, formToken } = await consentForm();
      const wrongToken = await post(action, { form_token: `${formToken.slice(0, -2)}AA`, decision: 'allow' }, { origin: server.origin });
      expect(wrongToken.status).toBe(403);
      expect(wrongToken.body).toContain('This consent form is not valid');
      const noToken = await post(action, { decision: 'allow' }, { origin: server.origin });
      expect(noToken.status).toBe(403);
      const otherOrigin = await post(action, { form_token: formToken, decision: 'allow' }, { origin: 'https://evil.example' });
      expect(otherOrigin.status).toBe(403);
      expect(otherOrigin.body).toContain('This form was not sent from the consent page.');
      const nullOrigin = await post(action, { form_token: formToken, decision: 'allow' }, { origin: 'null' });
      expect(nullOrigin.status).toBe(403);
      // A forged cross-site form carries no cookie (SameSite=Lax on a POST): the interaction is not found.
      const noCookie = await fetch(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.origin },
        body: new URLSearchParams({ form_token: formToken, decision: 'allow' }),
        redirect: 'manual',
      });
      expect(noCookie.status).toBe(400);
      expect(noCookie.headers.get('location')).toBeNull();
      expect(await noCookie.text()).toContain('This sign-in page has expired or was opened in another browser.');
      // Not a form at all, with the right token in a JSON body: refused.
      const json = await context.request.post(action, { data: { form_token: formToken, decision: 'allow' }, headers: { origin: server.origin }, maxRedirects: 0 });
      expect(json.status()).toBe(403);

      await expectNothingAtCallback();
      expect(signInAuditLines(server.gateway, 'consented').filter((line) => line.clientId === clientId)).toEqual([]);

      // Nothing changed: the person's own Allow completes the authorization.
      const returned = callback.next();
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      expect((await returned).get('code')).toEqual(expect.any(String));
    }, TEST_TIMEOUT_MS);

    it("shows a client's registered name as text, never as markup", async () => {
      const name = '<img src=x onerror=alert(1)>Evil & "Co"';
      const clientId = await registerClient(server.endpoints.registration, callback.redirectUrl, name);
      await openConsentPage(
        page,
        authorizationUrl(server.endpoints.authorization, { client_id: clientId, redirect_uri: callback.redirectUrl, code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: server.resource }),
      );
      expect(await page.locator('h1').innerText()).toBe(`Allow ${name} to use the MCP gateway as you?`);
      expect(await page.locator('img').count()).toBe(0);
    }, TEST_TIMEOUT_MS);

    it('refuses a consent form sent again after the authorization finished, and one for an interaction that does not exist', async () => {
      const { action, formToken } = await consentForm();
      const cookies = (await context.cookies(server.origin)).map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
      const returned = callback.next();
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      expect((await returned).get('code')).toEqual(expect.any(String));

      // The same form, with the cookies it had: the interaction is over.
      const replayed = await fetch(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.origin, cookie: cookies },
        body: new URLSearchParams({ form_token: formToken, decision: 'allow' }),
        redirect: 'manual',
      });
      expect(replayed.status).toBe(400);
      expect(replayed.headers.get('location')).toBeNull();
      expect(await replayed.text()).toContain('<code>invalid_request</code>');
      const unknown = await post(`${server.origin}/oauth/interaction/no-such-interaction/consent`, { form_token: formToken, decision: 'allow' }, { origin: server.origin });
      expect(unknown.status).toBe(400);
      await expectNothingAtCallback();
    }, TEST_TIMEOUT_MS);
  });
});
