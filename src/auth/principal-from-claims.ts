// A verified token's claims -> the Principal the rest of the gateway sees. Scopes come from the
// `scope` claim (RFC 9068, RFC 8693: one space-separated string) or, as Azure AD and Okta issue
// them, from `scp` (an array, or a string).
import type { JWTPayload } from 'jose';
import type { AccessToken } from './access-token.js';
import type { Principal } from './principal.js';

export function principalFromClaims(claims: JWTPayload & { sub: string }, token?: AccessToken): Principal {
  return Object.freeze({
    sub: claims.sub,
    scopes: Object.freeze(scopesOf(claims)),
    claims: Object.freeze({ ...claims }),
    ...(token && { token }),
  });
}

export function scopesOf(claims: JWTPayload): string[] {
  const scopes = new Set<string>();
  for (const source of [claims.scope, claims.scp]) {
    if (typeof source === 'string') source.split(/\s+/).forEach((scope) => scope && scopes.add(scope));
    else if (Array.isArray(source)) source.forEach((scope) => typeof scope === 'string' && scope && scopes.add(scope));
  }
  return [...scopes];
}
