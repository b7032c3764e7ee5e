// Where the status page and the admin API are served: on the MCP port only when admin.onServerPort
// says so (the MCP paths keep precedence there), nowhere with admin.enabled false, and a warning when
// the admin listener is bound beyond loopback without auth. What it leaves in the log: an access line
// per request, and for a request from another page a warning and an audit line that say which.
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectV2 } from '../support/mcp-clients.js';
import { stdioFixture } from '../support/upstreams.js';

let gateway: TestGateway | undefined;

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe('the admin listener', () => {
  it('serves the page and the API on the MCP port with admin.onServerPort, beside a working MCP endpoint', async () => {
    gateway = await startGateway({ admin: { onServerPort: true }, mcpServers: { left: stdioFixture('twin-server', { TWIN_LABEL: 'left' }) } });
    expect(gateway.adminUrl).toBe(new URL('/status', gateway.url).toString());
    const page = await fetch(gateway.adminUrl!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const status = (await (await fetch(new URL('/api/status', gateway.url))).json()) as { endpoints: { status: string } };
    expect(status.endpoints.status).toBe(gateway.adminUrl);
    const client = await connectV2(gateway.url);
    try {
      expect(await client.request('ping')).toEqual({});
    } finally {
      await client.close();
    }
    expect((await fetch(new URL('/readyz', gateway.url))).status).toBe(200);
  });

  it('is not there with admin.enabled false', async () => {
    gateway = await startGateway({ admin: { enabled: false }, mcpServers: {} });
    expect(gateway.adminUrl).toBeUndefined();
    expect(gateway.logs.find((line) => line.msg === 'switchboard listening')).not.toHaveProperty('admin');
    expect((await fetch(new URL('/status', gateway.url))).status).toBe(404);
  });

  it('warns when it listens beyond loopback without auth', async () => {
    gateway = await startGateway({ admin: { host: '0.0.0.0' }, mcpServers: {} });
    expect(gateway.adminUrl).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/status$/);
    expect(gateway.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', host: '0.0.0.0', msg: expect.stringContaining('admin listener without auth on a non-loopback address') }),
    );
  });

  it('writes an access line per request, the reads at debug and the rest at info, with the client', async () => {
    gateway = await startGateway({ mcpServers: {} }, { logLevel: 'debug' });
    const headers = { 'content-type': 'application/json', 'x-request-id': 'admin-access-1' };
    expect((await fetch(new URL('/api/status', gateway.adminUrl), { headers: { 'x-request-id': 'admin-access-0' } })).status).toBe(200);
    expect((await fetch(new URL('/api/catalog/preview', gateway.adminUrl), { method: 'POST', headers, body: '{"principal": null}' })).status).toBe(200);
    const lines = gateway.logs.filter((line) => line.msg === 'http request' && line.listener === 'admin');
    const client = expect.stringMatching(/127\.0\.0\.1$/);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'debug', requestId: 'admin-access-0', method: 'GET', path: '/api/status', status: 200, client, durationMs: expect.any(Number) }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ level: 'info', requestId: 'admin-access-1', method: 'POST', path: '/api/catalog/preview', status: 200, client }));
  });

  it('logs and audits a refused request from another page with its path, method, client and request id', async () => {
    gateway = await startGateway({ mcpServers: {} });
    const response = await fetch(new URL('/api/catalog/preview', gateway.adminUrl), {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json', 'x-request-id': 'admin-refusal-1' },
      body: '{"principal": null}',
    });
    expect(response.status).toBe(403);
    const about = { requestId: 'admin-refusal-1', httpMethod: 'POST', path: '/api/catalog/preview', client: expect.stringMatching(/127\.0\.0\.1$/) };
    expect(gateway.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', ...about, reason: 'origin', detail: 'https://evil.example', msg: 'admin listener: refused a request from another page or host' }),
    );
    expect(gateway.logs).toContainEqual(
      expect.objectContaining({ audit: true, event: 'admin', ...about, outcome: 'denied', reason: 'origin', detail: 'https://evil.example', status: 403 }),
    );
    expect(gateway.logs).toContainEqual(expect.objectContaining({ level: 'info', listener: 'admin', requestId: 'admin-refusal-1', method: 'POST', status: 403 }));
  });

  it('refuses to start when its port is taken, naming the port', async () => {
    const first = await startGateway({ mcpServers: {} });
    try {
      const port = Number(new URL(first.adminUrl!).port);
      await expect(startGateway({ admin: { port }, mcpServers: {} })).rejects.toThrow(`the admin listener cannot bind 127.0.0.1:${port}: the port is in use`);
    } finally {
      await first.close();
    }
  });
});
