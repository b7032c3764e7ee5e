// credentials.connection, how each era's client is asked to connect (issue 43): a 2025-11-25 client
// that declared URL elicitation gets -32042 and, once the person has connected in their browser,
// notifications/elicitation/complete on that session alone; a 2026-07-28 client gets input_required
// with a URL-mode elicitation/create, and its retry makes the call again; a client without URL
// elicitation reading a resource or getting a prompt gets -32004 with the link in `data.url`.
// Real parts throughout: a gateway in sign-in mode, the v2 SDK client, Chromium, a second
// oidc-provider as the upstream's authorization server and the guarded fixture server.
import { UrlElicitationRequiredError, type Client, type ClientCapabilities, type ElicitRequestURLParams } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { skipWithoutChromium } from '../support/browser.js';
import { ADA_UPSTREAM, BOB_UPSTREAM, connectInBrowser, textOf } from '../support/connect-account.js';
import { ADA, BOB, startSignInTeam, type SignInGateway, type SignInTeam } from '../support/sign-in-team.js';
import type { SignedInClient } from '../support/sdk-sign-in.js';
import { startTeamIdp, type TeamIdp, type TeamIdpAccount } from '../support/team-idp.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

const URL_ELICITATION: ClientCapabilities = { elicitation: { url: {} } };
const WHOAMI = { name: 'guarded__whoami', arguments: {} };

describe.skipIf(skipWithoutChromium())('each era asks the person to connect their account on an upstream', () => {
  let team: SignInTeam;
  let upstreamIdp: TeamIdp;
  let guarded: HttpUpstream;
  let signIn: SignInGateway;
  let browser: Browser;
  const clients: SignedInClient[] = [];

  beforeAll(async () => {
    team = await startSignInTeam();
    browser = team.browser;
    upstreamIdp = await startTeamIdp({ profile: 'open', accounts: [ADA_UPSTREAM, BOB_UPSTREAM] });
    guarded = await startGuardedServer({ jwks: { url: upstreamIdp.jwksUri, audience: 'resource', issuer: upstreamIdp.issuer } });
    signIn = await team.startGateway({}, { mcpServers: { guarded: { url: guarded.url, isolation: 'session', credentials: { connection: { scopes: ['mcp', 'offline_access'] } } } } });
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await team?.close();
    await guarded?.stop();
    await upstreamIdp?.stop();
  });

  /** A v2 SDK client signed in as `account`, declaring `capabilities`, with its handlers set by `prepare`. */
  async function sdkClient(account: TeamIdpAccount, options: { capabilities?: ClientCapabilities; prepare?: (client: Client) => void; revision?: '2026-07-28' } = {}): Promise<Client> {
    const app = await team.clientApp();
    const { client } = await team.signInWithSdk(signIn.gateway, app, { generation: 'v2', account, consent: 'allow', ...options });
    clients.push(client);
    return client.sdk!;
  }

  /** A 2025 client with URL elicitation that notes the completion notifications it gets. */
  async function notedClient(account: TeamIdpAccount): Promise<{ client: Client; completed: string[] }> {
    const completed: string[] = [];
    const client = await sdkClient(account, {
      capabilities: URL_ELICITATION,
      prepare: (sdk) => sdk.setNotificationHandler('notifications/elicitation/complete', (notification) => void completed.push(notification.params.elicitationId)),
    });
    return { client, completed };
  }

  const refusalOf = (promise: Promise<unknown>): Promise<unknown> => promise.then((result) => ({ unexpected: result }), (error: unknown) => error);

  it('asks a 2025 client with URL elicitation by -32042, tells that session alone when Ada has connected, and the retry reaches the upstream as her', async () => {
    const ada = await notedClient(ADA);
    const adaElsewhere = await notedClient(ADA);
    const bob = await notedClient(BOB);

    const asked = await refusalOf(ada.client.callTool(WHOAMI));
    expect(asked).toBeInstanceOf(UrlElicitationRequiredError);
    const { code, elicitations } = asked as UrlElicitationRequiredError;
    expect(code).toBe(-32042);
    expect(elicitations).toHaveLength(1);
    const elicitation = elicitations[0]!;
    expect(elicitation).toEqual({ mode: 'url', elicitationId: expect.any(String), url: expect.stringContaining(`${new URL(signIn.gateway.url).origin}/connections/connect/`), message: expect.stringContaining('guarded') });
    // Her other session and Bob's are asked with elicitations of their own.
    const elsewhere = (await refusalOf(adaElsewhere.client.callTool(WHOAMI))) as UrlElicitationRequiredError;
    expect(elsewhere.elicitations[0]!.elicitationId).not.toBe(elicitation.elicitationId);
    expect(await refusalOf(bob.client.callTool(WHOAMI))).toBeInstanceOf(UrlElicitationRequiredError);

    expect(await connectInBrowser(browser, elicitation.url, ADA, ADA_UPSTREAM)).toMatch(/Your account on guarded is connected/);
    await vi.waitFor(() => expect(ada.completed).toEqual([elicitation.elicitationId]), { timeout: 10_000, interval: 100 });
    const retried = await ada.client.callTool(WHOAMI);
    expect(retried.isError, textOf(retried)).not.toBe(true);
    expect(JSON.parse(textOf(retried))).toMatchObject({ via: 'jwt', sub: 'ada-at-upstream' });
    // Only the session the elicitation was given to is told (2025-11-25: "only to the client that
    // initiated"); her other session calls as her now too, without being told.
    expect(JSON.parse(textOf(await adaElsewhere.client.callTool(WHOAMI)))).toMatchObject({ sub: 'ada-at-upstream' });
    expect(adaElsewhere.completed).toEqual([]);
    expect(bob.completed).toEqual([]);
  }, 120_000);

  it('answers a client without URL elicitation -32004 with the link in data.url for a prompt and a resource', async () => {
    const bob = await sdkClient(BOB);
    const { resources } = await bob.listResources();
    const account = resources.find((resource) => resource.name.endsWith('account'));
    expect(account, JSON.stringify(resources)).toBeDefined();

    for (const refused of [await refusalOf(bob.getPrompt({ name: 'guarded__my_account' })), await refusalOf(bob.readResource({ uri: account!.uri }))]) {
      expect(refused).toMatchObject({ code: -32004, data: { server: 'guarded', reason: 'connect', url: expect.stringContaining('/connections/connect/') } });
      const { message, data } = refused as { message: string; data: { url: string } };
      expect(message).toContain(data.url);
    }
    // Ada, connected, gets both as her own account.
    const ada = await sdkClient(ADA);
    expect(JSON.stringify(await ada.getPrompt({ name: 'guarded__my_account' }))).toContain('account ada-at-upstream');
    expect(JSON.stringify(await ada.readResource({ uri: account!.uri }))).toContain('account ada-at-upstream');
  }, 90_000);

  it('asks a 2026 client through input_required: declined, the link comes in words; accepted, the retry makes the call again', async () => {
    const asked: ElicitRequestURLParams[] = [];
    const declining = await sdkClient(BOB, {
      revision: '2026-07-28',
      capabilities: URL_ELICITATION,
      prepare: (sdk) =>
        sdk.setRequestHandler('elicitation/create', (request) => {
          asked.push(request.params as ElicitRequestURLParams);
          return { action: 'decline' };
        }),
    });
    const declined = await declining.callTool(WHOAMI);
    expect(asked).toHaveLength(1);
    // 2026-07-28 has no elicitationId and no -32042: only the URL and a message.
    expect(asked[0]).toEqual({ mode: 'url', url: expect.stringContaining('/connections/connect/'), message: expect.stringContaining('guarded') });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toMatch(/not connected yet.*\/connections\/connect\//s);

    // The first time Bob only says yes (he is still in his browser when the retry comes, and the
    // gateway waits for him a while, then asks again); the second time he has connected.
    const links: string[] = [];
    const connecting = await sdkClient(BOB, {
      revision: '2026-07-28',
      capabilities: URL_ELICITATION,
      prepare: (sdk) =>
        sdk.setRequestHandler('elicitation/create', async (request) => {
          const { url } = request.params as ElicitRequestURLParams;
          links.push(url);
          if (links.length === 2) expect(await connectInBrowser(browser, url, BOB, BOB_UPSTREAM)).toMatch(/connected/);
          return { action: 'accept' };
        }),
    });
    const result = await connecting.callTool(WHOAMI);
    expect(links).toHaveLength(2);
    expect(links[1]).not.toBe(links[0]);
    expect(result.isError, textOf(result)).not.toBe(true);
    expect(JSON.parse(textOf(result))).toMatchObject({ via: 'jwt', sub: 'bob-at-upstream' });
  }, 150_000);
});
