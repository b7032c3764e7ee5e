// tokenExchange credentials (RFC 8693): the gateway exchanges each caller's token at the identity
// provider for one made for the upstream, which sees each caller as themself and never the
// client's own token. Real parts throughout: our authorization server fixture checks every request
// as RFC 8693 says and issues short-lived tokens; the upstream checks those tokens and says who called.
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { connectModern } from '../support/modern-client.js';
import { redisUrl } from '../support/redis.js';
import { roundRobinFetch } from '../support/round-robin.js';
import { startTokenExchangeServer, type TokenExchangeServer } from '../support/token-exchange-server.js';
import { startGuardedServer, type HttpUpstream } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const UPSTREAM_AUDIENCE = 'https://guarded.switchboard.test';
const OTHER_AUDIENCE = 'https://elsewhere.switchboard.test';
const CLIENT_ID = 'switchboard';
const CLIENT_SECRET = 'exchange-client-secret';

let issuer: LocalIssuer;
let idp: TokenExchangeServer;
let guarded: HttpUpstream;
const clients: Client[] = [];

/** The gateway's own public URL and the issuer whose tokens it takes. */
function behindOurIssuer() {
  return { server: { publicUrl: PUBLIC_URL }, auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri } };
}

function exchangeConfig(audience: string) {
  return { tokenEndpoint: idp.tokenEndpoint, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, audience, scopes: ['tools:call'] };
}

beforeAll(async () => {
  issuer = await startLocalIssuer(PUBLIC_URL);
  idp = await startTokenExchangeServer({
    trust: { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: PUBLIC_URL },
    clients: [{ clientId: CLIENT_ID, authentication: 'client_secret_basic', secret: CLIENT_SECRET }],
    audiences: [UPSTREAM_AUDIENCE, OTHER_AUDIENCE],
    expiresIn: 60,
  });
  guarded = await startGuardedServer({ jwks: { url: idp.jwksUri, audience: UPSTREAM_AUDIENCE, issuer: idp.issuer } });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await Promise.all([guarded?.stop(), idp?.stop(), issuer?.stop()]);
});

async function connectAs(sub: string, url: string, fetch?: FetchLike): Promise<{ client: Client; token: string }> {
  const token = await issuer.token({ sub });
  const client = new Client({ name: `client-of-${sub}`, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } }, ...(fetch && { fetch }) }),
  );
  clients.push(client);
  return { client, token };
}

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0]!.text;
}

async function whoami(client: Client, tool = 'guarded__whoami'): Promise<Record<string, unknown>> {
  return JSON.parse(textOf(await client.callTool({ name: tool, arguments: {} }))) as Record<string, unknown>;
}

async function failureOf(promise: Promise<unknown>): Promise<{ code?: number; message: string; data?: Record<string, unknown> }> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, 'the call should have failed').toBeInstanceOf(Error);
  return error as { code?: number; message: string; data?: Record<string, unknown> };
}

describe('tokenExchange on one gateway (memory store)', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway({
      ...behindOurIssuer(),
      mcpServers: {
        guarded: { url: guarded.url, isolation: 'session', credentials: { tokenExchange: exchangeConfig(UPSTREAM_AUDIENCE) } },
      },
    });
  }, 60_000);

  afterAll(async () => {
    idp.accept();
    await gateway?.close();
  });

  it('shows the upstream each of two callers as themself', async () => {
    const [alice, bob] = await Promise.all([connectAs('alice', gateway.url), connectAs('bob', gateway.url)]);
    const [asAlice, asBob] = await Promise.all([whoami(alice.client), whoami(bob.client)]);
    expect(asAlice).toMatchObject({ via: 'jwt', sub: 'alice', aud: UPSTREAM_AUDIENCE });
    expect(asBob).toMatchObject({ via: 'jwt', sub: 'bob', aud: UPSTREAM_AUDIENCE });
    // RFC 8693 as sent: the caller's token as subject_token, for the configured audience and scope.
    expect(idp.lastForm).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: UPSTREAM_AUDIENCE,
      scope: 'tools:call',
    });
  });

  it('never sends the client token upstream', async () => {
    const carol = await connectAs('carol', gateway.url);
    const text = textOf(await carol.client.callTool({ name: 'guarded__last_headers', arguments: {} }));
    const headers = JSON.parse(text) as Record<string, string>;
    expect(headers.authorization).toMatch(/^Bearer /);
    expect(text).not.toContain(carol.token);
    expect(text).not.toContain(carol.token.split('.')[2]!);
    const exchanged = headers.authorization!.slice('Bearer '.length);
    expect(await idp.verify(exchanged, UPSTREAM_AUDIENCE)).toMatchObject({ sub: 'carol' });
  });

  it('reuses a cached token, and renews it once it expires', async () => {
    idp.setExpiresIn(2);
    try {
      const dave = await connectAs('dave', gateway.url);
      for (let call = 0; call < 3; call += 1) expect(await whoami(dave.client)).toMatchObject({ sub: 'dave' });
      expect(idp.exchangesFor('dave')).toBe(1);
      // The upstream checks every request's token: a call after expiry works only with a new one.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      expect(await whoami(dave.client)).toMatchObject({ sub: 'dave' });
      expect(idp.exchangesFor('dave')).toBe(2);
    } finally {
      idp.setExpiresIn(60);
    }
  });

  it('answers a refused exchange with the identity provider\'s error, naming the server', async () => {
    idp.refuse('access_denied', 'erin may not use the guarded server');
    try {
      const erin = await connectAs('erin', gateway.url);
      const failure = await failureOf(erin.client.callTool({ name: 'guarded__whoami', arguments: {} }));
      expect(failure.code).toBe(-32004);
      expect(failure.message).toContain('upstream "guarded"');
      expect(failure.message).toContain('access_denied');
      expect(failure.message).toContain('erin may not use the guarded server');
      expect(failure.message).not.toContain(erin.token);
    } finally {
      idp.accept();
    }
  });

  it('says the token endpoint cannot be reached when it is down', async () => {
    await idp.down();
    try {
      const frank = await connectAs('frank', gateway.url);
      const failure = await failureOf(frank.client.callTool({ name: 'guarded__whoami', arguments: {} }));
      expect(failure.code).toBe(-32000);
      expect(failure.message).toContain('upstream "guarded"');
      expect(failure.message).toMatch(/token endpoint .* cannot be reached/);
    } finally {
      await idp.up();
    }
  });

  it('serves a 2026 caller as themself too', async () => {
    const token = await issuer.token({ sub: 'heidi' });
    const modern = await connectModern(gateway.url, { headers: { authorization: `Bearer ${token}` } });
    clients.push(modern);
    expect(await whoami(modern)).toMatchObject({ sub: 'heidi', aud: UPSTREAM_AUDIENCE });
  });

  it('writes the credential mode in the audit line, and no token anywhere in the log', async () => {
    const ivan = await connectAs('ivan', gateway.url);
    await whoami(ivan.client);
    const lines = gateway.logs.filter((line) => line.audit === true && line.sub === 'ivan' && line.method === 'tools/call');
    expect(lines.at(-1)).toMatchObject({ server: 'guarded', credentialMode: 'tokenExchange', outcome: 'ok' });
    const log = JSON.stringify(gateway.logs);
    expect(log).not.toContain(ivan.token.split('.')[2]!);
    expect(log).not.toContain(CLIENT_SECRET);
  });
});

describe('an upstream that refuses the credentials it is given', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway({
      ...behindOurIssuer(),
      mcpServers: {
        // Its tokens are asked for another audience, which the upstream refuses with a challenge.
        misaimed: { url: guarded.url, isolation: 'session', credentials: { tokenExchange: exchangeConfig(OTHER_AUDIENCE) } },
        // One service credential for everyone, and a wrong one.
        stale: { url: guarded.url, headers: { Authorization: 'Bearer a-revoked-service-token' } },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
  });

  const resourceMetadata = () => `${new URL(guarded.url).origin}/.well-known/oauth-protected-resource`;

  it('names the server and its resource_metadata when it refuses a caller\'s exchanged token', async () => {
    const grace = await connectAs('grace', gateway.url);
    const failure = await failureOf(grace.client.callTool({ name: 'misaimed__whoami', arguments: {} }));
    expect(failure.code).toBe(-32004);
    expect(failure.message).toContain('upstream "misaimed" refused the gateway\'s credentials (401');
    expect(failure.message).toContain(resourceMetadata());
    expect(failure.data).toMatchObject({ server: 'misaimed', reason: 'challenge', status: 401, resourceMetadata: resourceMetadata() });
  });

  it('names the server and its resource_metadata when it refuses the configured credential', async () => {
    const grace = await connectAs('grace', gateway.url);
    const failure = await failureOf(grace.client.callTool({ name: 'stale__whoami', arguments: {} }));
    expect(failure.code).toBe(-32004);
    expect(failure.message).toContain('upstream "stale" refused the gateway\'s credentials (401');
    expect(failure.message).toContain(resourceMetadata());
  });

  it('counts the challenges in a metric', async () => {
    const metrics = await (await fetch(new URL('/metrics', gateway.url))).text();
    expect(metrics).toMatch(/switchboard_upstream_auth_challenges_total\{server="misaimed",status="401"\} [1-9]/);
    expect(metrics).toMatch(/switchboard_upstream_auth_challenges_total\{server="stale",status="401"\} [1-9]/);
  });
});

describe('tokenExchange on two replicas sharing Redis', () => {
  let replicas: TestGateway[] = [];

  beforeAll(async () => {
    const config = {
      ...behindOurIssuer(),
      sessions: { store: 'redis' as const, redisUrl: redisUrl(), credentialKey: 'a-key-every-replica-shares-0123456789' },
      mcpServers: { guarded: { url: guarded.url, isolation: 'session' as const, credentials: { tokenExchange: exchangeConfig(UPSTREAM_AUDIENCE) } } },
    };
    replicas = await Promise.all([startGateway(config), startGateway(config)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
  });

  it('reuses on one replica the token another obtained', async () => {
    const judy = await connectAs('judy', replicas[0]!.url, roundRobinFetch(() => replicas));
    // Round robin: the calls alternate between the replicas, each with its own upstream connection.
    for (let call = 0; call < 4; call += 1) expect(await whoami(judy.client)).toMatchObject({ sub: 'judy' });
    expect(idp.exchangesFor('judy')).toBe(1);
  });

  it('serves 2026 callers from either replica with the shared token', async () => {
    const token = await issuer.token({ sub: 'mallory' });
    for (const replica of replicas) {
      const modern = await connectModern(replica.url, { headers: { authorization: `Bearer ${token}` } });
      clients.push(modern);
      expect(await whoami(modern)).toMatchObject({ sub: 'mallory' });
    }
    expect(idp.exchangesFor('mallory')).toBe(1);
  });
});
