// The tokenExchange credential source against a real RFC 8693 token endpoint over real HTTP
// (test/support/token-exchange-server.ts), exchanging real tokens of a local issuer: what it sends,
// how it authenticates, what it caches and renews, and what each failure looks like to the caller.
import { randomUUID } from 'node:crypto';
import { exportPKCS8, generateKeyPair, type CryptoKey } from 'jose';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AccessToken } from '../../src/auth/access-token.js';
import { principalFromClaims } from '../../src/auth/principal-from-claims.js';
import type { Principal } from '../../src/auth/principal.js';
import { credentialsSection, type TokenExchangeConfig } from '../../src/config/credentials.js';
import { CredentialMissingError, CredentialRefusedError, CredentialUnavailableError } from '../../src/credentials/errors.js';
import { tokenExchangeSource, type TokenExchangeSourceOptions } from '../../src/credentials/exchange-source.js';
import { MemoryTokenCache } from '../../src/credentials/memory-token-cache.js';
import type { TokenCache } from '../../src/credentials/token-cache.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { startTokenExchangeServer, type TokenExchangeServer } from '../support/token-exchange-server.js';

const GATEWAY = 'https://mcp.switchboard.test/mcp';
const UPSTREAM_AUDIENCE = 'https://api.upstream.test';
const UPSTREAM_RESOURCE = 'https://api.upstream.test/mcp';
// Characters that RFC 6749 2.3.1's form-encoding inside Basic is there for.
const BASIC_SECRET = 'basic secret:with/odd+chars&é';
const POST_SECRET = 'post-secret';

let issuer: LocalIssuer;
let server: TokenExchangeServer;
let clientKey: { privateKeyPem: string; publicKey: CryptoKey };

beforeAll(async () => {
  issuer = await startLocalIssuer(GATEWAY);
  const pair = await generateKeyPair('RS256', { extractable: true });
  clientKey = { privateKeyPem: await exportPKCS8(pair.privateKey), publicKey: pair.publicKey };
  server = await startTokenExchangeServer({
    trust: { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: GATEWAY },
    clients: [
      { clientId: 'gateway-basic', authentication: 'client_secret_basic', secret: BASIC_SECRET },
      { clientId: 'gateway-post', authentication: 'client_secret_post', secret: POST_SECRET },
      { clientId: 'gateway-jwt', authentication: 'private_key_jwt', publicKey: clientKey.publicKey },
      { clientId: 'gateway-no-exchange', authentication: 'client_secret_post', secret: POST_SECRET, mayExchange: false },
    ],
    audiences: [UPSTREAM_AUDIENCE],
    resources: [UPSTREAM_RESOURCE],
  });
});

afterAll(async () => {
  await Promise.all([server?.stop(), issuer?.stop()]);
});

beforeEach(async () => {
  server.accept();
  server.setExpiresIn(60);
  await server.up();
});

/** The tokenExchange block as the config loader gives it, defaults filled in. */
function exchangeConfig(overrides: Record<string, unknown> = {}): TokenExchangeConfig {
  const block = { tokenEndpoint: server.tokenEndpoint, clientId: 'gateway-basic', clientSecret: BASIC_SECRET, audience: UPSTREAM_AUDIENCE, ...overrides };
  return credentialsSection.parse({ tokenExchange: block }).tokenExchange!;
}

function source(overrides: Record<string, unknown> = {}, cache: TokenCache = new MemoryTokenCache(), options: TokenExchangeSourceOptions = {}) {
  return tokenExchangeSource('github', exchangeConfig(overrides), cache, options);
}

/** A caller as the gateway's auth middleware makes one: verified claims and the token beside them. */
async function caller(claims: Record<string, unknown> = {}): Promise<{ principal: Principal; token: string }> {
  // A jti of its own: RS256 is deterministic, and two tokens of one caller in one second would be one.
  const token = await issuer.token({ jti: randomUUID(), ...claims });
  const verified = decodeJwt(token) as ReturnType<typeof decodeJwt> & { sub: string };
  return { principal: principalFromClaims(verified, new AccessToken(token)), token };
}

function bearerOf(credential: { headers: Readonly<Record<string, string>> }): string {
  const header = credential.headers.authorization ?? '';
  expect(header).toMatch(/^Bearer \S+$/);
  return header.slice('Bearer '.length);
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail('expected the resolve to fail'),
    (error: unknown) => error as Error,
  );
}

describe('client authentication at the token endpoint', () => {
  it('client_secret_basic is accepted and the upstream gets a token made for it, about the caller', async () => {
    const { principal } = await caller();
    const credential = await source().resolve(principal);
    const claims = await server.verify(bearerOf(credential), UPSTREAM_AUDIENCE);
    expect(claims).toMatchObject({ sub: principal.sub, aud: UPSTREAM_AUDIENCE, client_id: 'gateway-basic', act: { sub: 'gateway-basic' } });
    expect(credential.env).toEqual({});
    expect(server.lastForm).not.toHaveProperty('client_secret');
    expect(server.lastForm).not.toHaveProperty('client_id');
  });

  it('client_secret_basic sends the id and secret form-urlencoded inside Basic, as RFC 6749 2.3.1 says', async () => {
    const { principal } = await caller();
    await source().resolve(principal);
    const basic = Buffer.from(server.lastHeaders!.authorization!.replace(/^Basic /, ''), 'base64').toString('utf8');
    expect(basic).toBe(`gateway-basic:${new URLSearchParams({ s: BASIC_SECRET }).toString().slice(2)}`);
  });

  it('client_secret_post is accepted, with the id and secret in the form and no Authorization header', async () => {
    const { principal } = await caller();
    const credential = await source({ clientId: 'gateway-post', clientSecret: POST_SECRET, clientAuthentication: 'client_secret_post' }).resolve(principal);
    expect(await server.verify(bearerOf(credential), UPSTREAM_AUDIENCE)).toMatchObject({ sub: principal.sub, client_id: 'gateway-post' });
    expect(server.lastForm).toMatchObject({ client_id: 'gateway-post', client_secret: POST_SECRET });
    expect(server.lastHeaders!.authorization).toBeUndefined();
  });

  it('private_key_jwt is accepted, with a fresh signed assertion on every exchange', async () => {
    const jwt = source({ clientId: 'gateway-jwt', clientSecret: undefined, clientAuthentication: 'private_key_jwt', privateKey: clientKey.privateKeyPem, keyId: 'k1' });
    const first = await caller();
    expect(await server.verify(bearerOf(await jwt.resolve(first.principal)), UPSTREAM_AUDIENCE)).toMatchObject({ sub: first.principal.sub, client_id: 'gateway-jwt' });
    const assertion = decodeJwt(server.lastForm!.client_assertion!);
    expect(assertion).toMatchObject({ iss: 'gateway-jwt', sub: 'gateway-jwt', aud: server.tokenEndpoint });
    expect(assertion.exp! - assertion.iat!).toBeLessThanOrEqual(60);
    expect(server.lastForm).toMatchObject({ client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_id: 'gateway-jwt' });
    expect(server.lastForm).not.toHaveProperty('client_secret');

    // The server refuses a replayed jti, so a second caller's exchange proves a new assertion.
    const second = await caller();
    await jwt.resolve(second.principal);
    expect(decodeJwt(server.lastForm!.client_assertion!).jti).not.toBe(assertion.jti);
  });

  it('a wrong client secret is refused as invalid_client', async () => {
    const { principal } = await caller();
    const error = await rejection(source({ clientSecret: 'not-the-secret' }).resolve(principal));
    expect(error).toBeInstanceOf(CredentialRefusedError);
    expect((error as CredentialRefusedError).error).toBe('invalid_client');
    expect(error.message).not.toContain('not-the-secret');
  });

  it('an assertion signed with a key the server does not know is refused as invalid_client', async () => {
    const other = await generateKeyPair('RS256', { extractable: true });
    const { principal } = await caller();
    const error = await rejection(source({ clientId: 'gateway-jwt', clientSecret: undefined, clientAuthentication: 'private_key_jwt', privateKey: await exportPKCS8(other.privateKey) }).resolve(principal));
    expect((error as CredentialRefusedError).error).toBe('invalid_client');
  });

  it('a private key that is not a PKCS#8 PEM makes the source unavailable, naming the setting and not the key', async () => {
    const notAKey = '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----';
    const { principal } = await caller();
    const exchangesBefore = server.exchanges;
    const error = await rejection(source({ clientId: 'gateway-jwt', clientSecret: undefined, clientAuthentication: 'private_key_jwt', privateKey: notAKey }).resolve(principal));
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect(error.message).toContain('privateKey is not a PKCS#8 PEM private key for RS256');
    expect(error.message).not.toContain('bm90IGEga2V5');
    expect(server.exchanges).toBe(exchangesBefore);
  });
});

describe('the exchange request', () => {
  it('is a form POST with the fields RFC 8693 asks for', async () => {
    const { principal, token } = await caller();
    await source({ resource: UPSTREAM_RESOURCE, scopes: ['repo:read', 'issues:write'] }).resolve(principal);
    expect(server.lastHeaders!['content-type']).toBe('application/x-www-form-urlencoded');
    expect(server.lastForm).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: UPSTREAM_AUDIENCE,
      resource: UPSTREAM_RESOURCE,
      scope: 'repo:read issues:write',
    });
  });

  it('leaves out scope, audience and resource that are not configured', async () => {
    const { principal } = await caller();
    await source({ audience: undefined, resource: UPSTREAM_RESOURCE }).resolve(principal);
    expect(server.lastForm).not.toHaveProperty('scope');
    expect(server.lastForm).not.toHaveProperty('audience');
    expect(server.lastForm!.resource).toBe(UPSTREAM_RESOURCE);
  });

  it('a principal without a token is CredentialMissingError, and nothing is sent', async () => {
    const { principal } = await caller();
    const { token: _token, ...withoutToken } = principal;
    const before = server.exchanges;
    const error = await rejection(source().resolve(withoutToken));
    expect(error).toBeInstanceOf(CredentialMissingError);
    expect(error.message).toContain('the request carries no access token to exchange');
    expect(server.exchanges).toBe(before);
  });
});

describe('caching and renewal', () => {
  it('reuses the exchanged token: several calls of one caller cost one exchange', async () => {
    const exchange = source();
    const { principal } = await caller();
    const first = await exchange.resolve(principal);
    const second = await exchange.resolve(principal);
    const third = await exchange.resolve(principal);
    expect(server.exchangesFor(principal.sub)).toBe(1);
    expect(second.headers).toEqual(first.headers);
    expect(third.expiresAt).toBe(first.expiresAt);
  });

  it('two concurrent resolves of one caller share one exchange', async () => {
    const exchange = source();
    const { principal } = await caller();
    const [first, second] = await Promise.all([exchange.resolve(principal), exchange.resolve(principal)]);
    expect(server.exchangesFor(principal.sub)).toBe(1);
    expect(second.headers).toEqual(first.headers);
  });

  it('each caller gets a token of their own', async () => {
    const exchange = source();
    const alice = await caller();
    const bob = await caller();
    const [forAlice, forBob] = await Promise.all([exchange.resolve(alice.principal), exchange.resolve(bob.principal)]);
    expect((await server.verify(bearerOf(forAlice), UPSTREAM_AUDIENCE)).sub).toBe(alice.principal.sub);
    expect((await server.verify(bearerOf(forBob), UPSTREAM_AUDIENCE)).sub).toBe(bob.principal.sub);
  });

  it('one caller with tokens of different scopes gets a token per scope set', async () => {
    const exchange = source();
    const readOnly = await caller({ scope: 'read' });
    const readWrite = await caller({ sub: readOnly.principal.sub, scope: 'read write' });
    await exchange.resolve(readOnly.principal);
    await exchange.resolve(readWrite.principal);
    expect(server.exchangesFor(readOnly.principal.sub)).toBe(2);
  });

  it('renews a short-lived token shortly before it expires (at 90% of a 2-second life)', async () => {
    server.setExpiresIn(2);
    let clock = Date.now();
    const now = () => clock;
    const exchange = source({}, new MemoryTokenCache({ now }), { now });
    const { principal } = await caller();
    const first = await exchange.resolve(principal);
    expect(first.expiresAt).toBe(clock + 1_800);

    clock += 1_700;
    expect((await exchange.resolve(principal)).headers).toEqual(first.headers);
    expect(server.exchangesFor(principal.sub)).toBe(1);

    clock += 200;
    const renewed = await exchange.resolve(principal);
    expect(server.exchangesFor(principal.sub)).toBe(2);
    expect(renewed.expiresAt).toBe(clock + 1_800);
  });

  it('renews a long-lived token 30 seconds before it expires', async () => {
    server.setExpiresIn(3600);
    const before = Date.now();
    const { principal } = await caller();
    const credential = await source().resolve(principal);
    expect(credential.expiresAt).toBeGreaterThanOrEqual(before + 3_570_000);
    expect(credential.expiresAt).toBeLessThanOrEqual(Date.now() + 3_570_000);
  });

  it('a token without expires_in is kept for the default five minutes, less the margin', async () => {
    server.setExpiresIn(undefined);
    const before = Date.now();
    const { principal } = await caller();
    const credential = await source().resolve(principal);
    expect(credential.expiresAt).toBeGreaterThanOrEqual(before + 270_000);
    expect(credential.expiresAt).toBeLessThanOrEqual(Date.now() + 270_000);
  });
});

describe('refusals', () => {
  it('a refused exchange is CredentialRefusedError with the provider\'s error and description, and no token', async () => {
    server.refuse('invalid_grant', 'the subject token was revoked');
    const { principal, token } = await caller();
    const error = await rejection(source().resolve(principal));
    expect(error).toBeInstanceOf(CredentialRefusedError);
    expect(error).toMatchObject({ server: 'github', error: 'invalid_grant', description: 'the subject token was revoked' });
    expect(error.message).toContain('invalid_grant');
    expect(error.message).toContain('the subject token was revoked');
    expect(`${error.message} ${JSON.stringify(error)} ${String(error.stack)}`).not.toContain(token);
  });

  it('a provider that echoes the subject token in its description does not get it repeated', async () => {
    const { principal, token } = await caller();
    server.refuse('invalid_grant', `token ${token} is not acceptable`);
    const error = await rejection(source().resolve(principal));
    expect(error.message).toContain('token [redacted] is not acceptable');
    expect(error.message).not.toContain(token);
  });

  it('an audience the provider does not serve is refused as invalid_target', async () => {
    const { principal } = await caller();
    const error = await rejection(source({ audience: 'https://elsewhere.test' }).resolve(principal));
    expect(error).toMatchObject({ error: 'invalid_target' });
  });

  it('a client not allowed to exchange is refused as unauthorized_client', async () => {
    const { principal } = await caller();
    const error = await rejection(source({ clientId: 'gateway-no-exchange', clientSecret: POST_SECRET, clientAuthentication: 'client_secret_post' }).resolve(principal));
    expect(error).toMatchObject({ error: 'unauthorized_client' });
  });

  it('a token from an issuer the provider does not trust is refused as invalid_grant', async () => {
    const stranger = await startLocalIssuer(GATEWAY);
    try {
      const token = await stranger.token({});
      const principal = principalFromClaims({ sub: 'mallory' }, new AccessToken(token));
      expect(await rejection(source().resolve(principal))).toMatchObject({ error: 'invalid_grant' });
    } finally {
      await stranger.stop();
    }
  });

  it('a refusal is not cached as a token, and is answered from memory for a few seconds per subject token', async () => {
    let clock = Date.now();
    const now = () => clock;
    const exchange = source({}, new MemoryTokenCache({ now }), { now });
    const { principal } = await caller();
    server.refuse('invalid_grant', 'not now');
    await rejection(exchange.resolve(principal));
    server.accept();

    // The same token again, at once: the refusal is remembered, the provider is spared.
    expect(await rejection(exchange.resolve(principal))).toBeInstanceOf(CredentialRefusedError);
    expect(server.exchangesFor(principal.sub)).toBe(1);

    // A new token of the same caller is asked about at once.
    const renewed = await caller({ sub: principal.sub });
    await exchange.resolve(renewed.principal);
    expect(server.exchangesFor(principal.sub)).toBe(2);

    // And the old one, once the memory has passed (no token was cached for it as a refusal).
    const again = await caller({ sub: principal.sub, scope: 'other' });
    server.refuse('invalid_grant', 'not now');
    await rejection(exchange.resolve(again.principal));
    server.accept();
    clock += 5_001;
    await exchange.resolve(again.principal);
    expect(server.exchangesFor(principal.sub)).toBe(4);
  });
});

describe('an unavailable token endpoint', () => {
  it('that cannot be reached is CredentialUnavailableError naming the endpoint and why, and works again when it is back', async () => {
    let clock = Date.now();
    const exchange = source({}, new MemoryTokenCache(), { now: () => clock });
    await exchange.resolve((await caller()).principal); // a kept-alive connection to the endpoint
    const { principal } = await caller();
    await server.down();
    const error = await rejection(exchange.resolve(principal));
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect(error.message).toContain(`its token endpoint ${server.tokenEndpoint} cannot be reached (ECONNREFUSED)`);
    await server.up();
    clock += 2_001; // the outage's first spell (recent-outages.ts)
    expect(bearerOf(await exchange.resolve(principal))).not.toBe('');
  });

  it('a kept-alive connection the endpoint closed is no outage: the exchange goes again on a new one', async () => {
    const exchange = source();
    await exchange.resolve((await caller()).principal);
    server.dropConnections();
    const { principal } = await caller();
    await exchange.resolve(principal);
    expect(server.exchangesFor(principal.sub)).toBe(1);
  });

  it('that answers 503 is unavailable, not a refusal', async () => {
    server.answerWith(503, 'try later', 'text/plain');
    const { principal } = await caller();
    const error = await rejection(source().resolve(principal));
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect(error.message).toContain(`its token endpoint ${server.tokenEndpoint} answered 503`);
  });

  it('that answers 200 without an access token is unavailable', async () => {
    server.answerWith(200, JSON.stringify({ token_type: 'Bearer', expires_in: 60 }));
    const { principal } = await caller();
    const error = await rejection(source().resolve(principal));
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect(error.message).toContain('answered 200 without an access_token');
  });

  it('that answers a 404 page is unavailable, with a hint at the URL', async () => {
    server.answerWith(404, '<html>Not Found</html>', 'text/html');
    const { principal } = await caller();
    const error = await rejection(source().resolve(principal));
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect(error.message).toContain('answered 404 without an OAuth error (is tokenEndpoint the right URL?)');
  });

  it('that does not answer within timeoutMs is unavailable', async () => {
    server.stall();
    const { principal } = await caller();
    const error = await rejection(source({ timeoutMs: 300 }).resolve(principal));
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect(error.message).toContain('did not answer within 300 ms');
  });

  it('an outage is answered from memory for a spell that grows while it lasts, per caller, and forgotten at the first token', async () => {
    let clock = Date.now();
    const now = () => clock;
    const exchange = source({}, new MemoryTokenCache({ now }), { now });
    const { principal } = await caller();
    const other = await caller({ sub: 'bob' });
    server.answerWith(503, '');
    await rejection(exchange.resolve(principal));
    expect(server.exchangesFor(principal.sub)).toBe(1);

    // Within the spell: the same error, and the endpoint is not asked.
    expect(await rejection(exchange.resolve(principal))).toBeInstanceOf(CredentialUnavailableError);
    expect(server.exchangesFor(principal.sub)).toBe(1);
    // Another caller is asked about (and learns the outage for themself).
    await rejection(exchange.resolve(other.principal));
    expect(server.exchangesFor('bob')).toBe(1);

    // After the first spell (2 s) it is asked again; still down, the next spell is longer (4 s).
    clock += 2_001;
    await rejection(exchange.resolve(principal));
    expect(server.exchangesFor(principal.sub)).toBe(2);
    clock += 2_001;
    await rejection(exchange.resolve(principal));
    expect(server.exchangesFor(principal.sub)).toBe(2);
    clock += 2_000;
    server.accept();
    expect(bearerOf(await exchange.resolve(principal))).not.toBe('');
    expect(server.exchangesFor(principal.sub)).toBe(3);
  });

  it('concurrent resolves during a stall share one exchange, and its timeout is remembered', async () => {
    server.stall();
    const exchange = source({ timeoutMs: 300 });
    const { principal } = await caller();
    const errors = await Promise.all([1, 2, 3].map(() => rejection(exchange.resolve(principal))));
    for (const error of errors) expect(error.message).toContain('did not answer within 300 ms');
    expect(server.exchangesFor(principal.sub)).toBe(1);
    const started = performance.now();
    expect((await rejection(exchange.resolve(principal))).message).toContain('did not answer within 300 ms');
    // Answered from memory, well under the exchange's own timeout.
    expect(performance.now() - started).toBeLessThan(150);
  });
});
