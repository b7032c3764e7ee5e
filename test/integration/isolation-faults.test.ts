// Fault isolation for session-isolated servers: one caller's per-user upstream or identity
// provider that hangs, answers slowly or refuses must cost nothing to requests that do not need it
// (ping, a call to a shared server), and a list only its own bound. Real parts throughout: a token
// endpoint and an MCP upstream that accept connections and never answer, a proxy that holds one
// caller's requests to a real upstream and delays another's, an identity provider that refuses.
// Assertions are bounds, never exact timings.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startFaultyProxy, startSilentPort, type FaultyProxy, type SilentPort } from '../support/faulty-upstreams.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { startTokenExchangeServer, type TokenExchangeServer } from '../support/token-exchange-server.js';
import { startHttpFixture, stdioFixture, type HttpUpstream } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const CLIENT_ID = 'switchboard';
const CLIENT_SECRET = 'exchange-client-secret';
/** The hanging servers' own timeouts: what a request that waited on them would take. */
const HUNG_TIMEOUT_MS = 4_000;
const EXCHANGE_TIMEOUT_MS = 8_000;
/** What a list waits for a caller's first connection (mcpServers.*.listConnectTimeoutMs). */
const LIST_BOUND_MS = 1_000;
/** Well under every hanging server's timeout, with room for a loaded test machine. */
const FAST_MS = 1_500;

let issuer: LocalIssuer;
let refusingIdp: TokenExchangeServer;
let headerEcho: HttpUpstream;
let silentTokenEndpoint: SilentPort;
let silentUpstream: SilentPort;
/** Holds alice's requests (by her perUser secret) to a working upstream; passes bob's. */
let picky: FaultyProxy;
/** Passes every request to a working upstream, later than the list bound. */
let slow: FaultyProxy;
let gateway: TestGateway;
const clients: Client[] = [];

beforeAll(async () => {
  const secrets = join(mkdtempSync(join(tmpdir(), 'switchboard-faults-')), 'secrets');
  mkdirSync(secrets);
  writeFileSync(join(secrets, 'alice'), 'alice-secret\n');
  writeFileSync(join(secrets, 'bob'), 'bob-secret\n');
  [issuer, headerEcho, silentTokenEndpoint, silentUpstream] = await Promise.all([
    startLocalIssuer(PUBLIC_URL),
    startHttpFixture('header-echo-server'),
    startSilentPort('/token'),
    startSilentPort('/mcp'),
  ]);
  refusingIdp = await startTokenExchangeServer({
    trust: { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: PUBLIC_URL },
    clients: [{ clientId: CLIENT_ID, authentication: 'client_secret_basic', secret: CLIENT_SECRET }],
    audiences: ['https://refused.switchboard.test'],
    expiresIn: 60,
  });
  refusingIdp.refuse('access_denied', 'not for you');
  picky = await startFaultyProxy(headerEcho.url, (request) => (request.headers['x-api-key'] === 'alice-secret' ? 'hang' : { delayMs: 0 }));
  slow = await startFaultyProxy(headerEcho.url, () => ({ delayMs: LIST_BOUND_MS + 500 }));
  const tokenExchange = (tokenEndpoint: string) => ({
    tokenExchange: { tokenEndpoint, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, audience: 'https://refused.switchboard.test', timeoutMs: EXCHANGE_TIMEOUT_MS },
  });
  const perSession = { isolation: 'session', listConnectTimeoutMs: LIST_BOUND_MS } as const;
  gateway = await startGateway({
    server: { publicUrl: PUBLIC_URL },
    auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
    mcpServers: {
      common: stdioFixture('twin-server', { TWIN_LABEL: 'common' }),
      hung: { url: silentUpstream.url, ...perSession, timeoutMs: HUNG_TIMEOUT_MS },
      exchanged: { url: headerEcho.url, ...perSession, credentials: tokenExchange(silentTokenEndpoint.url) },
      refused: { url: headerEcho.url, ...perSession, credentials: tokenExchange(refusingIdp.tokenEndpoint) },
      picky: { url: picky.url, ...perSession, timeoutMs: HUNG_TIMEOUT_MS, credentials: { perUser: { directory: secrets, header: 'X-Api-Key' } } },
      slow: { url: slow.url, ...perSession },
    },
  });
  // A replica's first request waits for the shared upstreams to start, and fetches the issuer's
  // keys: what is measured below is every request after that.
  await (await clientAs('warm-up')).ping();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await gateway?.close();
  await Promise.all([headerEcho?.stop(), silentTokenEndpoint?.stop(), silentUpstream?.stop(), picky?.stop(), slow?.stop(), refusingIdp?.stop(), issuer?.stop()]);
});

async function clientAs(sub: string): Promise<Client> {
  const token = await issuer.token({ sub });
  const client = new Client({ name: `client-of-${sub}`, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

function untouched(): Record<string, number> {
  return {
    tokenEndpoint: silentTokenEndpoint.connections,
    hungUpstream: silentUpstream.connections,
    picky: picky.requests,
    slow: slow.requests,
    refusals: refusingIdp.exchangesFor('carol'),
  };
}

describe('with per-user upstreams and token endpoints that hang, answer slowly or refuse', () => {
  it('answers initialize, ping and a call to a shared server at once, opening no per-user upstream and exchanging no token', async () => {
    const before = untouched();
    const { result: carol, ms: connectMs } = await timed(() => clientAs('carol'));
    const { ms: pingMs } = await timed(() => carol.ping());
    const { result: call, ms: callMs } = await timed(() => carol.callTool({ name: 'common__whoami', arguments: {} }));
    expect((call.content as { text: string }[])[0]!.text).toContain('common');
    expect(connectMs).toBeLessThan(FAST_MS);
    expect(pingMs).toBeLessThan(FAST_MS);
    expect(callMs).toBeLessThan(FAST_MS);
    expect(untouched()).toEqual(before);
  });

  it('lists within the bound, leaving a hanging server out for the caller it hangs for only, for two users at once', async () => {
    const [alice, bob] = await Promise.all([clientAs('alice'), clientAs('bob')]);
    let toldBob!: () => void;
    const bobTold = new Promise<void>((resolve) => (toldBob = resolve));
    bob.setNotificationHandler('notifications/tools/list_changed', () => toldBob());
    const [forAlice, forBob] = await Promise.all([timed(() => toolNames(alice)), timed(() => toolNames(bob))]);
    for (const { ms } of [forAlice, forBob]) {
      expect(ms).toBeLessThan(LIST_BOUND_MS + FAST_MS);
      expect(ms).toBeLessThan(HUNG_TIMEOUT_MS);
    }
    expect(forAlice.result).toContain('common__whoami');
    expect(forBob.result).toContain('common__whoami');
    // Held for alice only: bob has it.
    expect(forAlice.result).not.toContain('picky__last_headers');
    expect(forBob.result).toContain('picky__last_headers');
    for (const names of [forAlice.result, forBob.result]) {
      expect(names.some((name) => name.startsWith('hung__') || name.startsWith('exchanged__') || name.startsWith('refused__'))).toBe(false);
    }

    // While the hanging connections are still being made: ping and a shared call do not wait on them.
    expect((await timed(() => alice.ping())).ms).toBeLessThan(FAST_MS);
    expect((await timed(() => alice.callTool({ name: 'common__whoami', arguments: {} }))).ms).toBeLessThan(FAST_MS);
    // A second list shares the first's attempt: one exchange per caller, not one per list.
    const exchanges = silentTokenEndpoint.connections;
    expect((await timed(() => toolNames(alice))).ms).toBeLessThan(LIST_BOUND_MS + FAST_MS);
    expect(silentTokenEndpoint.connections).toBe(exchanges);
    // The refusal is remembered: the provider is asked once per caller.
    expect(refusingIdp.exchangesFor('alice')).toBe(1);

    // The slow upstream misses the first list's bound; once it has answered, bob is told his lists
    // changed (the only list_changed he gets: the hung servers never answer), and his next list has it.
    expect(forBob.result).not.toContain('slow__last_headers');
    await bobTold;
    expect(await toolNames(bob)).toContain('slow__last_headers');
  });

  it('shows the servers lists go without in /readyz and on the status page, and logs each once per spell', async () => {
    const ready = (await (await fetch(new URL('/readyz', gateway.url))).json()) as { status: string; leftOutOfLists?: Record<string, { since: string; reason: string }> };
    expect(ready.status).toBe('ready');
    expect(Object.keys(ready.leftOutOfLists ?? {})).toEqual(expect.arrayContaining(['hung', 'exchanged']));
    // The last list's reason: at first it did not answer in time; once its first attempt failed, it is not connected.
    expect(ready.leftOutOfLists?.hung?.reason).toMatch(/within 1000 ms|"hung"/);

    const operator = await issuer.token({ sub: 'operator', scope: 'mcp switchboard:admin' });
    const status = (await (await fetch(new URL('/api/status', gateway.adminUrl), { headers: { authorization: `Bearer ${operator}` } })).json()) as { upstreams: { name: string; lastError: string | null; since: string | null }[] };
    const hung = status.upstreams.find((upstream) => upstream.name === 'hung');
    expect(hung?.lastError).toBe(ready.leftOutOfLists?.hung?.reason);
    expect(hung?.since).not.toBeNull();

    const spells = gateway.logs.filter((line) => line.msg === 'a session-isolated upstream is left out of lists until it answers' && line.server === 'hung');
    expect(spells).toHaveLength(1);
  });

  it("makes a call of the hanging server's own tool wait that server's own timeout, and say why", async () => {
    const alice = await clientAs('alice');
    const { result: failure, ms } = await timed(() =>
      alice.callTool({ name: 'exchanged__last_headers', arguments: {} }).then(
        () => undefined,
        (error: unknown) => error as Error,
      ),
    );
    // The exchange the lists above started (shared), or its outage remembered since.
    expect(failure?.message).toContain(`its token endpoint ${silentTokenEndpoint.url} did not answer within ${EXCHANGE_TIMEOUT_MS} ms`);
    expect(ms).toBeLessThan(EXCHANGE_TIMEOUT_MS + FAST_MS);
  });
});
