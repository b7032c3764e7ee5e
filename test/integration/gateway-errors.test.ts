// Every row of the contract's "Behaviour at the edges" that belongs to the gateway core, through a
// listening gateway in front of real upstreams, with both session stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connect } from '../support/mcp-clients.js';
import { MCP_ACCEPT, openSession, rawPost, rawRequest, type RawResponse } from '../support/raw-http.js';
import { redisUrl } from '../support/redis.js';
import { everythingStdio, stdioFixture } from '../support/upstreams.js';

const MAX_BODY_BYTES = 64 * 1024;
const SILENT_TIMEOUT_MS = 1_500;

describe.each(['memory', 'redis'] as const)('the gateway with the %s session store', (store) => {
  let gateway: TestGateway;
  let url: string;
  let sessionId: string;
  let nextId = 100;

  beforeAll(async () => {
    gateway = await startGateway({
      server: { maxBodyBytes: MAX_BODY_BYTES },
      sessions: store === 'redis' ? { store: 'redis', redisUrl: redisUrl() } : { store: 'memory' },
      mcpServers: {
        everything: everythingStdio(),
        silent: { ...stdioFixture('silent-server'), timeoutMs: SILENT_TIMEOUT_MS },
        // A server that cannot start: the gateway must serve the others and name this one.
        broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
        // Unprefixed: its names and URIs pass unchanged.
        flat: { ...stdioFixture('twin-server', { TWIN_LABEL: 'flat' }), prefix: '' },
      },
    });
    url = gateway.url;
    ({ sessionId } = await openSession(url));
  }, 60_000);

  afterAll(async () => gateway?.close());

  async function call(method: string, params?: Record<string, unknown>): Promise<RawResponse> {
    nextId += 1;
    return rawPost(url, { jsonrpc: '2.0', id: nextId, method, ...(params && { params }) }, { sessionId });
  }

  function rpcError(response: RawResponse): { code: number; message: string } {
    const error = (response.body as { error?: { code: number; message: string } }).error;
    if (!error) throw new Error(`expected a JSON-RPC error, got ${JSON.stringify(response.body)}`);
    return error;
  }

  describe('transport', () => {
    it('answers a request without Mcp-Session-Id with 400 and -32005 (bad request), and the request\'s id', async () => {
      const response = await rawPost(url, { jsonrpc: '2.0', id: 7, method: 'tools/list' });
      expect(response.status).toBe(400);
      expect(rpcError(response)).toEqual({ code: -32005, message: 'Bad Request: Mcp-Session-Id header is required' });
      expect(response.body).toMatchObject({ id: 7 });
    });

    it('answers an unknown session with 404 and -32006 (session not found), and the request\'s id', async () => {
      const unknown = await rawPost(url, { jsonrpc: '2.0', id: 7, method: 'ping' }, { sessionId: 'AAAAAAAAAAAAAAAAAAAAAA' });
      expect(unknown.status).toBe(404);
      expect(rpcError(unknown)).toEqual({ code: -32006, message: 'Session not found' });
      expect(unknown.body).toMatchObject({ id: 7 });
      const garbage = await rawPost(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { sessionId: 'not a session id at all' });
      expect(garbage.status).toBe(404);
    });

    it('answers a deleted session with 404, and deleting it again too', async () => {
      const { sessionId: doomed } = await openSession(url);
      const deleted = await rawRequest(url, 'DELETE', { 'mcp-session-id': doomed });
      expect(deleted.status).toBe(200);
      expect(deleted.headers.get('content-length')).toBe('0');
      expect(deleted.headers.get('transfer-encoding')).toBeNull();
      expect((await rawPost(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { sessionId: doomed })).status).toBe(404);
      expect((await rawRequest(url, 'DELETE', { 'mcp-session-id': doomed })).status).toBe(404);
    });

    it('answers DELETE without a session id with 400', async () => {
      expect((await rawRequest(url, 'DELETE')).status).toBe(400);
    });

    it('refuses an unsupported MCP-Protocol-Version with 400', async () => {
      const response = await rawPost(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { sessionId, headers: { 'mcp-protocol-version': '1999-01-01' } });
      expect(response.status).toBe(400);
      expect(rpcError(response).code).toBe(-32005);
      expect(rpcError(response).message).toMatch(/MCP-Protocol-Version/);
    });

    it('accepts every supported MCP-Protocol-Version', async () => {
      for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
        const response = await rawPost(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { sessionId, headers: { 'mcp-protocol-version': version } });
        expect(response.status, version).toBe(200);
      }
    });

    it('answers malformed JSON with 400 and -32700', async () => {
      const response = await rawPost(url, '{"jsonrpc": "2.0", "id": 1, "method": ', { sessionId });
      expect(response.status).toBe(400);
      expect(rpcError(response).code).toBe(-32700);
    });

    it('answers a body that is not valid UTF-8 with 400 and -32700', async () => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId },
        body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
    });

    it('answers JSON that is not a JSON-RPC message with 400 and -32600', async () => {
      for (const body of ['{"hello":"world"}', '{"jsonrpc":"1.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":{},"method":"ping"}', '42', '[]']) {
        const response = await rawPost(url, body, { sessionId });
        expect(response.status, body).toBe(400);
        expect(rpcError(response).code, body).toBe(-32600);
      }
    });

    it('answers a POST that does not accept both JSON and SSE with 406 and -32010', async () => {
      const response = await rawPost(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { sessionId, headers: { accept: 'application/json' } });
      expect(response.status).toBe(406);
      expect(rpcError(response).code).toBe(-32010);
    });

    it('answers a POST whose Content-Type is not JSON with 415 and -32012', async () => {
      const response = await rawPost(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { sessionId, headers: { 'content-type': 'text/plain' } });
      expect(response.status).toBe(415);
      expect(rpcError(response).code).toBe(-32012);
    });

    it('takes a JSON Content-Type in any case and with parameters', async () => {
      const response = await rawPost(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { sessionId, headers: { 'content-type': 'Application/JSON; charset=utf-8' } });
      expect(response.status).toBe(200);
    });

    it('answers a body over server.maxBodyBytes with 413 and -32011', async () => {
      const huge = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'x'.repeat(MAX_BODY_BYTES) } } };
      const response = await rawPost(url, huge, { sessionId });
      expect(response.status).toBe(413);
      expect(rpcError(response).code).toBe(-32011);
    });

    it('answers notifications and responses with 202 and no body', async () => {
      const notification = await rawPost(url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 999 } }, { sessionId });
      expect(notification.status).toBe(202);
      expect(notification.body).toBeUndefined();
      // Said with a zero length, not an empty chunked body: nothing for the client to decode.
      expect(notification.headers.get('content-length')).toBe('0');
      expect(notification.headers.get('transfer-encoding')).toBeNull();
      const response = await rawPost(url, { jsonrpc: '2.0', id: 'server-1', result: {} }, { sessionId });
      expect(response.status).toBe(202);
      expect(response.headers.get('content-length')).toBe('0');
    });

    it('answers a plain request with a JSON body', async () => {
      const response = await call('ping');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.body).toEqual({ jsonrpc: '2.0', id: nextId, result: {} });
    });

    it('refuses a batch in a 2025-11-25 session, and answers one in a 2025-03-26 session', async () => {
      const batch = [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'batched' } } },
      ];
      const refused = await rawPost(url, batch, { sessionId });
      expect(refused.status).toBe(400);
      expect(rpcError(refused).code).toBe(-32600);

      const old = await openSession(url, '2025-03-26');
      expect(old.result.protocolVersion).toBe('2025-03-26');
      const answered = await rawPost(url, batch, { sessionId: old.sessionId });
      expect(answered.status).toBe(200);
      expect(answered.body).toEqual([
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Echo: batched' }] } },
      ]);
    });

    it('answers GET without Accept: text/event-stream with 406, and without a session with 400', async () => {
      expect((await rawRequest(url, 'GET', { accept: 'application/json', 'mcp-session-id': sessionId })).status).toBe(406);
      expect((await rawRequest(url, 'GET', { accept: 'text/event-stream' })).status).toBe(400);
    });

    it('answers other HTTP methods with 405, -32009 and the allowed ones', async () => {
      const response = await rawRequest(url, 'PUT', { 'mcp-session-id': sessionId });
      expect(response.status).toBe(405);
      expect(rpcError(response).code).toBe(-32009);
      expect(response.headers.get('allow')).toBe('GET, POST, DELETE');
    });
  });

  describe('initialize', () => {
    it('negotiates each supported protocol version and offers the newest for anything else', async () => {
      for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
        expect((await openSession(url, version)).result.protocolVersion).toBe(version);
      }
      expect((await openSession(url, '2099-01-01')).result.protocolVersion).toBe('2025-11-25');
    });

    it('issues a fresh 128-bit session id per session', async () => {
      const a = await openSession(url);
      const b = await openSession(url);
      expect(a.sessionId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(a.sessionId).not.toBe(b.sessionId);
    });

    it('announces the union of the upstreams capabilities and their instructions by server', async () => {
      const { result } = await openSession(url);
      expect(result.capabilities).toMatchObject({
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        completions: {},
        logging: {},
      });
      expect(result.instructions).toMatch(/## everything/);
      expect(result.serverInfo).toMatchObject({ name: 'switchboard' });
    });

    it('refuses an initialize without clientInfo with -32602', async () => {
      const response = await rawPost(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } });
      expect(rpcError(response).code).toBe(-32602);
      expect(response.headers.get('mcp-session-id')).toBeNull();
    });
  });

  describe('JSON-RPC errors of well-formed requests', () => {
    it('answers an unknown method with -32601', async () => {
      const response = await call('tools/explode');
      expect(response.status).toBe(200);
      expect(rpcError(response).code).toBe(-32601);
    });

    it('answers an unknown tool and an unknown prompt with -32602', async () => {
      expect(rpcError(await call('tools/call', { name: 'everything__nope', arguments: {} })).code).toBe(-32602);
      expect(rpcError(await call('tools/call', { name: 'nothing-like-it', arguments: {} })).code).toBe(-32602);
      expect(rpcError(await call('prompts/get', { name: 'everything__nope' })).code).toBe(-32602);
    });

    it('answers bad params with -32602', async () => {
      expect(rpcError(await call('tools/call', { arguments: {} })).code).toBe(-32602);
      expect(rpcError(await call('resources/read', {})).code).toBe(-32602);
      expect(rpcError(await call('logging/setLevel', { level: 'loud' })).code).toBe(-32602);
      expect(rpcError(await call('completion/complete', { ref: { type: 'ref/other' }, argument: { name: 'a', value: '' } })).code).toBe(-32602);
    });

    it('answers a cursor it did not issue with -32602', async () => {
      for (const cursor of ['garbage', Buffer.from('{"k":"prompts","o":0}').toString('base64url'), Buffer.from('{"k":"tools","o":-1}').toString('base64url')]) {
        expect(rpcError(await call('tools/list', { cursor })).code, cursor).toBe(-32602);
      }
    });

    it('answers an unknown resource with -32002', async () => {
      expect(rpcError(await call('resources/read', { uri: 'demo+nowhere://x' })).code).toBe(-32002);
      expect(rpcError(await call('resources/read', { uri: 'demo+everything://resource/static/document/missing.md' })).code).toBe(-32002);
      expect(rpcError(await call('resources/read', { uri: 'twin://not/listed' })).code).toBe(-32002);
    });

    it('names the upstream that is down, and serves the others meanwhile', async () => {
      const down = rpcError(await call('tools/call', { name: 'broken__anything', arguments: {} }));
      expect(down.message).toMatch(/"broken"/);
      const echo = await call('tools/call', { name: 'everything__echo', arguments: { message: 'still here' } });
      expect(echo.body).toMatchObject({ result: { content: [{ type: 'text', text: 'Echo: still here' }] } });
      const ready = await rawRequest(gateway.url.replace(/\/mcp$/, '/readyz'), 'GET');
      expect(ready.body).toMatchObject({ status: 'ready', upstreams: { broken: { state: expect.stringMatching(/failed|connecting/) }, everything: { state: 'ready' } } });
    });

    it('answers a call the upstream never answers with an error naming it after timeoutMs, while other calls go on', async () => {
      const started = Date.now();
      const hanging = call('tools/call', { name: 'silent__wait_forever', arguments: {} });
      const client = await connect('v2', url);
      const echo = await client.request('tools/call', { name: 'everything__echo', arguments: { message: 'meanwhile' } });
      expect(echo).toEqual({ content: [{ type: 'text', text: 'Echo: meanwhile' }] });
      await client.close();
      const error = rpcError(await hanging);
      expect(error.message).toMatch(/"silent"/);
      expect(error.code).toBe(-32001);
      expect(Date.now() - started).toBeGreaterThanOrEqual(SILENT_TIMEOUT_MS - 100);
    });
  });

  describe('an unprefixed server', () => {
    it('exposes its tools, prompts and URIs under their own names', async () => {
      const tools = (await call('tools/list')).body as { result: { tools: { name: string }[] } };
      expect(tools.result.tools.map((tool) => tool.name)).toContain('whoami');
      expect((await call('tools/call', { name: 'whoami', arguments: {} })).body).toMatchObject({ result: { content: [{ text: expect.stringContaining('flat') }] } });
      const read = (await call('resources/read', { uri: 'twin://shared/readme' })).body as { result: { contents: { uri: string; text: string }[] } };
      expect(read.result.contents[0]?.uri).toBe('twin://shared/readme');
      expect(read.result.contents[0]?.text).toContain('flat');
      const templated = (await call('resources/read', { uri: 'twin://items/42' })).body as { result: { contents: { text: string }[] } };
      expect(templated.result.contents[0]?.text).toContain('42');
    });
  });
});
