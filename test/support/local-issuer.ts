// An identity provider of our own for the auth tests: signing keys made with jose, a JWKS served on
// 127.0.0.1 by node:http (whose keys a test can replace, as a provider does when it rotates them),
// and tokens signed with those keys, or forged in the ways an attacker would try.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface SigningKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256';
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
}

export interface TokenOptions {
  /** Default: the issuer's current key. */
  readonly key?: SigningKey;
  /** Seconds from now; default 300. */
  readonly expiresIn?: number;
  /** Seconds from now; default none. */
  readonly notBefore?: number;
  readonly issuer?: string;
  readonly audience?: string | string[];
  readonly omit?: readonly ('sub' | 'exp' | 'aud')[];
}

export interface LocalIssuer {
  readonly issuer: string;
  readonly jwksUri: string;
  /** The key new tokens are signed with. */
  readonly currentKey: SigningKey;
  /** How many times the JWKS was fetched. */
  readonly fetches: number;
  newKey(alg?: SigningKey['alg']): Promise<SigningKey>;
  /** Replaces the published key set and makes `keys[0]` the signing key. */
  publish(keys: readonly SigningKey[]): void;
  token(claims: JWTPayload, options?: TokenOptions): Promise<string>;
  stop(): Promise<void>;
}

export async function startLocalIssuer(audience: string): Promise<LocalIssuer> {
  let published: readonly SigningKey[] = [await makeKey('RS256')];
  let fetches = 0;
  const server: Server = createServer((request, response) => {
    if (request.url !== '/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    fetches += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: published.map((key) => key.publicJwk) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  return {
    issuer,
    jwksUri: `${issuer}/jwks.json`,
    get currentKey() {
      return published[0]!;
    },
    get fetches() {
      return fetches;
    },
    newKey: makeKey,
    publish(keys) {
      published = [...keys];
    },
    async token(claims, options = {}) {
      const key = options.key ?? published[0]!;
      const now = Math.floor(Date.now() / 1000);
      const omit = new Set(options.omit ?? []);
      const payload: JWTPayload = {
        ...(!omit.has('sub') && { sub: `user-${randomUUID()}` }),
        ...claims,
        iss: options.issuer ?? issuer,
        ...(!omit.has('aud') && { aud: options.audience ?? audience }),
        iat: now,
        ...(!omit.has('exp') && { exp: now + (options.expiresIn ?? 300) }),
        ...(options.notBefore !== undefined && { nbf: now + options.notBefore }),
      };
      return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' }).sign(key.privateKey);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function makeKey(alg: SigningKey['alg'] = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = randomUUID();
  return { kid, alg, privateKey, publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

// ---- forgeries ---------------------------------------------------------------------------------

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An unsigned token (`alg: none`) with claims that would otherwise pass. */
export function unsignedToken(claims: JWTPayload): string {
  return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
}

/**
 * The algorithm-confusion attack: HS256 with the issuer's *public* key (which anyone can fetch) as
 * the HMAC secret, in the PEM form or the JWK's JSON form that a naive verifier might use.
 */
export async function hmacWithPublicKey(claims: JWTPayload, key: SigningKey, form: 'pem' | 'jwk'): Promise<string> {
  const secret = form === 'pem' ? await exportSPKI(key.publicKey) : JSON.stringify(key.publicJwk);
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: key.kid }).sign(new TextEncoder().encode(secret));
}

/** Claims that pass every check of the gateway configured with this issuer and audience. */
export function validClaims(issuer: LocalIssuer, audience: string, extra: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return { sub: `user-${randomUUID()}`, iss: issuer.issuer, aud: audience, iat: now, exp: now + 300, ...extra };
}
