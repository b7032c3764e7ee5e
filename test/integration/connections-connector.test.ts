// Switchboard as an OAuth client of an upstream's authorization server, per person
// (src/connections/upstream-connector.ts), against a real oidc-provider (the harness's team IdP in
// its 'open' profile: registration, resource indicators, refresh tokens) and Chromium: discovery from
// the upstream's protected resource metadata, dynamic registration, a connect link bound to the
// person, the code exchange and refreshes with `resource`, one refresh at a time, invalid_grant
// turning into "needs reconnecting", and disconnect revoking at the provider.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenSealer } from '../../src/credentials/token-sealing.js';
import { MemoryKeyValueStore } from '../../src/session/memory-key-value.js';
import { ConnectionNeededError, ConnectRefusedError, CONNECT_CALLBACK_PATH, UpstreamConnector } from '../../src/connections/upstream-connector.js';
import { launchBrowser, signInAtTeamIdp, skipWithoutChromium } from '../support/browser.js';
import { startLoopbackCallback, type LoopbackCallback } from '../support/loopback-callback.js';
import { startTeamIdp, type TeamIdp } from '../support/team-idp.js';

const ADA = { sub: 'ada', oid: 'oid-ada', email: 'ada@example.com', name: 'Ada', groups: [], password: 'ada-pw' };
const BOB = { sub: 'bob', oid: 'oid-bob', email: 'bob@example.com', name: 'Bob', groups: [], password: 'bob-pw' };

let idp: TeamIdp;
let metadataServer: Server;
let upstreamUrl: string;
let callback: LoopbackCallback;
let browser: Browser;
const store = new MemoryKeyValueStore();
const sealer = new TokenSealer('a-connections-secret-of-32-characters!', 'connections');
const clock = { offsetMs: 0 };

beforeAll(async () => {
  idp = await startTeamIdp({ profile: 'open', accounts: [ADA, BOB] });
  // The upstream MCP server's protected resource metadata, naming the IdP as its authorization server.
  metadataServer = createServer((request, response) => {
    if (request.url === '/.well-known/oauth-protected-resource/mcp') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ resource: upstreamUrl, authorization_servers: [idp.issuer], scopes_supported: ['mcp', 'offline_access'] }));
    } else response.writeHead(404).end();
  });
  metadataServer.listen(0, '127.0.0.1');
  await once(metadataServer, 'listening');
  upstreamUrl = `http://127.0.0.1:${(metadataServer.address() as AddressInfo).port}/mcp`;
  callback = await startLoopbackCallback(CONNECT_CALLBACK_PATH);
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await callback?.stop();
  metadataServer?.close();
  await idp?.stop();
  await store.close();
});

function connector(): UpstreamConnector {
  return new UpstreamConnector({
    server: 'notes',
    url: upstreamUrl,
    store,
    sealer,
    publicOrigin: new URL(callback.redirectUrl).origin,
    timeoutMs: 5_000,
    now: () => Date.now() + clock.offsetMs,
  });
}

/** The person opens the authorization URL, signs in at the provider, and comes back. */
async function consentInBrowser(url: string, person: typeof ADA): Promise<URL> {
  const page = await browser.newPage();
  try {
    const arrived = callback.next();
    await page.goto(url);
    await signInAtTeamIdp(page, { username: person.email, password: person.password });
    const params = await arrived;
    return new URL(`${callback.redirectUrl}?${params.toString()}`);
  } finally {
    await page.close();
  }
}

describe.skipIf(skipWithoutChromium())('a person connects their account on an upstream', () => {
  it('gets a token for the upstream as themself, with the upstream as its audience', async () => {
    const notes = connector();
    await expect(notes.accessToken('ada')).rejects.toBeInstanceOf(ConnectionNeededError);
    const link = await notes.connectLink('ada');
    const linkId = link.url.split('/').at(-1)!;
    // Another person opening Ada's link is refused, and does not use it up.
    await expect(notes.begin(linkId, 'bob')).rejects.toBeInstanceOf(ConnectRefusedError);
    const authorizationUrl = await notes.begin(linkId, 'ada');
    await expect(notes.begin(linkId, 'ada')).rejects.toThrow(/expired or was already used/);
    const authorization = new URL(authorizationUrl);
    expect(authorization.searchParams.get('resource')).toBe(upstreamUrl);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');

    const returned = await consentInBrowser(authorizationUrl, ADA);
    // Bob's browser cannot complete Ada's connection, nor use up her attempt.
    await expect(connector().complete(returned, 'bob')).rejects.toBeInstanceOf(ConnectRefusedError);
    await notes.complete(returned, 'ada');
    // Completed once: a replay is refused.
    await expect(notes.complete(returned, 'ada')).rejects.toBeInstanceOf(ConnectRefusedError);
    const claims = decodeJwt(await notes.accessToken('ada'));
    expect(claims).toMatchObject({ sub: 'ada', aud: upstreamUrl });
    expect(await notes.status('ada')).toBe('connected');
    expect(await notes.status('bob')).toBe('not-connected');
    const exchange = idp.received.tokenRequests.at(-1)!;
    expect(exchange).toMatchObject({ grant_type: 'authorization_code', resource: upstreamUrl });
  }, 60_000);

  it('refreshes a token about to expire once, with resource, however many calls wait for it', async () => {
    const notes = connector();
    const before = await notes.accessToken('ada');
    clock.offsetMs = 10 * 60_000;
    const refreshesBefore = idp.received.tokenRequests.filter((request) => request.grant_type === 'refresh_token').length;
    const tokens = await Promise.all([notes.accessToken('ada'), notes.accessToken('ada'), connector().accessToken('ada')]);
    const refreshes = idp.received.tokenRequests.filter((request) => request.grant_type === 'refresh_token');
    expect(refreshes.length - refreshesBefore).toBe(1);
    expect(refreshes.at(-1)).toMatchObject({ resource: upstreamUrl });
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(before);
    clock.offsetMs = 0;
  }, 30_000);

  it('turns a refresh token the provider no longer honours into "needs reconnecting", and disconnect revokes', async () => {
    const notes = connector();
    await notes.disconnect('ada');
    expect(await notes.status('ada')).toBe('not-connected');
    await expect(notes.accessToken('ada')).rejects.toMatchObject({ reason: 'not-connected' });
    // Connected again, then the provider forgets the grant: the next refresh is refused.
    await notes.complete(await consentInBrowser(await notes.begin((await notes.connectLink('ada')).url.split('/').at(-1)!, 'ada'), ADA), 'ada');
    idp.revokeAllGrants();
    clock.offsetMs = 10 * 60_000;
    await expect(notes.accessToken('ada')).rejects.toMatchObject({ reason: 'needs-reconnect' });
    expect(await notes.status('ada')).toBe('needs-reconnect');
    clock.offsetMs = 0;
  }, 60_000);
});
