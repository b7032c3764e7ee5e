// Client ID metadata documents in sign-in mode: a client whose client_id is the HTTPS URL of its
// metadata (served here by the HTTPS fixture) signs in with the official SDK client and works; a
// document that names a redirect URI on another host, a host outside `allowedHosts`, and a document
// that cannot be had (404, larger than 5 KiB) each end on a clear error page, with no redirect.
//
// The gateway runs in this process, with `allowLoopbackForTests` (which hands the fetch of a
// loopback document to the global fetch instead of oidc-provider's SSRF-guarded agent). The fixture's
// self-signed certificate is trusted by setting this worker's global undici dispatcher to an agent
// that trusts only it, rather than by NODE_EXTRA_CA_CERTS in a child gateway: the same fetch and
// TLS check, without a second process on a 2-core machine, and with the gateway's log lines at hand.
// Vitest runs each integration file in its own worker, and the dispatcher is put back afterwards.
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approveConsent, launchBrowser, signInAtTeamIdp, skipWithoutChromium } from '../support/browser.js';
import { startHttpsFixture, type HttpsFixture } from '../support/https-fixture.js';
import { startLoopbackCallback, type LoopbackCallback } from '../support/loopback-callback.js';
import { TestOAuthClientProvider } from '../support/oauth-client-provider.js';
import { connectWithSignIn, type SignedInClient } from '../support/sdk-sign-in.js';
import { ADA_CREDENTIALS, authorizationUrl, pkce, signInAuditLines, startSignInGateway, type SignInGateway } from '../support/sign-in-gateway.js';

const TEST_TIMEOUT_MS = 90_000;
/** oidc-provider's bound on a metadata document (fetchResponseBodyLimits). */
const DOCUMENT_LIMIT_BYTES = 5 * 1024;

describe.skipIf(skipWithoutChromium())('client ID metadata documents in sign-in mode', () => {
  let browser: Browser;
  let fixture: HttpsFixture;
  let server: SignInGateway;
  let context: BrowserContext;
  let callback: LoopbackCallback;
  let dispatcherBefore: Dispatcher;

  beforeAll(async () => {
    browser = await launchBrowser();
    fixture = await startHttpsFixture();
    dispatcherBefore = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: fixture.ca } }));
    server = await startSignInGateway({ clientMetadataDocuments: { allowLoopbackForTests: true } });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (dispatcherBefore !== undefined) setGlobalDispatcher(dispatcherBefore);
    await fixture?.stop();
    await browser?.close();
  });

  beforeEach(async () => {
    context = await browser.newContext();
    callback = await startLoopbackCallback();
  });

  afterEach(async () => {
    await context?.close();
    await callback?.stop();
  });

  /** Serves a metadata document at `path` whose client_id is its own URL; returns that URL. */
  function serveDocument(path: string, fields: Record<string, unknown> = {}): string {
    const clientId = fixture.urlFor(path);
    fixture.set(path, {
      client_id: clientId,
      client_name: 'Documented Client',
      redirect_uris: [callback.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...fields,
    });
    return clientId;
  }

  /** An authorization request for `clientId` without a browser: status, Location and the page. */
  async function authorizeRaw(clientId: string, redirectUri = callback.redirectUrl, at: SignInGateway = server): Promise<{ status: number; location: string | null; body: string }> {
    const url = authorizationUrl(at.endpoints.authorization, {
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: at.resource,
    });
    const response = await fetch(url, { redirect: 'manual' });
    return { status: response.status, location: response.headers.get('location'), body: await response.text() };
  }

  it.each(['v1', 'v2'] as const)('lets the %s SDK client sign in by its document; the consent page names the document host', async (generation) => {
    const clientId = serveDocument(`/${generation}/client.json`);
    const provider = new TestOAuthClientProvider({ redirectUrl: callback.redirectUrl, clientMetadataUrl: clientId });
    const consentText: string[] = [];
    let client: SignedInClient | undefined;
    try {
      client = await connectWithSignIn({
        generation,
        url: server.resource,
        provider,
        callback,
        signIn: async (authorizationUrlToOpen) => {
          const page = await context.newPage();
          await page.goto(authorizationUrlToOpen.href);
          await signInAtTeamIdp(page, ADA_CREDENTIALS);
          await page.getByRole('button', { name: 'Allow', exact: true }).waitFor();
          consentText.push(await page.locator('main').innerText());
          await approveConsent(page);
        },
      });
      expect(await client.listToolNames()).toContain('everything__echo');
    } finally {
      await client?.close();
    }
    // It used its document, not registration.
    expect(provider.clientId).toBe(clientId);
    expect(signInAuditLines(server.gateway, 'client-registered').filter((line) => line.clientId === clientId)).toEqual([]);
    expect(fixture.requests).toContain(`/${generation}/client.json`);
    const host = new URL(fixture.origin).host;
    expect(consentText[0]).toContain('Allow Documented Client to use the MCP gateway as you?');
    expect(consentText[0]).toContain(`Identified by its metadata document on ${host}.`);
    expect(signInAuditLines(server.gateway, 'token-issued')).toContainEqual(expect.objectContaining({ clientId, sub: 'ada-sub' }));
  }, TEST_TIMEOUT_MS);

  it('refuses a document that lists a redirect URI on another host, with an error page and no redirect', async () => {
    const host = new URL(fixture.origin).host;
    for (const [path, redirectUris, asked] of [
      ['/foreign.json', ['https://evil.example/callback'], 'https://evil.example/callback'],
      // One foreign URI spoils the document, even for a request that names the loopback one.
      ['/mixed.json', [callback.redirectUrl, 'https://evil.example/callback'], callback.redirectUrl],
    ] as const) {
      const clientId = serveDocument(path, { redirect_uris: redirectUris });
      const answer = await authorizeRaw(clientId, asked);
      expect({ path, status: answer.status, location: answer.location }).toEqual({ path, status: 400, location: null });
      expect(answer.body).toContain(
        `the client&#39;s redirect URIs must be https on ${host} (its metadata document&#39;s host) or http on loopback: https://evil.example/callback is not on ${host}, the host of its metadata document`,
      );
      expect(answer.body).toContain('<code>invalid_client_metadata</code>');
    }
    await expect(callback.next(500)).rejects.toThrow(/nothing came back/);
  });

  it('gives a clear error page when the document cannot be had: not found, or larger than 5 KiB', async () => {
    const missing = await authorizeRaw(fixture.urlFor('/missing.json'));
    expect(missing.status).toBe(400);
    expect(missing.location).toBeNull();
    expect(missing.body).toContain('client_id metadata document fetch failed: its URL answered HTTP 404 rather than 200 with the document (redirects are not followed)');
    expect(missing.body).toContain('<code>invalid_client</code>');

    // Too large, sent in chunks and with a Content-Length that says so.
    const large = serveDocument('/large.json', { client_name: 'x'.repeat(DOCUMENT_LIMIT_BYTES) });
    const declared = fixture.urlFor('/large-declared.json');
    const body = { client_id: declared, redirect_uris: [callback.redirectUrl], client_name: 'x'.repeat(DOCUMENT_LIMIT_BYTES) };
    fixture.set('/large-declared.json', body, { 'content-length': String(Buffer.byteLength(JSON.stringify(body))) });
    for (const clientId of [large, declared]) {
      const tooLarge = await authorizeRaw(clientId);
      expect(tooLarge.status).toBe(400);
      expect(tooLarge.location).toBeNull();
      expect(tooLarge.body).toContain('client_id metadata document fetch failed: the document is larger than 5 KiB');
    }
    expect(fixture.requests).toEqual(expect.arrayContaining(['/large.json', '/large-declared.json']));

    fixture.set('/not-json.json', 'a string is JSON, but not a document');
    const notDocument = await authorizeRaw(fixture.urlFor('/not-json.json'));
    expect(notDocument.status).toBe(400);
    expect(notDocument.body).toContain('client_id metadata document is not a JSON object');

    // Just within the bound: fine.
    const padding = DOCUMENT_LIMIT_BYTES - JSON.stringify({ client_id: fixture.urlFor('/just-fits.json'), redirect_uris: [callback.redirectUrl], client_name: '' }).length;
    fixture.set('/just-fits.json', { client_id: fixture.urlFor('/just-fits.json'), redirect_uris: [callback.redirectUrl], client_name: 'y'.repeat(padding) });
    expect((await authorizeRaw(fixture.urlFor('/just-fits.json'))).status).toBe(303);

    // Not the client it claims to be: a document whose client_id is another URL.
    const impostor = fixture.urlFor('/impostor.json');
    fixture.set('/impostor.json', { client_id: fixture.urlFor('/someone-else.json'), redirect_uris: [callback.redirectUrl] });
    const claimed = await authorizeRaw(impostor);
    expect(claimed.status).toBe(400);
    expect(claimed.body).toContain('client_id metadata document client_id does not match the expected value');
  });

  it("refuses a document on a host outside allowedHosts without fetching it", async () => {
    const guarded = await startSignInGateway({ clientMetadataDocuments: { allowLoopbackForTests: true, allowedHosts: ['clients.example.com', '*.mcp.example.com'] } });
    try {
      const clientId = serveDocument('/not-allowed.json');
      const answer = await authorizeRaw(clientId, callback.redirectUrl, guarded);
      expect(answer.status).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.body).toContain(
        'client_id metadata document fetch not allowed: this gateway takes client metadata documents only from the hosts its operator allows',
      );
      expect(answer.body).toContain('<code>invalid_client</code>');
      expect(fixture.requests).not.toContain('/not-allowed.json');
    } finally {
      await guarded.stop();
    }
  }, 60_000);
});
