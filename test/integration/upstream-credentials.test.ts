// The client's token is for the gateway only: an upstream sees the credentials the config gives it,
// never the client's Authorization header (MCP authorization: no token passthrough).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { rawPost } from '../support/raw-http.js';
import { startHttpFixture, type HttpUpstream } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';

let issuer: LocalIssuer;
let upstream: HttpUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [issuer, upstream] = await Promise.all([startLocalIssuer(PUBLIC_URL), startHttpFixture('header-echo-server')]);
  gateway = await startGateway({
    server: { publicUrl: PUBLIC_URL },
    auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
    mcpServers: {
      echo: { url: upstream.url, headers: { Authorization: 'Bearer upstream-credential', 'X-Api-Key': 'configured-key' } },
    },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.stop(), issuer?.stop()]);
});

describe('an HTTP upstream', () => {
  it('gets the headers from its config and never the client token', async () => {
    const clientToken = await issuer.token({});
    const headers = { authorization: `Bearer ${clientToken}`, 'x-forwarded-client': 'should-not-pass' };
    const init = await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { headers },
    );
    const sessionId = init.headers.get('mcp-session-id')!;
    const call = await rawPost(gateway.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo__last_headers', arguments: {} } }, { sessionId, headers });
    const text = (call.body as { result: { content: { text: string }[] } }).result.content[0]!.text;
    const seen = JSON.parse(text) as Record<string, string>;
    expect(seen.authorization).toBe('Bearer upstream-credential');
    expect(seen['x-api-key']).toBe('configured-key');
    expect(text).not.toContain(clientToken);
    expect(text).not.toContain(clientToken.split('.')[2]!);
    expect(seen['x-forwarded-client']).toBeUndefined();
    expect(seen['mcp-session-id']).not.toBe(sessionId);
  });
});
