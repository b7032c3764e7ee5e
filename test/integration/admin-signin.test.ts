// The status page and admin API in sign-in mode, in a real browser: a real gateway is the
// authorization server, a real oidc-provider is the team's provider with two people (one in the
// admin group, one not), Chromium (playwright-core) is the person. The admin opens /status, is sent
// through sign-in and sees the page (its live refresh and an action work with the session cookie);
// the other person gets 403 with who they are; a cross-site POST with the cookie is refused; a
// tampered cookie is refused; bearer tokens keep working for the API; sign-out clears the cookie.
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Cookie } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { skipWithout } from '../support/required-tools.js';
import { signInAtIdp, startStatusPageIdp, type StatusPageIdp } from '../support/status-page-idp.js';

const CHROMIUM = '/usr/bin/chromium';
const SESSION_COOKIE = '__Host-switchboard-admin';
const ADMIN_SCOPE = 'switchboard:admin';
const hasChromium = existsSync(CHROMIUM);

describe.skipIf(skipWithout(hasChromium, CHROMIUM))('the status page with sign-in (auth.signIn)', () => {
  let idp: StatusPageIdp;
  let gateway: TestGateway;
  let browser: Browser;
  let gatewayOrigin: string;
  let statusUrl: string;
  let adminContext: BrowserContext;

  beforeAll(async () => {
    const port = await freePort();
    gatewayOrigin = `http://127.0.0.1:${port}`;
    idp = await startStatusPageIdp({ people: { alice: ['admins'], bob: ['staff'] }, redirectUri: `${gatewayOrigin}/oauth/callback` });
    gateway = await startGateway({
      server: { port, publicUrl: `${gatewayOrigin}/mcp` },
      auth: {
        signIn: {
          provider: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret },
          secret: randomBytes(32).toString('base64'),
          scopeGrants: { [ADMIN_SCOPE]: { groups: ['admins'] } },
          // A script's client, for the bearer-token test.
          clients: [{ clientId: 'ops-script', redirectUris: ['http://127.0.0.1/callback'] }],
          trustedClients: ['ops-script'],
        },
      },
      mcpServers: {},
    });
    statusUrl = gateway.adminUrl!;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    adminContext = await browser.newContext();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await idp?.stop();
  });

  const sessionCookie = async (context: BrowserContext): Promise<Cookie | undefined> => (await context.cookies(statusUrl)).find((cookie) => cookie.name === SESSION_COOKIE);

  it('sends an admin through sign-in to the status page, with a Secure, HttpOnly, SameSite=Lax session cookie', async () => {
    const page = await adminContext.newPage();
    page.on('dialog', (dialog) => void (dialog.type() === 'confirm' ? dialog.accept() : dialog.dismiss()));
    await page.goto(statusUrl);
    await signInAtIdp(page, idp, 'alice');
    await page.waitForURL(statusUrl);
    expect(await page.locator('h1').textContent()).toContain('Switchboard');
    expect(await page.locator('header .signed-in').textContent()).toContain('alice@example.com');

    const cookie = await sessionCookie(adminContext);
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    expect(cookie!.value.split('.')).toHaveLength(5); // sealed (JWE), not a token anyone can read
    // It lives as long as the access token it was made from (accessTokenSeconds, default an hour), not a browser's lifetime.
    const now = Date.now() / 1000;
    expect(cookie!.expires).toBeGreaterThan(now + 3_500);
    expect(cookie!.expires).toBeLessThanOrEqual(now + 3_600 + 5);
    expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, event: 'admin', action: 'sign-in', outcome: 'ok', sub: 'alice' }));

    // The live refresh goes on with the cookie...
    await page.locator('#live-indicator', { hasText: 'live, updated' }).waitFor({ timeout: 20_000 });
    // ...and so does an action (a POST from the page's own script).
    await page.getByRole('button', { name: 'Drain' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Drain' }).waitFor();
    const actions = gateway.logs.filter((line) => line.event === 'admin' && (line.action === 'drain' || line.action === 'resume'));
    expect(actions).toEqual([expect.objectContaining({ action: 'drain', outcome: 'ok', sub: 'alice' }), expect.objectContaining({ action: 'resume', outcome: 'ok', sub: 'alice' })]);
    await page.close();
  });

  it('refuses a person without the admin scope, saying who they are and what is missing', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(statusUrl);
      await signInAtIdp(page, idp, 'bob');
      await page.waitForURL(statusUrl);
      expect(await page.locator('h1').textContent()).toBe('Not an admin of this gateway');
      expect(await page.locator('main').textContent()).toContain('bob@example.com');
      expect(await page.locator('main').textContent()).toContain(ADMIN_SCOPE);
      const again = await context.request.get(statusUrl, { headers: { accept: 'text/html' }, maxRedirects: 0 });
      expect(again.status()).toBe(403);
      const api = await context.request.get(new URL('/api/status', statusUrl).href, { maxRedirects: 0 });
      expect(api.status()).toBe(403);
      expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, event: 'admin', outcome: 'denied', reason: 'insufficient-scope', sub: 'bob' }));
    } finally {
      await context.close();
    }
  });

  it('refuses requests that change something from another site, or without proof they come from the page, with the cookie', async () => {
    const cookie = await sessionCookie(adminContext);
    const drain = new URL('/api/drain', statusUrl).href;
    const withCookie = { cookie: `${SESSION_COOKIE}=${cookie!.value}`, 'content-type': 'application/json' };
    expect((await fetch(drain, { method: 'POST', headers: { ...withCookie, origin: 'http://evil.example' } })).status).toBe(403);
    expect((await fetch(drain, { method: 'POST', headers: { ...withCookie, 'sec-fetch-site': 'same-site' } })).status).toBe(403);
    // Neither Origin nor Sec-Fetch-Site: nothing proves the page sent it.
    expect((await fetch(drain, { method: 'POST', headers: withCookie })).status).toBe(403);

    // A page on another site, in the admin's own browser, posting a form and a fetch to the API.
    const evil = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>
<form id="f" method="post" action="${drain}" enctype="text/plain"><input name="a" value="b"></form>
<script>fetch(${JSON.stringify(drain)}, { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{}' }).finally(() => document.getElementById('f').submit());</script>`);
    });
    evil.listen(0, '127.0.0.1');
    await once(evil, 'listening');
    try {
      const page = await adminContext.newPage();
      // localhost and 127.0.0.1 are different sites.
      const posted = page.waitForRequest((request) => request.url() === drain && request.resourceType() === 'document');
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      await posted;
      await page.waitForLoadState();
      await page.close();
    } finally {
      evil.close();
    }
    const status = await adminContext.request.get(new URL('/api/status', statusUrl).href);
    expect(((await status.json()) as { gateway: { status: string } }).gateway.status).toBe('ready');
    expect(gateway.logs.filter((line) => line.event === 'admin' && line.action === 'drain')).toHaveLength(1); // the one from the page
    // The same cookie from the page's own origin does act: the refusals above are about where the request came from.
    const own = await fetch(new URL('/api/drain', statusUrl).href, { method: 'DELETE', headers: { ...withCookie, origin: new URL(statusUrl).origin } });
    expect(own.status).toBe(200);
  });

  it('refuses a tampered or foreign session cookie: 401 for the API, back to sign-in for a page', async () => {
    const cookie = await sessionCookie(adminContext);
    const parts = cookie!.value.split('.');
    const ciphertext = parts[3]!;
    parts[3] = `${ciphertext[0] === 'A' ? 'B' : 'A'}${ciphertext.slice(1)}`;
    const tampered = { cookie: `${SESSION_COOKIE}=${parts.join('.')}` };
    const api = await fetch(new URL('/api/status', statusUrl).href, { headers: tampered });
    expect(api.status).toBe(401);
    expect(api.headers.get('www-authenticate')).toMatch(/^Bearer /);
    // A browser opening the page with it is sent to sign in again (this one has no session at the authorization server).
    const context = await browser.newContext();
    try {
      await context.addCookies([{ ...cookie!, value: parts.join('.') }]);
      const page = await context.newPage();
      await page.goto(statusUrl);
      await page.waitForURL((url) => url.href.startsWith(idp.issuer));
    } finally {
      await context.close();
    }
    expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, event: 'admin', outcome: 'unauthenticated', reason: 'invalid-token', detail: 'session cookie not valid' }));
  });

  it('keeps bearer tokens working for scripts', async () => {
    // A script's token, from the gateway's authorization server (the admin's browser session there signs it in).
    const callback = createServer();
    callback.listen(0, '127.0.0.1');
    await once(callback, 'listening');
    const redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    const codeArrived = new Promise<URL>((resolve) =>
      callback.on('request', (request, response) => {
        resolve(new URL(request.url ?? '/', redirectUri));
        response.end('done');
      }),
    );
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL('/oauth/authorize', gatewayOrigin);
    authorize.search = new URLSearchParams({
      client_id: 'ops-script',
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: ADMIN_SCOPE,
      state: 'script-state',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${gatewayOrigin}/mcp`,
    }).toString();
    const page = await adminContext.newPage();
    try {
      await page.goto(authorize.href);
      const code = (await codeArrived).searchParams.get('code');
      expect(code).toBeTruthy();
      const tokenAnswer = await fetch(new URL('/oauth/token', gatewayOrigin), {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, client_id: 'ops-script', code_verifier: verifier, resource: `${gatewayOrigin}/mcp` }),
      });
      const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
      const api = await fetch(new URL('/api/status', statusUrl).href, { headers: { authorization: `Bearer ${token}` } });
      expect(api.status).toBe(200);
      // A bearer token needs no Origin: scripts are not browsers.
      const drain = await fetch(new URL('/api/drain', statusUrl).href, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
      expect(drain.status).toBe(200);
      expect((await fetch(new URL('/api/status', statusUrl).href, { headers: { authorization: 'Bearer not-a-token' } })).status).toBe(401);
    } finally {
      await page.close();
      callback.close();
    }
  });

  it('returns only to paths of its own origin after sign-in', async () => {
    const page = await adminContext.newPage();
    try {
      for (const hostile of ['https://evil.example/', '//evil.example/status', '/\\evil.example/status']) {
        await page.goto(`${new URL('/signin', statusUrl).href}?return=${encodeURIComponent(hostile)}`);
        await page.waitForURL(statusUrl);
      }
    } finally {
      await page.close();
    }
  });

  it('signs out: the cookie is cleared and the API answers 401 again', async () => {
    const page = await adminContext.newPage();
    await page.goto(statusUrl);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(new URL('/signed-out', statusUrl).href);
    expect(await page.locator('h1').textContent()).toBe('Signed out');
    expect(await sessionCookie(adminContext)).toBeUndefined();
    expect((await adminContext.request.get(new URL('/api/status', statusUrl).href)).status()).toBe(401);
    expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, event: 'admin', action: 'sign-out', outcome: 'ok', sub: 'alice' }));
    await page.close();
  });
});
