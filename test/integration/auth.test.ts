// The gateway as an OAuth 2.1 resource server (MCP authorization, 2025-06-18 and 2025-11-25),
// against an identity provider of our own (test/support/local-issuer.ts).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { hmacWithPublicKey, startLocalIssuer, unsignedToken, validClaims, type LocalIssuer } from '../support/local-issuer.js';
import { rawPost, rawRequest, type RawResponse } from '../support/raw-http.js';
import { everythingStdio } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const METADATA_URL = 'https://mcp.switchboard.test/.well-known/oauth-protected-resource/mcp';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'auth-test', version: '1.0.0' } },
};

let issuer: LocalIssuer;
let gateway: TestGateway;

beforeAll(async () => {
  issuer = await startLocalIssuer(PUBLIC_URL);
  gateway = await startGateway(
    {
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri, requiredScopes: ['mcp'] },
      mcpServers: { everything: everythingStdio() },
    },
    // An unknown kid may refetch the JWKS at once, so the rotation test needs no 30 s wait.
    { jwksCooldownMs: 0 },
  );
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await issuer?.stop();
});

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

async function initializeWith(headers: Record<string, string>, url = gateway.url): Promise<RawResponse> {
  return rawPost(url, INITIALIZE, { headers });
}

function challenge(response: RawResponse): string {
  return response.headers.get('www-authenticate') ?? '';
}

describe('a valid token', () => {
  it('is accepted, and the official client can list and call tools with it', async () => {
    const token = await issuer.token({ scope: 'mcp' });
    const client = new Client({ name: 'auth-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: bearer(token) } });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('everything__echo');
      const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
      expect(JSON.stringify(result.content)).toContain('hi');
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  });

  it('is accepted with the scopes in an scp array and an ES256 signature', async () => {
    const key = await issuer.newKey('ES256');
    issuer.publish([issuer.currentKey, key]);
    const response = await initializeWith(bearer(await issuer.token({ scp: ['mcp', 'other'] }, { key })));
    expect(response.status).toBe(200);
  });

  it('is accepted a little after expiry, within the clock tolerance', async () => {
    const response = await initializeWith(bearer(await issuer.token({ scope: 'mcp' }, { expiresIn: -5 })));
    expect(response.status).toBe(200);
  });
});

describe('a request without a usable token', () => {
  it('gets 401 with a challenge that names the resource metadata and the scopes', async () => {
    const response = await initializeWith({});
    expect(response.status).toBe(401);
    expect(challenge(response)).toBe(`Bearer scope="mcp", resource_metadata="${METADATA_URL}"`);
    expect(response.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32007, message: expect.stringMatching(/Unauthorized/) } });
  });

  it('gets 401 when the token is only in the query string', async () => {
    const token = await issuer.token({ scope: 'mcp' });
    const response = await initializeWith({}, `${gateway.url}?access_token=${token}`);
    expect(response.status).toBe(401);
  });

  it('gets 401 on GET and DELETE too, before any session lookup', async () => {
    expect((await rawRequest(gateway.url, 'GET', { accept: 'text/event-stream' })).status).toBe(401);
    expect((await rawRequest(gateway.url, 'DELETE', { 'mcp-session-id': 'AAAAAAAAAAAAAAAAAAAAAA' })).status).toBe(401);
  });

  const forgeries: [string, () => Promise<string>][] = [
    ['an expired token', () => issuer.token({ scope: 'mcp' }, { expiresIn: -120 })],
    ['a token that is not valid yet', () => issuer.token({ scope: 'mcp' }, { notBefore: 120 })],
    ['a token from another issuer', () => issuer.token({ scope: 'mcp' }, { issuer: 'https://idp.evil.example' })],
    ['a token for another audience', () => issuer.token({ scope: 'mcp' }, { audience: 'https://other.example/mcp' })],
    ['a token without an audience', () => issuer.token({ scope: 'mcp' }, { omit: ['aud'] })],
    ['a token without an expiry', () => issuer.token({ scope: 'mcp' }, { omit: ['exp'] })],
    ['a token without a subject', () => issuer.token({ scope: 'mcp' }, { omit: ['sub'] })],
    ['a token signed with an unknown key', async () => issuer.token({ scope: 'mcp' }, { key: await issuer.newKey() })],
    ['an unsigned token (alg: none)', async () => unsignedToken(validClaims(issuer, PUBLIC_URL, { scope: 'mcp' }))],
    ['an HS256 token keyed with the public key in PEM', () => hmacWithPublicKey(validClaims(issuer, PUBLIC_URL, { scope: 'mcp' }), issuer.currentKey, 'pem')],
    ['an HS256 token keyed with the public JWK', () => hmacWithPublicKey(validClaims(issuer, PUBLIC_URL, { scope: 'mcp' }), issuer.currentKey, 'jwk')],
    ['a token with a tampered payload', async () => {
      const [header, , signature] = (await issuer.token({ scope: 'mcp' })).split('.');
      return `${header}.${Buffer.from(JSON.stringify(validClaims(issuer, PUBLIC_URL, { scope: 'mcp admin' }))).toString('base64url')}.${signature}`;
    }],
    ['a token that is not a JWT', async () => 'not-a-jwt'],
  ];

  it.each(forgeries)('gets 401 with error="invalid_token" for %s', async (_name, makeToken) => {
    const response = await initializeWith(bearer(await makeToken()));
    expect(response.status).toBe(401);
    expect(challenge(response)).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", scope="mcp", resource_metadata="/);
  });

  it('gets 401 with error="invalid_request" for another authentication scheme', async () => {
    const response = await initializeWith({ authorization: 'Basic dXNlcjpwYXNz' });
    expect(response.status).toBe(401);
    expect(challenge(response)).toMatch(/error="invalid_request"/);
  });
});

describe('a valid token without a required scope', () => {
  it('gets 403 with error="insufficient_scope" and the scopes it needs', async () => {
    const response = await initializeWith(bearer(await issuer.token({ scope: 'other' })));
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32008, message: expect.stringMatching(/^Forbidden: /) } });
    expect(challenge(response)).toMatch(/^Bearer error="insufficient_scope", error_description="[^"]*", scope="mcp", resource_metadata="/);
  });
});

describe('key rotation at the identity provider', () => {
  it('is picked up: a token signed with a newly published key is accepted', async () => {
    // The gateway has fetched the JWKS by now (earlier tests); this key is not in its cache.
    const rotated = await issuer.newKey();
    const fetchesBefore = issuer.fetches;
    issuer.publish([rotated]);
    const response = await initializeWith(bearer(await issuer.token({ scope: 'mcp' }, { key: rotated })));
    expect(response.status).toBe(200);
    expect(issuer.fetches).toBeGreaterThan(fetchesBefore);
  });
});

describe('sessions', () => {
  it('are bound to their principal: another principal gets 404 for it', async () => {
    const owner = await issuer.token({ scope: 'mcp', sub: 'alice' });
    const init = await initializeWith(bearer(owner));
    const sessionId = init.headers.get('mcp-session-id');
    expect(sessionId).toBeTruthy();
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    expect((await rawPost(gateway.url, ping, { sessionId: sessionId!, headers: bearer(owner) })).status).toBe(200);
    const intruder = await issuer.token({ scope: 'mcp', sub: 'mallory' });
    expect((await rawPost(gateway.url, ping, { sessionId: sessionId!, headers: bearer(intruder) })).status).toBe(404);
    expect((await rawRequest(gateway.url, 'DELETE', { 'mcp-session-id': sessionId!, ...bearer(intruder) })).status).toBe(404);
    // Another token of the same principal (a refreshed one) keeps the session.
    const refreshed = await issuer.token({ scope: 'mcp', sub: 'alice' });
    expect((await rawPost(gateway.url, ping, { sessionId: sessionId!, headers: bearer(refreshed) })).status).toBe(200);
  });
});

describe('the protected resource metadata (RFC 9728)', () => {
  it('is served without a token at the root and at the endpoint path', async () => {
    const origin = new URL(gateway.url).origin;
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const response = await rawRequest(`${origin}${path}`, 'GET');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        resource: PUBLIC_URL,
        authorization_servers: [issuer.issuer],
        scopes_supported: ['mcp'],
        bearer_methods_supported: ['header'],
        resource_name: 'Switchboard MCP gateway',
      });
    }
  });

  it('leaves /healthz open', async () => {
    expect((await rawRequest(`${new URL(gateway.url).origin}/healthz`, 'GET')).status).toBe(200);
  });
});

describe('the audit trail', () => {
  it('writes one line per unauthenticated request, without the token', async () => {
    const token = await issuer.token({ scope: 'mcp' }, { expiresIn: -600 });
    const requestId = `audit-${Date.now()}`;
    await initializeWith({ ...bearer(token), 'x-request-id': requestId });
    const lines = gateway.logs.filter((line) => line.audit === true && line.requestId === requestId);
    expect(lines).toEqual([
      expect.objectContaining({ outcome: 'unauthenticated', reason: 'invalid-token', status: 401, httpMethod: 'POST' }),
    ]);
    expect(JSON.stringify(gateway.logs)).not.toContain(token);
  });

  it('writes one line per tools/call with the subject and never the arguments', async () => {
    const sub = `auditor-${Date.now()}`;
    const token = await issuer.token({ scope: 'mcp', sub });
    const init = await initializeWith(bearer(token));
    const sessionId = init.headers.get('mcp-session-id')!;
    await rawPost(gateway.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId, headers: bearer(token) });
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'secret-argument-value' } } };
    expect((await rawPost(gateway.url, call, { sessionId, headers: bearer(token) })).status).toBe(200);
    const lines = gateway.logs.filter((line) => line.audit === true && line.sub === sub);
    expect(lines).toEqual([
      expect.objectContaining({ sub, session: sessionId.slice(0, 8), method: 'tools/call', server: 'everything', name: 'echo', outcome: 'ok', durationMs: expect.any(Number) }),
    ]);
    expect(JSON.stringify(gateway.logs)).not.toContain('secret-argument-value');
    expect(JSON.stringify(gateway.logs)).not.toContain(token);
    expect(JSON.stringify(gateway.logs)).not.toContain(sessionId);
  });
});

describe('auth.subjectClaim (a provider whose sub is pairwise, as Entra ID)', () => {
  let pairwise: TestGateway;

  beforeAll(async () => {
    pairwise = await startGateway({
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri, requiredScopes: ['mcp'], subjectClaim: 'oid' },
      mcpServers: { everything: everythingStdio() },
    });
  }, 60_000);

  afterAll(async () => {
    await pairwise?.close();
  });

  it('knows the person by that claim: two client apps\' tokens of one person share a session, another person\'s do not', async () => {
    const fromOneApp = await issuer.token({ scope: 'mcp', sub: 'pairwise-in-app-1', oid: 'ada-object-id' });
    const init = await initializeWith(bearer(fromOneApp), pairwise.url);
    const sessionId = init.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    const fromAnotherApp = await issuer.token({ scope: 'mcp', sub: 'pairwise-in-app-2', oid: 'ada-object-id' });
    expect((await rawPost(pairwise.url, ping, { sessionId, headers: bearer(fromAnotherApp) })).status).toBe(200);
    // The same sub with another oid is someone else.
    const someoneElse = await issuer.token({ scope: 'mcp', sub: 'pairwise-in-app-1', oid: 'bob-object-id' });
    expect((await rawPost(pairwise.url, ping, { sessionId, headers: bearer(someoneElse) })).status).toBe(404);

    await rawPost(pairwise.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId, headers: bearer(fromOneApp) });
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'hi' } } };
    expect((await rawPost(pairwise.url, call, { sessionId, headers: bearer(fromAnotherApp) })).status).toBe(200);
    expect(pairwise.logs.filter((line) => line.audit === true && line.method === 'tools/call').map((line) => line.sub)).toEqual(['ada-object-id']);
  });

  it('refuses a token without the claim, saying which', async () => {
    const response = await initializeWith(bearer(await issuer.token({ scope: 'mcp', sub: 'pairwise-only' })), pairwise.url);
    expect(response.status).toBe(401);
    expect(challenge(response)).toMatch(/error="invalid_token"/);
    expect(challenge(response)).toContain('oid claim, auth.subjectClaim');
  });
});
