// Resource-server mode with a provider that issues opaque access tokens: the gateway introspects
// them (RFC 7662) at a real oidc-provider (test/support/opaque-token-provider.ts), caches the
// answers for a bounded time, and refuses what the provider or its own checks refuse.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, unsignedToken, validClaims } from '../support/local-issuer.js';
import { GATEWAY_CLIENT, startOpaqueTokenProvider, type OpaqueTokenProvider } from '../support/opaque-token-provider.js';
import { rawPost, rawRequest, type RawResponse } from '../support/raw-http.js';
import { startTokenExchangeServer } from '../support/token-exchange-server.js';
import { everythingStdio, startGuardedServer } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const TEAM_URL = 'https://mcp.switchboard.test/team';
const OTHER_RESOURCE = 'https://other.example/api';
const BRIEF_CACHE_SECONDS = 2;

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'introspection-test', version: '1.0.0' } },
};

let provider: OpaqueTokenProvider;
/** Answers cached for a minute (the default): what a deployment runs. */
let gateway: TestGateway;
/** Answers cached for two seconds and a short timeout: for revocation and outages without long waits. */
let brief: TestGateway;

function introspectionConfig(extra: Record<string, unknown> = {}) {
  return { endpoint: provider.introspectionEndpoint, clientId: GATEWAY_CLIENT.clientId, clientSecret: GATEWAY_CLIENT.clientSecret, ...extra };
}

beforeAll(async () => {
  provider = await startOpaqueTokenProvider({
    resources: [PUBLIC_URL, TEAM_URL, OTHER_RESOURCE],
    clients: { agent: 'mcp other', operator: 'mcp switchboard:admin' },
  });
  [gateway, brief] = await Promise.all([
    startGateway({
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: provider.issuer, introspection: introspectionConfig(), requiredScopes: ['mcp'] },
      endpoints: { team: { path: '/team' } },
      mcpServers: { everything: everythingStdio() },
    }),
    startGateway({
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: provider.issuer, introspection: introspectionConfig({ cacheSeconds: BRIEF_CACHE_SECONDS, timeoutMs: 500 }), requiredScopes: ['mcp'] },
      mcpServers: {},
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([gateway?.close(), brief?.close()]);
  await provider?.stop();
});

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

async function initialize(token: string, url = gateway.url): Promise<RawResponse> {
  return rawPost(url, INITIALIZE, { headers: bearer(token) });
}

/** An opaque token for `resource` (null: asked for no resource, so it has no audience). */
const agentToken = (resource: string | null = PUBLIC_URL) => provider.token({ client: 'agent', scope: 'mcp', ...(resource !== null && { resource }) });

describe('an opaque token from the provider', () => {
  it('lets the official client list and call tools', async () => {
    const token = await agentToken();
    expect(token.split('.')).toHaveLength(1); // opaque, not a JWT
    const client = new Client({ name: 'introspection-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: bearer(token) } });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('everything__echo');
      const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'opaque' } });
      expect(JSON.stringify(result.content)).toContain('opaque');
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  });

  it('costs one introspection call however many requests carry it, at once or one after another', async () => {
    const token = await agentToken();
    const before = provider.introspections;
    const together = await Promise.all(Array.from({ length: 5 }, () => initialize(token)));
    const after = [];
    for (let request = 0; request < 5; request += 1) after.push(await initialize(token));
    expect([...together, ...after].map((response) => response.status)).toEqual(Array(10).fill(200));
    expect(provider.introspections - before).toBe(1);
  });

  it('is accepted at another endpoint only when it names that endpoint as its audience', async () => {
    const forTeam = await agentToken(TEAM_URL);
    expect((await initialize(forTeam, new URL('/team', gateway.url).toString())).status).toBe(200);
    expect((await initialize(forTeam)).status).toBe(401);
    expect((await initialize(await agentToken(), new URL('/team', gateway.url).toString())).status).toBe(401);
  });

  it('carries its scopes into the principal: without the required one, 403', async () => {
    const token = await provider.token({ client: 'agent', scope: 'other', resource: PUBLIC_URL });
    const response = await initialize(token);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
  });

  it('opens the admin API when it has the admin scope, and not otherwise', async () => {
    const operator = await provider.token({ client: 'operator', scope: 'mcp switchboard:admin', resource: PUBLIC_URL });
    const status = new URL('/api/status', gateway.adminUrl);
    expect((await fetch(status, { headers: bearer(operator) })).status).toBe(200);
    expect((await fetch(status, { headers: bearer(await agentToken()) })).status).toBe(403);
  });
});

describe('a token the gateway refuses with 401 invalid_token', () => {
  const refused: [string, () => Promise<string>][] = [
    ['a token for another resource', () => agentToken(OTHER_RESOURCE)],
    ['a token without an audience', () => agentToken(null)],
    ['a token the provider never issued', async () => 'bm90LWEtdG9rZW4tdGhlLXByb3ZpZGVyLWlzc3VlZA'],
    ['a JWT-shaped token, which the provider will not introspect', async () => 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.c2lnbmF0dXJl'],
  ];

  it.each(refused)('%s', async (_name, makeToken) => {
    const response = await initialize(await makeToken());
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[^"]+"/);
  });

  it('a token revoked at the provider, once its cached answer is older than cacheSeconds', async () => {
    const token = await agentToken();
    expect((await initialize(token, brief.url)).status).toBe(200);
    // The answer was cached before this moment, so it is gone by this moment + cacheSeconds.
    const cached = Date.now();
    await provider.revoke('agent', token);
    expect(await provider.introspect(token)).toEqual({ active: false });
    // Within cacheSeconds the answer the gateway has is reused: that is the documented bound.
    expect((await initialize(token, brief.url)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, cached + BRIEF_CACHE_SECONDS * 1_000 + 50 - Date.now()));
    const response = await initialize(token, brief.url);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error_description="the token is not active');
  });

  it('a revoked token that was never cached, at once', async () => {
    const token = await agentToken();
    await provider.revoke('agent', token);
    expect((await initialize(token)).status).toBe(401);
  });
});

describe('an introspection endpoint that fails', () => {
  it.each(['fail', 'drop', 'hang'] as const)('gets 503 with Retry-After while it does (%s), and 200 once it answers again', async (mode) => {
    const token = await agentToken();
    provider.setIntrospection(mode);
    try {
      const response = await initialize(token, brief.url);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
    } finally {
      provider.setIntrospection('answer');
    }
    expect((await initialize(token, brief.url)).status).toBe(200);
  });

  it('is named in the log, without the secret or the token', async () => {
    const token = await agentToken();
    provider.setIntrospection('fail');
    try {
      expect((await initialize(token, brief.url)).status).toBe(503);
    } finally {
      provider.setIntrospection('answer');
    }
    const line = brief.logs.findLast((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('tokens cannot be introspected'));
    expect(line).toMatchObject({ level: 'warn', err: `the introspection endpoint ${provider.introspectionEndpoint} answered 500` });
    const everything = JSON.stringify(brief.logs);
    expect(everything).not.toContain(GATEWAY_CLIENT.clientSecret);
    expect(everything).not.toContain(token);
  });

  it('answers 401, not 503, to a request without a token', async () => {
    expect((await rawRequest(brief.url, 'GET', { accept: 'text/event-stream' })).status).toBe(401);
  });
});

describe('with jwksUri and introspection both', () => {
  it('verifies a JWT with the keys, introspects an opaque token, and never introspects a forged JWT', async () => {
    // The provider's JWTs, signed with keys published at jwksUri, carry the same issuer as its opaque tokens.
    const keys = await startLocalIssuer(PUBLIC_URL);
    const both = await startGateway({
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: provider.issuer, jwksUri: keys.jwksUri, introspection: introspectionConfig(), requiredScopes: ['mcp'] },
      mcpServers: {},
    });
    try {
      const before = provider.introspections;
      expect((await initialize(await keys.token({ scope: 'mcp' }, { issuer: provider.issuer }), both.url)).status).toBe(200);
      const unsigned = unsignedToken(validClaims(keys, PUBLIC_URL, { scope: 'mcp', iss: provider.issuer }));
      expect((await initialize(unsigned, both.url)).status).toBe(401);
      expect(provider.introspections).toBe(before);
      expect((await initialize(await agentToken(), both.url)).status).toBe(200);
      expect(provider.introspections).toBe(before + 1);
    } finally {
      await both.close();
      await keys.stop();
    }
  });
});

describe('per-user credentials with an opaque token', () => {
  it('exchanges the caller\'s opaque token (RFC 8693) for one the upstream accepts as the caller', async () => {
    const upstreamAudience = 'https://guarded.switchboard.test';
    // The token-exchange server trusts what the provider's introspection says of the subject token.
    const idp = await startTokenExchangeServer({
      trust: async (token) => {
        const answer = await provider.introspect(token);
        if (answer.active !== true) throw new Error('inactive subject token');
        return answer;
      },
      clients: [{ clientId: 'switchboard', authentication: 'client_secret_basic', secret: 'exchange-secret' }],
      audiences: [upstreamAudience],
    });
    const guarded = await startGuardedServer({ jwks: { url: idp.jwksUri, audience: upstreamAudience, issuer: idp.issuer } });
    const exchanging = await startGateway({
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: provider.issuer, introspection: introspectionConfig() },
      mcpServers: {
        guarded: {
          url: guarded.url,
          isolation: 'session',
          credentials: { tokenExchange: { tokenEndpoint: idp.tokenEndpoint, clientId: 'switchboard', clientSecret: 'exchange-secret', audience: upstreamAudience } },
        },
      },
    });
    const client = new Client({ name: 'introspection-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(exchanging.url), { requestInit: { headers: bearer(await agentToken()) } }));
      const result = (await client.callTool({ name: 'guarded__whoami', arguments: {} })) as { content: { text: string }[] };
      expect(JSON.parse(result.content[0]!.text)).toMatchObject({ via: 'jwt', sub: 'client:agent', aud: upstreamAudience });
      expect(idp.exchanges).toBe(1);
    } finally {
      await client.close();
      await exchanging.close();
      await Promise.all([guarded.stop(), idp.stop()]);
    }
  });
});
