// Exchanged tokens shared by replicas through a real Redis (test/support/global-setup.ts): two
// sources with caches of their own stand for two replicas of one deployment. What Redis holds must
// name no caller and show no token, and what does not open is a miss, never the caller's error.
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AccessToken } from '../../src/auth/access-token.js';
import { principalFromClaims } from '../../src/auth/principal-from-claims.js';
import type { Principal } from '../../src/auth/principal.js';
import { credentialsSection } from '../../src/config/credentials.js';
import { tokenExchangeSource, type TokenExchangeSourceOptions } from '../../src/credentials/exchange-source.js';
import { RedisTokenCache } from '../../src/credentials/redis-token-cache.js';
import type { CredentialSource } from '../../src/credentials/types.js';
import { freePort } from '../support/free-port.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { deleteKeysWithPrefix, redisUrl, uniqueKeyPrefix } from '../support/redis.js';
import { startTokenExchangeServer, type TokenExchangeServer } from '../support/token-exchange-server.js';

const GATEWAY = 'https://mcp.switchboard.test/mcp';
const UPSTREAM = 'https://api.upstream.test';
const SECRET = 'exchange-client-secret';
const CREDENTIAL_KEY = 'a-credential-key-of-at-least-32-characters';

let issuer: LocalIssuer;
let server: TokenExchangeServer;
let redis: Redis;
const prefixes: string[] = [];
const caches: RedisTokenCache[] = [];

beforeAll(async () => {
  issuer = await startLocalIssuer(GATEWAY);
  server = await startTokenExchangeServer({
    trust: { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: GATEWAY },
    clients: [{ clientId: 'gateway', authentication: 'client_secret_basic', secret: SECRET }],
    audiences: [UPSTREAM],
  });
  redis = new Redis(redisUrl(), { maxRetriesPerRequest: 2 });
});

afterEach(async () => {
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
});

afterAll(async () => {
  await Promise.all(prefixes.map((prefix) => deleteKeysWithPrefix(redisUrl(), prefix)));
  redis?.disconnect();
  await Promise.all([server?.stop(), issuer?.stop()]);
});

/** A deployment: replicas that share a Redis key prefix (and, unless told otherwise, the credential key). */
function deployment() {
  const keyPrefix = uniqueKeyPrefix('credential-cache');
  prefixes.push(keyPrefix);
  const config = credentialsSection.parse({ tokenExchange: { tokenEndpoint: server.tokenEndpoint, clientId: 'gateway', clientSecret: SECRET, audience: UPSTREAM } }).tokenExchange!;
  return {
    keyPrefix,
    replica(credentialKey = CREDENTIAL_KEY, options: TokenExchangeSourceOptions = {}, url = redisUrl()): CredentialSource {
      const cache = new RedisTokenCache({ redis: url, credentialKey, keyPrefix });
      caches.push(cache);
      return tokenExchangeSource('github', config, cache, options);
    },
    async keys(): Promise<string[]> {
      return redis.keys(`${keyPrefix}*`);
    },
  };
}

async function caller(): Promise<{ principal: Principal; token: string }> {
  const token = await issuer.token({ jti: randomUUID() });
  return { principal: principalFromClaims(decodeJwt(token) as ReturnType<typeof decodeJwt> & { sub: string }, new AccessToken(token)), token };
}

const bearerOf = (credential: { headers: Readonly<Record<string, string>> }) => credential.headers.authorization!.replace(/^Bearer /, '');

describe('the Redis token cache', () => {
  it('lets a second replica use the token the first one obtained: one exchange for the deployment', async () => {
    const { replica } = deployment();
    const [first, second] = [replica(), replica()];
    const { principal } = await caller();
    const fromFirst = await first.resolve(principal);
    const fromSecond = await second.resolve(principal);
    expect(server.exchangesFor(principal.sub)).toBe(1);
    expect(fromSecond.headers).toEqual(fromFirst.headers);
    expect(fromSecond.expiresAt).toBe(fromFirst.expiresAt);
  });

  it('stores the token sealed, under a key that does not name the caller, until it is due', async () => {
    const { replica, keys, keyPrefix } = deployment();
    const { principal, token: subjectToken } = await caller();
    const credential = await replica().resolve(principal);
    const issued = bearerOf(credential);

    const stored = await keys();
    expect(stored).toHaveLength(1);
    const [key] = stored as [string];
    expect(key).toMatch(new RegExp(`^${keyPrefix}credential:[0-9a-f]{64}$`));
    expect(key).not.toContain(principal.sub);

    const value = (await redis.get(key))!;
    for (const secret of [issued, ...issued.split('.'), subjectToken, principal.sub]) expect(value).not.toContain(secret);
    expect(Buffer.from(value, 'base64url').toString('latin1')).not.toContain(principal.sub);

    // The entry expires when the token is due: Redis reads its clock between `before` and `after`
    // (the same clock), so its TTL lies between what is left at either moment, within a rounding.
    const before = Date.now();
    const ttl = await redis.pttl(key);
    const after = Date.now();
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(credential.expiresAt - before + 1);
    expect(ttl).toBeGreaterThanOrEqual(credential.expiresAt - after - 1);
  });

  it('is a miss for a replica with another credential key, which exchanges instead of failing', async () => {
    const { replica } = deployment();
    const { principal } = await caller();
    await replica().resolve(principal);
    const other = await replica('another-credential-key-of-32-characters-or-more').resolve(principal);
    expect(server.exchangesFor(principal.sub)).toBe(2);
    expect((await server.verify(bearerOf(other), UPSTREAM)).sub).toBe(principal.sub);
  });

  it('is a miss for a value that was altered in Redis', async () => {
    const { replica, keys } = deployment();
    const { principal } = await caller();
    await replica().resolve(principal);
    const [key] = (await keys()) as [string];
    const value = (await redis.get(key))!;
    const bytes = Buffer.from(value, 'base64url');
    bytes[20] = bytes[20]! ^ 0x01;
    const altered = bytes.toString('base64url');
    await redis.set(key, altered, 'PX', 60_000);
    await replica().resolve(principal);
    expect(server.exchangesFor(principal.sub)).toBe(2);
  });

  it('does not open one caller\'s token moved under another caller\'s key', async () => {
    const { replica, keys } = deployment();
    const alice = await caller();
    await replica().resolve(alice.principal);
    const [aliceKey] = (await keys()) as [string];
    const bob = await caller();
    await replica().resolve(bob.principal);
    const bobKey = (await keys()).find((key) => key !== aliceKey)!;

    await redis.set(bobKey, (await redis.get(aliceKey))!, 'PX', 60_000);
    const forBob = await replica().resolve(bob.principal);
    expect((await server.verify(bearerOf(forBob), UPSTREAM)).sub).toBe(bob.principal.sub);
    expect(server.exchangesFor(bob.principal.sub)).toBe(2);
  });

  it('that does not answer is skipped: the exchange still works, and the outage is logged once', async () => {
    const { replica } = deployment();
    const logger = { info: vi.fn(), warn: vi.fn() };
    const nowhere = `redis://127.0.0.1:${await freePort()}`;
    const source = replica(CREDENTIAL_KEY, { logger }, nowhere);
    const { principal, token } = await caller();
    const credential = await source.resolve(principal);
    await source.resolve(principal);
    expect((await server.verify(bearerOf(credential), UPSTREAM)).sub).toBe(principal.sub);
    expect(server.exchangesFor(principal.sub)).toBe(2);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    const logged = JSON.stringify(logger.warn.mock.calls);
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(bearerOf(credential));
  });
});
