// A verified token's claims -> the Principal the rest of the gateway sees. Scopes come from the
// `scope` claim (RFC 9068, RFC 8693: one space-separated string) or, as Azure AD and Okta issue
// them, from `scp` (an array, or a string).
import type { JWTPayload } from 'jose';
import type { AccessToken } from './access-token.js';
import type { Principal } from './principal.js';

export function principalFromClaims(claims: JWTPayload & { sub: string }, token?: AccessToken, subject: string = claims.sub): Principal {
  return Object.freeze({
    sub: subject,
    scopes: Object.freeze(scopesOf(claims)),
    claims: Object.freeze({ ...claims }),
    ...(token && { token }),
  });
}

/**
 * The person a token names: its `sub`, or the claim auth.subjectClaim names (Entra ID's `oid`, since
 * its `sub` is pairwise, another value in each client app's tokens). Undefined when it is missing.
 */
export function subjectOf(claims: JWTPayload, subjectClaim = 'sub'): string | undefined {
  const value = claims[subjectClaim];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function scopesOf(claims: JWTPayload): string[] {
  const scopes = new Set<string>();
  for (const source of [claims.scope, claims.scp]) {
    if (typeof source === 'string') source.split(/\s+/).forEach((scope) => scope && scopes.add(scope));
    else if (Array.isArray(source)) source.forEach((scope) => typeof scope === 'string' && scope && scopes.add(scope));
  }
  return [...scopes];
}
