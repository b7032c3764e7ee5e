// The 2024-11-05 HTTP+SSE transport (server.ssePath) for the oldest clients: the v1 SDK's
// SSEClientTransport against a real gateway in front of real upstreams, the same access control as
// the MCP endpoint, and two replicas sharing Redis, the stream on one and the POSTs on the other.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { CreateMessageRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startGatewayProcess, writeConfigFile, type GatewayProcess } from '../support/gateway-process.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { connect, type TestClient } from '../support/mcp-clients.js';
import { scrapeMetrics } from '../support/metrics-scrape.js';
import { listAll } from '../support/paging.js';
import { rawPost, rawRequest, type RawResponse } from '../support/raw-http.js';
import { firstText } from '../support/recording-client.js';
import { redisUrl, uniqueKeyPrefix } from '../support/redis.js';
import { openSse, type SseConnection } from '../support/sse-reader.js';
import { everythingStdio, stdioFixture } from '../support/upstreams.js';

const CLIENT_INFO = { name: 'legacy-sse-test', version: '1.0.0' };

/** The gateway's legacy stream URL, next to its MCP endpoint. */
function sseUrl(mcpUrl: string, ssePath = '/sse'): string {
  return new URL(ssePath, mcpUrl).href;
}

interface LegacyClient {
  readonly client: Client;
  /** How many tools/list_changed notifications arrived, and a way to wait for the next one. */
  readonly listChanges: { count: number; next: Promise<void> };
  close(): Promise<void>;
}

/** The v1 SDK client over the 2024-11-05 transport, able to sample, as an old desktop client is. */
async function connectLegacy(url: string, headers?: Record<string, string>): Promise<LegacyClient> {
  const client = new Client(CLIENT_INFO, { capabilities: { sampling: {} } });
  let arrived: () => void = () => {};
  const listChanges = { count: 0, next: new Promise<void>((resolve) => (arrived = resolve)) };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanges.count += 1;
    arrived();
    listChanges.next = new Promise<void>((resolve) => (arrived = resolve));
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const content = request.params.messages[0]?.content;
    const prompt = content && 'text' in content ? String(content.text) : '';
    return { role: 'assistant', content: { type: 'text', text: `sampled over SSE: ${prompt}` }, model: 'legacy-model' };
  });
  const transport = new SSEClientTransport(new URL(url), headers && { requestInit: { headers } });
  await client.connect(transport);
  return { client, listChanges, close: () => client.close() };
}

/** Opens a raw legacy stream and reads its endpoint event: the absolute URL to POST to. */
async function openLegacyStream(url: string, headers: Record<string, string> = {}): Promise<{ stream: SseConnection; endpoint: string }> {
  const stream = await openSse(url, { headers });
  expect(stream.status).toBe(200);
  const first = await stream.next();
  expect(first?.event).toBe('endpoint');
  return { stream, endpoint: new URL(first?.data ?? '', url).href };
}

/** The next JSON-RPC message on a stream, skipping nothing: the transport sends only what was asked. */
async function nextMessage(stream: SseConnection): Promise<Record<string, unknown> | undefined> {
  return (await stream.next())?.message;
}

/**
 * The next response on the stream, past any notification: a replica whose upstream connects after
 * the session began tells it the list changed, which is news, not noise, but not what is asked.
 */
async function nextResponse(stream: SseConnection): Promise<Record<string, unknown> | undefined> {
  for (;;) {
    const message = await nextMessage(stream);
    if (message === undefined || 'id' in message) return message;
  }
}

function initialize(protocolVersion: string, id: number | string = 1): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO } };
}

describe('the legacy HTTP+SSE transport, with the v1 SDK client', () => {
  let gateway: TestGateway;
  let modern: TestClient;
  let legacy: LegacyClient;

  beforeAll(async () => {
    // At debug, so that the access lines of plain 202 answers are written too.
    gateway = await startGateway(
      {
        mcpServers: { everything: everythingStdio(), interactive: stdioFixture('interactive-server') },
      },
      { logLevel: 'debug' },
    );
    [modern, legacy] = await Promise.all([connect('v1', gateway.url), connectLegacy(sseUrl(gateway.url))]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([modern?.close(), legacy?.close()]);
    await gateway?.close();
  });

  it('lists exactly the tools that the Streamable HTTP endpoint lists', async () => {
    // Both read raw (a passthrough schema), so no SDK parsing hides a difference.
    const viaSse = await listAll(
      {
        generation: 'v1',
        sessionId: undefined,
        request: (method, params) => legacy.client.request({ method, ...(params && { params }) } as never, z.looseObject({})),
        close: () => legacy.close(),
      },
      'tools/list',
      'tools',
    );
    const viaMcp = await listAll(modern, 'tools/list', 'tools');
    expect(viaSse.length).toBeGreaterThan(0);
    expect(viaSse).toEqual(viaMcp);
  });

  it('calls a tool and gets its result on the stream', async () => {
    const result = await legacy.client.callTool({ name: 'everything__echo', arguments: { message: 'from 2024' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: from 2024' }]);
  });

  it("relays an upstream's sampling request to the client's handler and its answer back", async () => {
    const result = await legacy.client.callTool({ name: 'interactive__ask_sampling', arguments: { prompt: 'hello' } });
    expect(firstText(result)).toContain('sampled over SSE: hello');
  });

  it('delivers tools/list_changed on the stream when an upstream list changes', async () => {
    const before = legacy.listChanges.count;
    const changed = legacy.listChanges.next;
    await legacy.client.callTool({ name: 'interactive__add_tool', arguments: { name: 'added_for_sse' } });
    await changed;
    expect(legacy.listChanges.count).toBe(before + 1);
    const { tools } = await legacy.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('interactive__added_for_sse');
  });

  it('names a POST endpoint under the stream path, answers POSTs with 202, and everything else on the stream', async () => {
    const { stream, endpoint } = await openLegacyStream(sseUrl(gateway.url));
    try {
      expect(new URL(endpoint).pathname).toBe('/sse/message');
      const post = await rawPost(endpoint, initialize('2024-11-05'));
      expect(post.status).toBe(202);
      expect(post.body).toBeUndefined();
      expect([post.headers.get('content-length'), post.headers.get('transfer-encoding')]).toEqual(['0', null]);
      expect(await nextMessage(stream)).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05', serverInfo: { name: expect.any(String) } } });
      expect((await rawPost(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
      expect((await rawPost(endpoint, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(202);
      expect(await nextMessage(stream)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    } finally {
      stream.abort();
    }
  });

  it('refuses what the MCP endpoint refuses: no session, an unknown one, malformed JSON, a batch', async () => {
    const { stream, endpoint } = await openLegacyStream(sseUrl(gateway.url));
    try {
      const messageUrl = new URL('/sse/message', gateway.url).href;
      expect((await rawPost(messageUrl, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(400);
      expect(await rawPost(`${messageUrl}?sessionId=AAAAAAAAAAAAAAAAAAAAAA`, { jsonrpc: '2.0', id: 7, method: 'ping' })).toMatchObject({ status: 404, body: { id: 7 } });
      // Not initialized yet: the id names a stream, not a session.
      expect((await rawPost(endpoint, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(404);
      const malformed = await rawPost(endpoint, '{"jsonrpc":');
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ error: { code: -32700 } });
      expect((await rawPost(endpoint, [initialize('2024-11-05')])).status).toBe(400);
    } finally {
      stream.abort();
    }
  });

  it('counts and logs its requests under the two fixed routes, never the session id', async () => {
    const { stream, endpoint } = await openLegacyStream(sseUrl(gateway.url));
    const sessionId = new URL(endpoint).searchParams.get('sessionId') ?? '';
    try {
      await rawPost(endpoint, initialize('2024-11-05'));
      await nextMessage(stream);
    } finally {
      stream.abort();
    }
    const scrape = await scrapeMetrics(gateway.url);
    expect(scrape.value('switchboard_http_requests_total', { route: '/sse', method: 'GET', status: '200' })).toBeGreaterThan(0);
    expect(scrape.value('switchboard_http_requests_total', { route: '/sse/message', method: 'POST', status: '202' })).toBeGreaterThan(0);
    expect(scrape.text).not.toContain(sessionId);
    const posted = gateway.logs.filter((line) => line.msg === 'http request' && line.path === '/sse/message');
    expect(posted).toContainEqual(expect.objectContaining({ level: 'debug', status: 202, session: sessionId.slice(0, 8) }));
    expect(JSON.stringify(gateway.logs)).not.toContain(sessionId);
  });

  it('ends the session when its stream closes, as DELETE does on the MCP endpoint', async () => {
    const { stream, endpoint } = await openLegacyStream(sseUrl(gateway.url));
    await rawPost(endpoint, initialize('2024-11-05'));
    expect(await nextMessage(stream)).toMatchObject({ id: 1, result: {} });
    expect((await rawPost(endpoint, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(202);
    stream.abort();
    // The gateway learns of the closed connection on its own time: wait until it has.
    await vi.waitFor(async () => expect((await rawPost(endpoint, { jsonrpc: '2.0', id: 3, method: 'ping' })).status).toBe(404), { timeout: 5_000 });
  });
});

describe('server.ssePath', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway({ server: { ssePath: '' }, mcpServers: {} });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
  });

  it('"" turns the legacy transport off: its paths are not found', async () => {
    expect((await rawRequest(sseUrl(gateway.url), 'GET', { accept: 'text/event-stream' })).status).toBe(404);
    expect((await rawPost(new URL('/sse/message?sessionId=AAAAAAAAAAAAAAAAAAAAAA', gateway.url).href, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(404);
  });
});

describe('the legacy transport behind the MCP endpoint access control', () => {
  const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
  let issuer: LocalIssuer;
  let gateway: TestGateway;

  beforeAll(async () => {
    issuer = await startLocalIssuer(PUBLIC_URL);
    gateway = await startGateway({
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri, requiredScopes: ['mcp'] },
      mcpServers: {},
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await issuer?.stop();
  });

  const bearer = async (sub: string) => ({ authorization: `Bearer ${await issuer.token({ sub, scope: 'mcp' })}` });

  it('answers a stream or a POST without a token with 401 and the same challenge as the MCP endpoint', async () => {
    const mcp = await rawPost(gateway.url, initialize('2025-11-25'));
    const stream = await rawRequest(sseUrl(gateway.url), 'GET', { accept: 'text/event-stream' });
    const post = await rawPost(new URL('/sse/message?sessionId=AAAAAAAAAAAAAAAAAAAAAA', gateway.url).href, initialize('2024-11-05'));
    for (const refused of [stream, post]) {
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(mcp.headers.get('www-authenticate'));
    }
    expect(mcp.headers.get('www-authenticate')).toContain('resource_metadata="https://mcp.switchboard.test/.well-known/oauth-protected-resource/mcp"');
  });

  it('serves the v1 client with a token, and answers another principal with 404 for its session', async () => {
    const alice = await bearer('alice');
    const { stream, endpoint } = await openLegacyStream(sseUrl(gateway.url), alice);
    try {
      expect((await rawPost(endpoint, initialize('2024-11-05'), { headers: alice })).status).toBe(202);
      expect(await nextMessage(stream)).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05' } });
      const mallory = await bearer('mallory');
      expect((await rawPost(endpoint, { jsonrpc: '2.0', id: 2, method: 'ping' }, { headers: mallory })).status).toBe(404);
      expect((await rawPost(endpoint, initialize('2024-11-05', 3), { headers: mallory })).status).toBe(404);
      expect((await rawPost(endpoint, { jsonrpc: '2.0', id: 4, method: 'ping' }, { headers: alice })).status).toBe(202);
      expect(await nextMessage(stream)).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    } finally {
      stream.abort();
    }

    const client = await connectLegacy(sseUrl(gateway.url), await bearer('bob'));
    try {
      expect(await client.client.ping()).toEqual({});
    } finally {
      await client.close();
    }
  });

  it("never carries another principal's session: a stream whose id someone else initialized ends", async () => {
    const { stream, endpoint } = await openLegacyStream(sseUrl(gateway.url), await bearer('alice'));
    const mallory = await bearer('mallory');
    expect((await rawPost(endpoint, initialize('2024-11-05'), { headers: mallory })).status).toBe(202);
    expect(await stream.next()).toBeUndefined();
    await vi.waitFor(async () => expect((await rawPost(endpoint, { jsonrpc: '2.0', id: 2, method: 'ping' }, { headers: mallory })).status).toBe(404), {
      timeout: 5_000,
    });
  });

  it('refuses a foreign Origin with 403, on the stream and on the POST endpoint', async () => {
    const evil = { origin: 'https://evil.example.com', ...(await bearer('alice')) };
    const stream = await rawRequest(sseUrl(gateway.url), 'GET', { accept: 'text/event-stream', ...evil });
    const post = await rawPost(new URL('/sse/message?sessionId=AAAAAAAAAAAAAAAAAAAAAA', gateway.url).href, initialize('2024-11-05'), { headers: evil });
    expect(stream.status).toBe(403);
    expect(post.status).toBe(403);
  });
});

describe('the legacy transport across two replicas sharing Redis', () => {
  let replicas: GatewayProcess[] = [];

  beforeAll(async () => {
    const config = writeConfigFile({
      sessions: { store: 'redis', redisUrl: redisUrl(), keyPrefix: uniqueKeyPrefix('legacy-sse') },
      mcpServers: { everything: everythingStdio() },
    });
    replicas = await Promise.all([startGatewayProcess(config), startGatewayProcess(config)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
  });

  /** The endpoint the stream named, on the other replica: what a load balancer may do with a POST. */
  function onReplica(endpoint: string, replica: GatewayProcess): string {
    const url = new URL(endpoint);
    const other = new URL(replica.url);
    url.host = other.host;
    return url.href;
  }

  async function post(url: string, message: Record<string, unknown>): Promise<RawResponse> {
    const response = await rawPost(url, message);
    expect(response.status).toBe(202);
    return response;
  }

  it("answers POSTs taken by one replica on the stream that another replica holds, and ends the session with the stream", async () => {
    const [first, second] = replicas as [GatewayProcess, GatewayProcess];
    const { stream, endpoint } = await openLegacyStream(sseUrl(first.url));
    const elsewhere = onReplica(endpoint, second);

    await post(elsewhere, initialize('2024-11-05'));
    expect(await nextResponse(stream)).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05' } });
    await post(elsewhere, { jsonrpc: '2.0', method: 'notifications/initialized' });
    await post(elsewhere, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'across replicas' } } });
    expect(await nextResponse(stream)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'Echo: across replicas' }] } });

    stream.abort();
    await vi.waitFor(async () => expect((await rawPost(elsewhere, { jsonrpc: '2.0', id: 3, method: 'ping' })).status).toBe(404), { timeout: 5_000 });
  });

  it('ends the sessions of the streams a replica holds when it shuts down, before it exits', async () => {
    const [first, second] = replicas as [GatewayProcess, GatewayProcess];
    const { stream, endpoint } = await openLegacyStream(sseUrl(first.url));
    const elsewhere = onReplica(endpoint, second);
    await post(elsewhere, initialize('2024-11-05'));
    expect(await nextResponse(stream)).toMatchObject({ id: 1, result: {} });

    await first.stop();
    expect(await stream.next()).toBeUndefined();
    // No client can resume a 2024-11-05 stream, so nothing is left for another replica to serve.
    expect((await rawPost(elsewhere, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(404);
  });
});
