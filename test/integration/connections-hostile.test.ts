// credentials.connection against hostile or mistaken input (issue 43): each gets a page that says
// what went wrong, and changes nothing. A connect link used twice; opened by another signed-in
// person (the link stays the owner's); expired; a callback with a tampered `state`; a callback with
// a code obtained for another person, opened in Ada's browser (it neither connects Ada nor uses up
// Bob's attempt, which still completes for him); an upstream whose authorization server metadata
// names its token endpoint on another host (refused before anything is sent there). No code, token
// or verifier appears in the gateway's logs.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAtTeamIdp, skipWithoutChromium } from '../support/browser.js';
import { ADA_UPSTREAM, BOB_UPSTREAM, connectInBrowser, textOf } from '../support/connect-account.js';
import type { SignedInClient } from '../support/sdk-sign-in.js';
import { ADA, BOB, credentialsOf, startSignInTeam, type SignInGateway, type SignInTeam } from '../support/sign-in-team.js';
import { startTeamIdp, type TeamIdp, type TeamIdpAccount } from '../support/team-idp.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

const CONNECTION = { scopes: ['mcp', 'offline_access'] };

/** An authorization server whose metadata names its token endpoint on another host, which counts what it is sent. */
async function crookedAuthorizationServer(): Promise<{ issuer: string; tokenHostRequests: () => number; stop(): Promise<void> }> {
  let tokenHostRequests = 0;
  const tokenHost: Server = createServer((_request, response) => {
    tokenHostRequests += 1;
    response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_request"}');
  });
  tokenHost.listen(0, '127.0.0.1');
  await once(tokenHost, 'listening');
  const metadata: Server = createServer((request, response) => {
    const issuer = `http://127.0.0.1:${(metadata.address() as AddressInfo).port}`;
    if (request.url !== '/.well-known/oauth-authorization-server' && request.url !== '/.well-known/openid-configuration') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        // Same address, another host name: where the codes and refresh tokens would go.
        token_endpoint: `http://localhost:${(tokenHost.address() as AddressInfo).port}/token`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      }),
    );
  });
  metadata.listen(0, '127.0.0.1');
  await once(metadata, 'listening');
  const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    issuer: `http://127.0.0.1:${(metadata.address() as AddressInfo).port}`,
    tokenHostRequests: () => tokenHostRequests,
    stop: async () => void (await Promise.all([close(metadata), close(tokenHost)])),
  };
}

describe.skipIf(skipWithoutChromium())('hostile input to connections', () => {
  let team: SignInTeam;
  let upstreamIdp: TeamIdp;
  let guarded: HttpUpstream;
  let crooked: Awaited<ReturnType<typeof crookedAuthorizationServer>>;
  let signIn: SignInGateway;
  let shortLinks: SignInGateway;
  let ada: SignedInClient;
  let bob: SignedInClient;

  beforeAll(async () => {
    team = await startSignInTeam();
    upstreamIdp = await startTeamIdp({ profile: 'open', accounts: [ADA_UPSTREAM, BOB_UPSTREAM] });
    guarded = await startGuardedServer({ jwks: { url: upstreamIdp.jwksUri, audience: 'resource', issuer: upstreamIdp.issuer } });
    crooked = await crookedAuthorizationServer();
    signIn = await team.startGateway({}, {
      mcpServers: {
        guarded: { url: guarded.url, isolation: 'session', credentials: { connection: CONNECTION } },
        crooked: { url: guarded.url, isolation: 'session', credentials: { connection: { ...CONNECTION, authorizationServer: crooked.issuer } } },
      },
    });
    // Links that live one second, to see one expire.
    shortLinks = await team.startGateway({}, { mcpServers: { guarded: { url: guarded.url, isolation: 'session', credentials: { connection: CONNECTION } } } }, { connectLinkSeconds: 1 });
    ({ client: ada } = await team.signInWithSdk(signIn.gateway, await team.clientApp(), { generation: 'v2', account: ADA, consent: 'allow' }));
    ({ client: bob } = await team.signInWithSdk(signIn.gateway, await team.clientApp(), { generation: 'v2', account: BOB, consent: 'allow' }));
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([ada?.close(), bob?.close()]);
    await team?.close();
    await guarded?.stop();
    await crooked?.stop();
    await upstreamIdp?.stop();
  });

  async function linkFor(client: SignedInClient, tool = 'guarded__whoami'): Promise<string> {
    const result = await client.callTool(tool, {});
    const link = /https?:\/\/\S+\/connections\/connect\/\S+/.exec(textOf(result))?.[0];
    expect(link, textOf(result)).toBeDefined();
    return link!;
  }

  /** A browser of the person's own, signed in to the gateway by opening `link`; left where that ends. */
  async function openSignedIn(link: string, person: TeamIdpAccount): Promise<{ context: BrowserContext; page: Page }> {
    const context = await team.browser.newContext();
    const page = await context.newPage();
    await page.goto(link);
    await signInAtTeamIdp(page, credentialsOf(person));
    return { context, page };
  }

  async function refusal(page: Page): Promise<string> {
    await page.getByRole('heading', { name: 'Not connected' }).waitFor({ timeout: 20_000 });
    return page.locator('main').innerText();
  }

  it("refuses Ada's link to Bob without using it up, and once used, refuses it to Ada too", async () => {
    const link = await linkFor(ada);
    const bobs = await openSignedIn(link, BOB);
    expect(await refusal(bobs.page)).toMatch(/made for someone else/);
    await bobs.context.close();

    expect(await connectInBrowser(team.browser, link, ADA, ADA_UPSTREAM)).toMatch(/Your account on guarded is connected/);
    const again = await openSignedIn(link, ADA);
    expect(await refusal(again.page)).toMatch(/expired or was already used/);
    await again.context.close();
    expect(JSON.parse(textOf(await ada.callTool('guarded__whoami', {})))).toMatchObject({ sub: 'ada-at-upstream' });
  }, 120_000);

  it('refuses an expired link', async () => {
    const { client: carol } = await team.signInWithSdk(shortLinks.gateway, await team.clientApp(), { generation: 'v2', account: ADA, consent: 'allow' });
    try {
      const link = await linkFor(carol);
      await sleep(2_500);
      const opened = await openSignedIn(link, ADA);
      expect(await refusal(opened.page)).toMatch(/expired or was already used/);
      await opened.context.close();
      expect(textOf(await carol.callTool('guarded__whoami', {}))).toMatch(/not connected yet/);
    } finally {
      await carol.close();
    }
  }, 120_000);

  it("refuses a tampered state, and Bob's callback in Ada's browser, and Bob's attempt still completes for him", async () => {
    // Bob goes through the upstream's consent; his browser's way back to the gateway is held.
    const bobs = await openSignedIn(await linkFor(bob), BOB);
    // A browser does not let a redirect be intercepted: the provider's answers are fetched here,
    // and the one that sends the browser to the gateway's callback is kept and not followed.
    let callback: string | undefined;
    const atProvider = (url: URL) => url.origin === new URL(upstreamIdp.issuer).origin;
    await bobs.context.route(atProvider, async (route) => {
      // Redirects within the provider are followed here too (the browser's own are not routed).
      let at = new URL(route.request().url());
      let response = await route.fetch({ maxRedirects: 0 });
      for (let hops = 0; hops < 5 && response.headers().location !== undefined; hops += 1) {
        const next = new URL(response.headers().location!, at);
        if (next.pathname === '/connections/callback') {
          callback = next.href;
          await route.fulfill({ status: 200, contentType: 'text/plain', body: 'held' });
          return;
        }
        if (!atProvider(next)) break;
        // With the cookies the browser has and those just set (route.fetch does not keep them).
        const jar = new Map((await bobs.context.cookies(next.href)).map((cookie) => [cookie.name, cookie.value]));
        for (const header of response.headersArray()) {
          if (header.name.toLowerCase() !== 'set-cookie') continue;
          const [pair = ''] = header.value.split(';');
          const equals = pair.indexOf('=');
          if (equals > 0) jar.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
        }
        at = next;
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        response = await route.fetch({ url: next.href, method: 'GET', headers: { cookie }, maxRedirects: 0 });
      }
      await route.fulfill({ response });
    });
    await bobs.page.getByLabel('Username').waitFor({ timeout: 20_000 });
    await signInAtTeamIdp(bobs.page, credentialsOf(BOB_UPSTREAM));
    await expect.poll(() => callback, { timeout: 20_000 }).toBeDefined();
    const url = new URL(callback!);
    expect(url.searchParams.get('code')).toBeTruthy();

    // Bob's own browser with a tampered state: refused.
    await bobs.context.unroute(atProvider);
    const tampered = new URL(url);
    tampered.searchParams.set('state', `${url.searchParams.get('state')}x`);
    await bobs.page.goto(tampered.href);
    expect(await refusal(bobs.page)).toMatch(/connection attempt has expired, was already completed/);

    // Ada's browser (signed in to the gateway as Ada) brought to Bob's callback: refused.
    const adas = await openSignedIn(await linkFor(ada, 'crooked__whoami'), ADA);
    await adas.page.goto(url.href);
    expect(await refusal(adas.page)).toMatch(/started by someone else/);
    await adas.context.close();
    expect(textOf(await bob.callTool('guarded__whoami', {}))).toMatch(/not connected yet/);

    // Nothing was used up: Bob's own callback connects him, as himself.
    await bobs.page.goto(url.href);
    await bobs.page.getByRole('heading', { level: 1 }).waitFor({ timeout: 20_000 });
    expect(await bobs.page.locator('main').innerText()).toMatch(/Your account on guarded is connected/);
    await bobs.context.close();
    expect(JSON.parse(textOf(await bob.callTool('guarded__whoami', {})))).toMatchObject({ sub: 'bob-at-upstream' });
    expect(JSON.parse(textOf(await ada.callTool('guarded__whoami', {})))).toMatchObject({ sub: 'ada-at-upstream' });
  }, 120_000);

  it('refuses an authorization server whose token endpoint is on another host, sending it nothing', async () => {
    const opened = await openSignedIn(await linkFor(ada, 'crooked__whoami'), ADA);
    expect(await refusal(opened.page)).toMatch(/token_endpoint on another host/);
    await opened.context.close();
    expect(crooked.tokenHostRequests()).toBe(0);
    expect(textOf(await ada.callTool('crooked__whoami', {}))).toMatch(/not connected yet/);
  }, 60_000);

  it('writes no code, token or verifier in any log line', () => {
    const logged = JSON.stringify([...signIn.gateway.logs, ...shortLinks.gateway.logs]);
    const secrets = upstreamIdp.received.tokenRequests.flatMap((request) => [request.code, request.code_verifier, request.refresh_token]).filter((value): value is string => value !== undefined);
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    for (const secret of secrets) expect(logged).not.toContain(secret);
  });
});
