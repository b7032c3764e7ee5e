// The admin API on its own listener, against a gateway with auth (tokens from our own issuer):
// 401 without a token, 403 without the admin scope; restart of an upstream and reload of the config,
// each audited with who asked; drain that makes /readyz answer 503; the config view with its
// secrets redacted; and nothing of it on the MCP port.
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { freePort } from '../support/free-port.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { rawPost } from '../support/raw-http.js';
import { firstText } from '../support/recording-client.js';
import { stdioFixture } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const METADATA_URL = 'https://mcp.switchboard.test/.well-known/oauth-protected-resource/mcp';
const OPERATOR = 'operator-1';

let issuer: LocalIssuer;
let gateway: TestGateway;
let config: ConfigInput;
let adminToken: string;
let plainToken: string;

beforeAll(async () => {
  issuer = await startLocalIssuer(PUBLIC_URL);
  const closed = await freePort();
  config = {
    server: { publicUrl: PUBLIC_URL },
    auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
    mcpServers: {
      left: stdioFixture('twin-server', { TWIN_LABEL: 'left' }),
      // Never reached: here for its secrets in the config view.
      search: {
        // (A password in the URL is refused at load: secret-redaction.test.ts.)
        url: `http://127.0.0.1:${closed}/mcp?api_key=k3y-in-url&region=eu`,
        headers: { Authorization: 'Bearer upstream-secret', 'X-Team': 'blue' },
      },
      exchanged: {
        url: `http://127.0.0.1:${closed}/mcp`,
        isolation: 'session',
        credentials: { tokenExchange: { tokenEndpoint: `http://127.0.0.1:${closed}/token`, clientId: 'switchboard', clientSecret: 'exchange-client-secret', audience: 'search' } },
      },
    },
  };
  gateway = await startGateway(config, { reloadable: true, watchConfig: false, jwksCooldownMs: 0 });
  adminToken = await issuer.token({ sub: OPERATOR, scope: 'mcp switchboard:admin' });
  plainToken = await issuer.token({ sub: 'someone', scope: 'mcp' });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await issuer?.stop();
});

function admin(path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> {
  const { token = adminToken, ...rest } = init;
  return fetch(new URL(path, gateway.adminUrl), {
    ...rest,
    headers: { ...(token !== null && { authorization: `Bearer ${token}` }), ...(rest.body !== undefined && { 'content-type': 'application/json' }), ...(rest.headers as Record<string, string>) },
  });
}

async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

const auditLines = (filter: Record<string, unknown>) =>
  gateway.logs.filter((line) => line.audit === true && line.event === 'admin' && Object.entries(filter).every(([key, value]) => line[key] === value));

/** fetch does not let a caller set Host; node:http does. */
function statusWithHost(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(new URL('/api/status', gateway.adminUrl), { headers: { host, authorization: `Bearer ${adminToken}` } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'admin-api-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

describe('the admin listener with auth', () => {
  it('is a listener of its own on loopback, named in the startup line', () => {
    expect(gateway.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/status$/);
    expect(new URL(gateway.adminUrl!).port).not.toBe(new URL(gateway.url).port);
    expect(gateway.logs.find((line) => line.msg === 'switchboard listening')).toMatchObject({ admin: gateway.adminUrl });
  });

  it('answers 401 with a Bearer challenge naming the admin scope without a token, for the page and the API, and audits it', async () => {
    for (const path of ['/status', '/api/status', '/api/reload']) {
      const response = await admin(path, { token: null, method: path === '/api/reload' ? 'POST' : 'GET' });
      expect(response.status, path).toBe(401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain('scope="switchboard:admin"');
      expect(challenge).toContain(`resource_metadata="${METADATA_URL}"`);
    }
    const body = await json(await admin('/api/status', { token: null }));
    expect(body).toEqual({ error: { code: 'unauthorized', message: expect.stringContaining('switchboard:admin') } });
    expect(auditLines({ outcome: 'unauthenticated', reason: 'missing-token', path: '/api/reload' })).toHaveLength(1);
  });

  it('answers 401 to a token that is not for this gateway', async () => {
    const foreign = await issuer.token({ sub: OPERATOR, scope: 'switchboard:admin' }, { audience: 'https://elsewhere.test/mcp' });
    const response = await admin('/api/status', { token: foreign });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('answers 403 insufficient_scope to a valid token without the admin scope, and audits who it was', async () => {
    const response = await admin('/api/status', { token: plainToken });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(response.headers.get('www-authenticate')).toContain('scope="switchboard:admin"');
    expect(await json(response)).toMatchObject({ error: { code: 'forbidden', message: 'Forbidden: the token lacks the scope switchboard:admin' } });
    expect(auditLines({ sub: 'someone', outcome: 'denied', reason: 'insufficient-scope' }).length).toBeGreaterThan(0);
  });

  it('answers 200 to a token with the admin scope, with every section of the status', async () => {
    const response = await admin('/api/status');
    expect(response.status).toBe(200);
    const status = await json(response);
    expect(Object.keys(status).sort()).toEqual(['connections', 'endpoints', 'gateway', 'pinning', 'sessions', 'traffic', 'upstreams']);
    expect(status).toMatchObject({
      gateway: { status: 'ready', store: 'memory', auth: true, policy: false },
      endpoints: { mcp: gateway.url, status: gateway.adminUrl },
      sessions: { store: 'memory', active: expect.any(Number), listens: 0 },
      connections: [],
    });
    const upstreams = status.upstreams as { name: string; state: string }[];
    expect(upstreams.map((upstream) => [upstream.name, upstream.state])).toEqual([
      ['left', expect.stringMatching(/^(ready|connecting)$/)],
      ['search', expect.stringMatching(/^(failed|connecting)$/)],
      ['exchanged', 'per-session'],
    ]);
  });

  it('serves nothing of it on the MCP port', async () => {
    for (const path of ['/status', '/api/status']) {
      const response = await fetch(new URL(path, gateway.url), { headers: { authorization: `Bearer ${adminToken}` } });
      expect(response.status, path).toBe(404);
    }
  });

  it('refuses a request from another web page, even with a token', async () => {
    const response = await admin('/api/drain', { method: 'POST', body: '{}', headers: { origin: 'https://evil.example' } });
    expect(response.status).toBe(403);
    // A link from elsewhere (the Grafana dashboard's) opens the page: a GET changes nothing.
    expect((await admin('/status', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } })).status).toBe(200);
    expect((await admin('/api/drain', { method: 'POST', body: '{}', headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    // What a DNS-rebinding page's request carries: a name of the attacker's that resolves to loopback.
    expect(await statusWithHost('evil.example:8081')).toBe(403);
    expect(await statusWithHost('localhost:8081')).toBe(200);
    expect((await json(await admin('/api/status'))).gateway).toMatchObject({ status: 'ready' });
  });
});

describe('admin actions', () => {
  it('restarts an upstream: its restart count goes up, it serves again, and the audit line says who', async () => {
    const client = await mcpClient(plainToken);
    try {
      await expect.poll(async () => (await json<{ upstream: { state: string } }>(await admin('/api/upstreams/left'))).upstream.state, { timeout: 20_000 }).toBe('ready');
      const before = (await json<{ upstream: { restarts: number } }>(await admin('/api/upstreams/left'))).upstream.restarts;
      const response = await admin('/api/upstreams/left/restart', { method: 'POST', body: '{}' });
      expect(response.status).toBe(200);
      const { upstream } = await json<{ upstream: { name: string; state: string; restarts: number; lastError: string | null } }>(response);
      expect(upstream).toMatchObject({ name: 'left', state: 'ready', restarts: before + 1, lastError: null });
      expect(firstText(await client.callTool({ name: 'left__whoami', arguments: {} }))).toBe('left');
      expect(auditLines({ action: 'restart', target: 'left' })).toEqual([
        expect.objectContaining({ sub: OPERATOR, client: '127.0.0.1', outcome: 'ok', durationMs: expect.any(Number) }),
      ]);
      const metrics = await (await fetch(new URL('/metrics', gateway.url))).text();
      expect(metrics).toMatch(/switchboard_upstream_restarts_total\{server="left"\} [1-9]/);
    } finally {
      await client.close();
    }
  });

  it('refuses to restart an unknown server (404) and a session-isolated one (409), audited as refused', async () => {
    const unknown = await admin('/api/upstreams/nope/restart', { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toEqual({ error: { code: 'not-found', message: 'no server named "nope" is configured' } });
    const isolated = await admin('/api/upstreams/exchanged/restart', { method: 'POST' });
    expect(isolated.status).toBe(409);
    expect(await json(isolated)).toMatchObject({ error: { code: 'conflict', message: expect.stringContaining('isolation: session') } });
    expect(auditLines({ action: 'restart', target: 'exchanged' })).toEqual([expect.objectContaining({ outcome: 'refused', sub: OPERATOR })]);
  });

  it('reloads the config on request: a server added to the file appears, and the audit line says who', async () => {
    gateway.rewriteConfig({ ...config, mcpServers: { ...config.mcpServers, right: stdioFixture('twin-server', { TWIN_LABEL: 'right' }) } });
    const response = await admin('/api/reload', { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ outcome: 'applied', added: ['right'], removed: [], changed: [], restartOnly: [] });
    const names = (await json<{ upstreams: { name: string }[] }>(await admin('/api/upstreams'))).upstreams.map((upstream) => upstream.name);
    expect(names).toEqual(['left', 'search', 'exchanged', 'right']);
    expect(auditLines({ action: 'reload' })).toEqual([expect.objectContaining({ sub: OPERATOR, outcome: 'ok' })]);
    expect(gateway.logs).toContainEqual(expect.objectContaining({ msg: 'config reloaded', trigger: 'admin', added: ['right'] }));
  });

  it('refuses a reload of an invalid config with its problems (422), and keeps the running config', async () => {
    gateway.rewriteConfig({ ...config, mcpServers: { left: { command: 42 } } } as unknown as ConfigInput);
    const response = await admin('/api/reload', { method: 'POST' });
    expect(response.status).toBe(422);
    expect(await json(response)).toMatchObject({
      error: { code: 'invalid-config', problems: [expect.objectContaining({ path: expect.stringContaining('mcpServers.left') })] },
    });
    expect(auditLines({ action: 'reload', outcome: 'refused' })).toHaveLength(1);
    const names = (await json<{ upstreams: { name: string }[] }>(await admin('/api/upstreams'))).upstreams.map((upstream) => upstream.name);
    expect(names).toContain('right');
  });

  it('shows the config in force with secrets redacted: header values, a client secret, the key in a URL', async () => {
    const response = await admin('/api/config');
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const secret of ['upstream-secret', 'exchange-client-secret', 'k3y-in-url']) expect(text).not.toContain(secret);
    const { config: shown } = JSON.parse(text) as { config: { mcpServers: Record<string, Record<string, unknown>> } };
    expect(shown.mcpServers.search).toMatchObject({
      headers: { Authorization: '[redacted]', 'X-Team': '[redacted]' },
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp\?api_key=%5Bredacted%5D&region=eu$/),
    });
    expect(shown.mcpServers.exchanged).toMatchObject({
      credentials: { tokenExchange: { clientId: 'switchboard', clientSecret: '[redacted]', audience: 'search' } },
    });
  });

  it('drains on request: /readyz answers 503 and new sessions are refused, until the drain is lifted', async () => {
    const drained = await admin('/api/drain', { method: 'POST', body: '{}' });
    expect(drained.status).toBe(200);
    expect(await json(drained)).toEqual({ status: 'draining' });
    const readyz = await fetch(new URL('/readyz', gateway.url));
    expect(readyz.status).toBe(503);
    expect(await json(readyz)).toMatchObject({ status: 'draining' });
    const initialize = await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { headers: { authorization: `Bearer ${plainToken}` } },
    );
    expect(initialize.status).toBe(503);
    expect((await json(await admin('/api/status'))).gateway).toMatchObject({ status: 'draining' });

    const resumed = await admin('/api/drain', { method: 'DELETE' });
    expect(await json(resumed)).toEqual({ status: 'ready' });
    expect((await fetch(new URL('/readyz', gateway.url))).status).toBe(200);
    expect(auditLines({ action: 'drain' })).toEqual([expect.objectContaining({ sub: OPERATOR, outcome: 'ok' })]);
    expect(auditLines({ action: 'resume' })).toEqual([expect.objectContaining({ sub: OPERATOR, outcome: 'ok' })]);
  });

  it('answers errors as JSON with a message: unknown paths, bad preview bodies, unknown endpoints', async () => {
    expect(await json(await admin('/api/nothing'))).toEqual({ error: { code: 'not-found', message: 'nothing at GET /api/nothing' } });
    const bad = await admin('/api/catalog/preview', { method: 'POST', body: '{"principal": {"sub": 5}}' });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ error: { code: 'bad-request', problems: [expect.objectContaining({ path: 'principal.sub' })] } });
    const notJson = await admin('/api/catalog/preview', { method: 'POST', body: '{' });
    expect(await json(notJson)).toEqual({ error: { code: 'bad-request', message: 'the body is not JSON' } });
    const form = await admin('/api/reload', { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    const endpoint = await admin('/api/catalog/preview', { method: 'POST', body: '{"endpoint": "nope"}' });
    expect(endpoint.status).toBe(404);
  });

  it('lists the catalogue per server, and what a principal would be shown', async () => {
    const catalog = await json<{ servers: { name: string; tools: { name: string; upstreamName: string }[] }[] }>(await admin('/api/catalog?server=left'));
    expect(catalog.servers).toHaveLength(1);
    expect(catalog.servers[0]!.tools).toContainEqual(expect.objectContaining({ name: 'left__whoami', upstreamName: 'whoami' }));
    expect((await admin('/api/catalog?server=nope')).status).toBe(404);
    const preview = await json(await admin('/api/catalog/preview', { method: 'POST', body: JSON.stringify({ principal: { sub: 'alice', scopes: 'mcp' } }) }));
    expect(preview).toMatchObject({ principal: { sub: 'alice', scopes: ['mcp'] }, endpoint: 'default', policy: false, hidden: { tools: 0 } });
    expect((preview.servers as { name: string; tools: string[] }[]).find((server) => server.name === 'left')?.tools).toContain('left__whoami');
  });
});
