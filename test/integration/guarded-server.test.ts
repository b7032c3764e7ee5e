// The fixture that stands for a remote MCP server which checks bearer tokens, checked directly: the
// per-user credential tests through the gateway rely on its 401s and on what whoami says.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { readBearerChallenge } from '../../src/upstream/auth-challenge.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

const AUDIENCE = 'https://guarded.example/mcp';
const STATIC_TOKEN = 'perUser-secret-of-alice';

let issuer: LocalIssuer;
let upstream: HttpUpstream;
let origin: string;

beforeAll(async () => {
  issuer = await startLocalIssuer(AUDIENCE);
  upstream = await startGuardedServer({
    jwks: { url: issuer.jwksUri, audience: AUDIENCE, issuer: issuer.issuer },
    staticTokens: { [STATIC_TOKEN]: 'alice' },
  });
  origin = new URL(upstream.url).origin;
});
afterAll(async () => {
  await upstream?.stop();
  await issuer?.stop();
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connectWith(token: string): Promise<Client> {
  const client = new Client({ name: 'guarded-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(upstream.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

async function callText(client: Client, name: string): Promise<string> {
  const result = await client.callTool({ name, arguments: {} });
  const [first] = result.content as { type: string; text: string }[];
  return first!.text;
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

function post(headers: Record<string, string> = {}, body: unknown = initialize): Promise<Response> {
  return fetch(upstream.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

describe('guarded-server', () => {
  it('answers a request without a token 401 with a challenge that points at its resource metadata', async () => {
    const response = await post();
    expect(response.status).toBe(401);
    // RFC 6750 section 3.1: no error code when the request carried no token at all.
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
  });

  it('serves the protected resource metadata the challenge names', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ resource: `${origin}/mcp`, authorization_servers: [issuer.issuer], bearer_methods_supported: ['header'] });
    }
  });

  it.each([
    ['another audience', () => issuer.token({}, { audience: 'https://other.example/mcp' }), 'unexpected \\"aud\\" claim value'],
    ['an expired token', () => issuer.token({}, { expiresIn: -60 }), '\\"exp\\" claim timestamp check failed'],
    ['a token that is not a JWT', () => Promise.resolve('not-a-jwt'), 'Invalid Compact JWS'],
  ])('answers %s 401 invalid_token, with why', async (_case, token, why) => {
    const response = await post({ authorization: `Bearer ${await token()}` });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource", error="invalid_token", error_description="${why}"`,
    );
    // What the gateway will read of it.
    expect(readBearerChallenge(response.headers.get('www-authenticate'))).toEqual({
      resourceMetadata: `${origin}/.well-known/oauth-protected-resource`,
      error: 'invalid_token',
      errorDescription: why.replaceAll('\\"', '"'),
    });
  });

  it('tells the holder of a valid JWT who it is for, and counts their requests', async () => {
    const token = await issuer.token({ sub: 'bob', client_id: 'switchboard', act: { sub: 'switchboard-gateway' } });
    const client = await connectWith(token);
    const first = JSON.parse(await callText(client, 'whoami')) as Record<string, unknown>;
    expect(first).toMatchObject({ via: 'jwt', sub: 'bob', aud: AUDIENCE, client_id: 'switchboard', act: { sub: 'switchboard-gateway' } });
    const second = JSON.parse(await callText(client, 'whoami')) as { requests: number };
    expect(second.requests).toBeGreaterThan(first.requests as number);
  });

  it('accepts a configured plain token as its user', async () => {
    const client = await connectWith(STATIC_TOKEN);
    expect(JSON.parse(await callText(client, 'whoami'))).toMatchObject({ via: 'static', sub: 'alice', aud: null });
    expect(JSON.parse(await callText(client, 'last_headers'))).toMatchObject({ authorization: `Bearer ${STATIC_TOKEN}` });
  });

  it('checks every request of a session, not only the first', async () => {
    const opened = await post({ authorization: `Bearer ${STATIC_TOKEN}` });
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const unsigned = await post({ 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, list);
    expect(unsigned.status).toBe(401);
    const wrong = await post({ 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18', authorization: 'Bearer guessed' }, list);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
