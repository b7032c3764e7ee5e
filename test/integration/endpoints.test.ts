// Endpoints (config `endpoints`) through a listening gateway with auth and a policy, in front of
// server-everything and server-memory: each endpoint offers its own subset to clients of both eras,
// is a resource of its own (metadata, audience, scopes), keeps its sessions to itself, applies
// policy inside its subset, and is named in metrics and audit lines.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { metricValue } from '../support/metrics-scrape.js';
import { connectModern } from '../support/modern-client.js';
import { envelope, modernPost, modernRequest } from '../support/modern-http.js';
import { rawPost, rawRequest, type RawResponse } from '../support/raw-http.js';
import { everythingStdio, memoryStdio } from '../support/upstreams.js';

const ORIGIN = 'https://mcp.switchboard.test';
const PUBLIC_URL = `${ORIGIN}/mcp`;
const SUPPORT = '/mcp/support';
const NOTES = '/mcp/notes';

let issuer: LocalIssuer;
let gateway: TestGateway;
const at = (path: string) => new URL(path, gateway.url).toString();

beforeAll(async () => {
  issuer = await startLocalIssuer(PUBLIC_URL);
  gateway = await startGateway({
    server: { publicUrl: PUBLIC_URL },
    auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
    mcpServers: { everything: everythingStdio(), memory: memoryStdio() },
    policy: {
      default: 'allow',
      rules: [{ when: { claims: { groups: 'contractors' } }, deny: ['everything/get-env'] }],
    },
    endpoints: {
      support: { path: SUPPORT, include: ['everything/*'], exclude: ['everything/get-tiny-image'] },
      notes: { path: NOTES, include: ['memory/read_*', 'memory/search_*', 'memory/open_*'], requiredScopes: ['notes'] },
    },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await issuer?.stop();
});

/** A token for the resource at `path` (its canonical URI is the public origin with that path). */
function tokenFor(path: string, claims: Record<string, unknown> = {}): Promise<string> {
  return issuer.token(claims, { audience: `${ORIGIN}${path}` });
}

async function client2025(path: string, token: string): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client({ name: 'endpoints-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(at(path)), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

async function initialize(path: string, token: string): Promise<string> {
  const init = await rawPost(
    at(path),
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'endpoints-test', version: '1' } } },
    { headers: { authorization: `Bearer ${token}` } },
  );
  const sessionId = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !sessionId) throw new Error(`initialize on ${path} failed: ${init.status} ${JSON.stringify(init.body)}`);
  return sessionId;
}

function inSession(path: string, sessionId: string, token: string, method: string, params?: object): Promise<RawResponse> {
  return rawPost(at(path), { jsonrpc: '2.0', id: 1, method, ...(params && { params }) }, { sessionId, headers: { authorization: `Bearer ${token}` } });
}

const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name).sort();

describe('each endpoint', () => {
  it('offers a 2025 client its own subset, while server.path offers everything', async () => {
    const support = await client2025(SUPPORT, await tokenFor(SUPPORT));
    const notes = await client2025(NOTES, await tokenFor(NOTES, { scope: 'notes' }));
    const all = await client2025('/mcp', await tokenFor('/mcp'));
    try {
      const supportTools = names((await support.client.listTools()).tools);
      expect(supportTools).toContain('everything__echo');
      expect(supportTools).not.toContain('everything__get-tiny-image');
      expect(supportTools.every((name) => name.startsWith('everything__'))).toBe(true);
      expect(names((await notes.client.listTools()).tools)).toEqual(['memory__open_nodes', 'memory__read_graph', 'memory__search_nodes']);
      expect((await notes.client.listPrompts()).prompts).toEqual([]);
      expect((await notes.client.listResources()).resources).toEqual([]);
      const allTools = names((await all.client.listTools()).tools);
      expect(allTools).toEqual(expect.arrayContaining(['everything__get-tiny-image', 'memory__create_entities', ...supportTools]));
      const echoed = await support.client.callTool({ name: 'everything__echo', arguments: { message: 'via support' } });
      expect(JSON.stringify(echoed.content)).toContain('via support');
    } finally {
      await Promise.all([support.close(), notes.close(), all.close()]);
    }
  });

  it('offers a 2026 client the same subset, and answers a call outside it exactly as an unknown tool', async () => {
    const token = await tokenFor(SUPPORT);
    const client = await connectModern(at(SUPPORT), { headers: { authorization: `Bearer ${token}` } });
    try {
      const tools = names((await client.listTools(undefined, { cacheMode: 'bypass' })).tools);
      expect(tools).toContain('everything__echo');
      expect(tools.some((name) => name.startsWith('memory__'))).toBe(false);
    } finally {
      await client.close();
    }
    const call = async (name: string) => {
      const response = await modernPost(at(SUPPORT), modernRequest('tools/call', { name, arguments: {} }, envelope()), { token });
      return (response.body as { error: { code: number; message: string } }).error;
    };
    const outside = await call('memory__read_graph');
    const unknown = await call('memory__no_such_tool');
    expect(outside.code).toBe(unknown.code);
    expect(outside.message).toBe(unknown.message.replace('memory__no_such_tool', 'memory__read_graph'));
  });
});

describe('sessions', () => {
  it('exist only on the endpoint that started them: elsewhere their id is 404, as an unknown one', async () => {
    const supportToken = await tokenFor(SUPPORT);
    const sessionId = await initialize(SUPPORT, supportToken);
    expect((await inSession(SUPPORT, sessionId, supportToken, 'tools/list')).status).toBe(200);

    const notesToken = await tokenFor(NOTES, { scope: 'notes' });
    const defaultToken = await tokenFor('/mcp');
    const unknown = await inSession(NOTES, 'AAAAAAAAAAAAAAAAAAAAAA', notesToken, 'tools/list');
    for (const [path, token] of [
      [NOTES, notesToken],
      ['/mcp', defaultToken],
    ] as const) {
      const elsewhere = await inSession(path, sessionId, token, 'tools/list');
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body).toEqual(unknown.body);
      expect((await rawRequest(at(path), 'DELETE', { 'mcp-session-id': sessionId, authorization: `Bearer ${token}` })).status).toBe(404);
    }
    // Still alive where it belongs.
    expect((await inSession(SUPPORT, sessionId, supportToken, 'tools/list')).status).toBe(200);
    expect((await rawRequest(at(SUPPORT), 'DELETE', { 'mcp-session-id': sessionId, authorization: `Bearer ${supportToken}` })).status).toBe(200);
  });
});

describe('auth per endpoint', () => {
  it('serves each endpoint its own RFC 9728 metadata, with its canonical URI and scopes', async () => {
    const support = (await rawRequest(at(`/.well-known/oauth-protected-resource${SUPPORT}`), 'GET')).body as Record<string, unknown>;
    expect(support).toMatchObject({ resource: `${ORIGIN}${SUPPORT}`, authorization_servers: [issuer.issuer] });
    const notes = (await rawRequest(at(`/.well-known/oauth-protected-resource${NOTES}`), 'GET')).body as Record<string, unknown>;
    expect(notes).toMatchObject({ resource: `${ORIGIN}${NOTES}`, scopes_supported: ['notes'] });
    // The root and server.path's metadata stay the default endpoint's.
    expect((await rawRequest(at('/.well-known/oauth-protected-resource'), 'GET')).body).toMatchObject({ resource: PUBLIC_URL });
  });

  it('challenges a request without a token with the endpoint metadata URL', async () => {
    const response = await rawPost(at(SUPPORT), { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource${SUPPORT}"`);
  });

  it("refuses a token for one endpoint's audience on another endpoint and on server.path", async () => {
    const supportToken = await tokenFor(SUPPORT, { scope: 'notes' });
    await expect(initialize(SUPPORT, supportToken)).resolves.toEqual(expect.any(String));
    await expect(initialize(NOTES, supportToken)).rejects.toThrow(/failed: 401/);
    await expect(initialize('/mcp', supportToken)).rejects.toThrow(/failed: 401/);
    await expect(initialize(SUPPORT, await tokenFor('/mcp'))).rejects.toThrow(/failed: 401/);
  });

  it("refuses a token without the endpoint's required scope with insufficient_scope", async () => {
    const response = await rawPost(
      at(NOTES),
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { headers: { authorization: `Bearer ${await tokenFor(NOTES)}` } },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="notes"/);
  });
});

describe('policy inside an endpoint', () => {
  it('hides a denied tool that the endpoint selects, answers its call as unknown, and audits it as denied there', async () => {
    const token = await tokenFor(SUPPORT, { sub: 'contractor-1', groups: ['contractors'] });
    const sessionId = await initialize(SUPPORT, token);
    const listed = (await inSession(SUPPORT, sessionId, token, 'tools/list')).body as { result: { tools: { name: string }[] } };
    expect(names(listed.result.tools)).not.toContain('everything__get-env');
    expect(names(listed.result.tools)).toContain('everything__echo');
    const call = (await inSession(SUPPORT, sessionId, token, 'tools/call', { name: 'everything__get-env', arguments: {} })).body as { error: { message: string } };
    expect(call.error.message).toBe('Unknown tool: everything__get-env');
    expect(gateway.logs).toContainEqual(
      expect.objectContaining({ audit: true, sub: 'contractor-1', endpoint: 'support', method: 'tools/call', server: 'everything', name: 'get-env', outcome: 'denied' }),
    );
  });
});

describe('observability', () => {
  it('names the endpoint in the request metric and in audit lines, "default" for server.path', async () => {
    const supportToken = await tokenFor(SUPPORT);
    const sessionId = await initialize(SUPPORT, supportToken);
    await inSession(SUPPORT, sessionId, supportToken, 'tools/call', { name: 'everything__echo', arguments: { message: 'counted' } });
    await modernPost(at(SUPPORT), modernRequest('tools/call', { name: 'everything__echo', arguments: { message: 'counted' } }, envelope()), { token: supportToken });
    const defaultToken = await tokenFor('/mcp');
    const defaultSession = await initialize('/mcp', defaultToken);
    await inSession('/mcp', defaultSession, defaultToken, 'tools/call', { name: 'everything__echo', arguments: { message: 'counted' } });

    const calls = (labels: Record<string, string>) => metricValue(gateway.url, 'switchboard_rpc_requests_total', { method: 'tools/call', outcome: 'ok', ...labels });
    expect(await calls({ mcp_endpoint: 'support', era: '2025' })).toBeGreaterThanOrEqual(1);
    expect(await calls({ mcp_endpoint: 'support', era: '2026' })).toBeGreaterThanOrEqual(1);
    expect(await calls({ mcp_endpoint: 'default' })).toBeGreaterThanOrEqual(1);
    expect(await calls({ mcp_endpoint: 'notes' })).toBe(0);

    const audits = gateway.logs.filter((line) => line.audit === true && line.method === 'tools/call' && line.name === 'echo' && line.outcome === 'ok');
    expect(audits).toContainEqual(expect.objectContaining({ endpoint: 'support', session: sessionId.slice(0, 8) }));
    expect(audits).toContainEqual(expect.objectContaining({ endpoint: 'support', era: '2026' }));
    expect(audits).toContainEqual(expect.objectContaining({ endpoint: 'default', session: defaultSession.slice(0, 8) }));
  });

  it('names the endpoint in the audit line of a refused token', async () => {
    await rawPost(at(NOTES), { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, outcome: 'unauthenticated', endpoint: 'notes' }));
  });
});
