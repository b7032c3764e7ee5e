// Sessions that end, and sessions that clients never end. Whichever way a 2025 session ends (the
// client's DELETE, its idle expiry, a shutdown that takes memory sessions with it, or its
// principal's cap on live sessions), each upstream session it opened over HTTP is ended too: the
// transport spec's "a client that no longer needs a session SHOULD send DELETE", which the gateway
// is for its upstreams. The upstream here records the DELETEs it receives.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { END_UPSTREAM_SESSION_TIMEOUT_MS } from '../../src/upstream/end-session.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, validClaims, type LocalIssuer } from '../support/local-issuer.js';
import { rawPost, rawRequest } from '../support/raw-http.js';
import { startRecordingUpstream, type RecordingUpstream } from '../support/recording-upstream.js';
import { redisUrl } from '../support/redis.js';
import { openSse } from '../support/sse-reader.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';

let upstream: RecordingUpstream;
const gateways: TestGateway[] = [];

beforeAll(async () => {
  upstream = await startRecordingUpstream();
});

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await upstream?.stop();
});

async function gatewayWith(config: ConfigInput = {}): Promise<TestGateway> {
  const gateway = await startGateway({ mcpServers: { rec: { url: upstream.url, isolation: 'session' } }, ...config });
  gateways.push(gateway);
  return gateway;
}

function authorization(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

async function initialize(url: string, token?: string): Promise<string> {
  const headers = authorization(token);
  const init = await rawPost(
    url,
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'session-ends', version: '1' } } },
    { headers },
  );
  const sessionId = init.headers.get('mcp-session-id');
  if (init.status !== 200 || sessionId === null) throw new Error(`initialize failed: ${init.status} ${JSON.stringify(init.body)}`);
  await rawPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId, headers });
  return sessionId;
}

/** Calls the upstream's `session` tool on the gateway session: the upstream session id it runs on. */
async function upstreamSessionOf(url: string, sessionId: string, token?: string): Promise<string> {
  const answer = await callOn(url, sessionId, token);
  expect(answer.status).toBe(200);
  const text = (answer.body as { result?: { content?: { text?: string }[] } }).result?.content?.[0]?.text;
  expect(text).toMatch(/^[0-9a-f-]{36}$/);
  return text!;
}

function callOn(url: string, sessionId: string, token?: string): ReturnType<typeof rawPost> {
  return rawPost(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'rec__session', arguments: {} } }, { sessionId, headers: authorization(token) });
}

function deletedSessions(): (string | null)[] {
  return upstream.deletes.map((deleted) => deleted.sessionId);
}

describe('a session that ends ends its upstream sessions', () => {
  it("sends DELETE for the upstream session before the client's DELETE is answered", async () => {
    const gateway = await gatewayWith();
    const sessionId = await initialize(gateway.url);
    const opened = await upstreamSessionOf(gateway.url, sessionId);
    expect(upstream.open.has(opened)).toBe(true);
    const started = Date.now();
    const answer = await rawRequest(gateway.url, 'DELETE', { 'mcp-session-id': sessionId });
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(END_UPSTREAM_SESSION_TIMEOUT_MS + 2_000);
    expect(upstream.deletes.find((deleted) => deleted.sessionId === opened)).toMatchObject({ status: 200, headers: { 'mcp-protocol-version': expect.any(String) } });
    expect(upstream.open.has(opened)).toBe(false);
  });

  it('sends DELETE for the upstream session of a session that expired idle', async () => {
    const gateway = await gatewayWith({ sessions: { idleTimeoutSeconds: 1 } });
    const sessionId = await initialize(gateway.url);
    const opened = await upstreamSessionOf(gateway.url, sessionId);
    // The sweep runs every idle timeout (here 1 s): the session is gone after 1 s, its upstream soon after.
    await expect.poll(deletedSessions, { timeout: 10_000, interval: 100 }).toContain(opened);
    expect((await callOn(gateway.url, sessionId)).status).toBe(404);
    expect(upstream.open.has(opened)).toBe(false);
  });

  it('sends DELETE for the upstream sessions of memory sessions when the gateway shuts down', async () => {
    const gateway = await gatewayWith();
    const opened = await upstreamSessionOf(gateway.url, await initialize(gateway.url));
    await gateway.close();
    expect(deletedSessions()).toContain(opened);
  });

  it('leaves an idle session that is still live, and its upstream session, alone', async () => {
    const gateway = await gatewayWith({ sessions: { idleTimeoutSeconds: 1 } });
    const sessionId = await initialize(gateway.url);
    const opened = await upstreamSessionOf(gateway.url, sessionId);
    // Used again and again past its connection's idle time, through another method: still live.
    for (let ping = 0; ping < 6; ping += 1) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await rawPost(gateway.url, { jsonrpc: '2.0', id: 3, method: 'ping' }, { sessionId })).status).toBe(200);
    }
    expect(deletedSessions()).not.toContain(opened);
    expect(await upstreamSessionOf(gateway.url, sessionId)).toBe(opened);
  });
});

describe('a session that never made a request after initialize', () => {
  it('expires after sessions.unusedIdleTimeoutSeconds, while one that made a request lives on', async () => {
    const gateway = await gatewayWith({ sessions: { idleTimeoutSeconds: 60, unusedIdleTimeoutSeconds: 1 } });
    const [walkedAway, working] = await Promise.all([initialize(gateway.url), initialize(gateway.url)]);
    expect((await rawPost(gateway.url, { jsonrpc: '2.0', id: 3, method: 'ping' }, { sessionId: working })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await rawPost(gateway.url, { jsonrpc: '2.0', id: 4, method: 'ping' }, { sessionId: walkedAway })).status).toBe(404);
    expect((await rawPost(gateway.url, { jsonrpc: '2.0', id: 4, method: 'ping' }, { sessionId: working })).status).toBe(200);
  });
});

describe("a principal's cap on live sessions, across two replicas sharing Redis", () => {
  let issuer: LocalIssuer;
  let replicas: TestGateway[];
  const stopped: (() => void)[] = [];

  beforeAll(async () => {
    issuer = await startLocalIssuer(PUBLIC_URL);
    const config: ConfigInput = {
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
      sessions: { store: 'redis', redisUrl: redisUrl(), maxPerPrincipal: 2 },
    };
    replicas = [await gatewayWith(config), await gatewayWith(config)];
  }, 60_000);

  afterEach(() => {
    for (const stop of stopped.splice(0)) stop();
  });

  afterAll(async () => {
    await issuer?.stop();
  });

  it("ends the principal's session nearest expiry: 404 on its next request, its stream closed, its upstream session ended", async () => {
    const [a, b] = replicas.map((replica) => replica.url) as [string, string];
    const alice = await issuer.token(validClaims(issuer, PUBLIC_URL, { sub: `alice-${Date.now()}` }));
    const bob = await issuer.token(validClaims(issuer, PUBLIC_URL, { sub: `bob-${Date.now()}` }));
    const oldest = await initialize(a, alice);
    const oldestUpstream = await upstreamSessionOf(b, oldest, alice);
    const stream = await openSse(b, { sessionId: oldest, headers: authorization(alice) });
    expect(stream.status).toBe(200);
    stopped.push(() => stream.abort());
    const bobs = await initialize(b, bob);
    const newer = await initialize(b, alice);
    expect((await callOn(a, newer, alice)).status).toBe(200);
    // A third session of Alice's: the cap is 2, so her least recently used one ends.
    const newest = await initialize(a, alice);
    expect((await callOn(b, oldest, alice)).status).toBe(404);
    expect((await callOn(a, oldest, alice)).status).toBe(404);
    await expect.poll(deletedSessions, { timeout: 5_000, interval: 50 }).toContain(oldestUpstream);
    // Its GET stream on the other replica closes (after its priming event, if any).
    let event = await stream.next(5_000);
    while (event !== undefined) event = await stream.next(5_000);
    for (const [url, sessionId, token] of [[b, newer, alice], [a, newest, alice], [a, bobs, bob]] as const) {
      expect((await rawPost(url, { jsonrpc: '2.0', id: 5, method: 'ping' }, { sessionId, headers: authorization(token) })).status).toBe(200);
    }
  });
});
