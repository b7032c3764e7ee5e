// Resource-server mode's token check, as the config asks for it: a JWT verified with the
// provider's keys (`jwksUri`), an opaque token introspected at the provider (`introspection`), or,
// with both, each token by its shape. A token that looks like a JWT is only ever checked as one, so
// a forged or unsigned JWT cannot be passed off to introspection; anything else is introspected.
import { decodeProtectedHeader } from 'jose';
import type { IntrospectionConfig } from '../config/introspection.js';
import { introspectionClient, IntrospectionUnavailableError, type Introspect } from './introspection-client.js';
import { createIntrospectionVerifier } from './introspection-verifier.js';
import { createTokenVerifier, type SharedKeysVerifier, type TokenVerifier } from './token-verifier.js';

export interface ResourceServerVerifierOptions {
  readonly issuer: string;
  readonly audience: string | readonly string[];
  readonly jwksUri?: string | undefined;
  readonly introspection?: IntrospectionConfig | undefined;
  readonly clockToleranceSeconds?: number;
  /** auth.subjectClaim: the claim that names the person; default `sub`. */
  readonly subjectClaim?: string | undefined;
  readonly jwksCooldownMs?: number;
  /** Told of each failed introspection call (once per call, however many requests waited on it). */
  readonly onIntrospectionUnavailable?: (error: IntrospectionUnavailableError) => void;
}

export function createResourceServerVerifier(options: ResourceServerVerifierOptions): SharedKeysVerifier {
  const { issuer, audience, jwksUri, introspection, clockToleranceSeconds, jwksCooldownMs, subjectClaim } = options;
  const jwt =
    jwksUri === undefined
      ? undefined
      : createTokenVerifier({
          issuer,
          audience,
          keys: { jwksUri },
          ...(clockToleranceSeconds !== undefined && { clockToleranceSeconds }),
          ...(subjectClaim !== undefined && { subjectClaim }),
          ...(jwksCooldownMs !== undefined && { jwksCooldownMs }),
        });
  const opaque =
    introspection === undefined
      ? undefined
      : createIntrospectionVerifier({
          issuer,
          audience,
          introspect: reported(introspectionClient(introspection), options.onIntrospectionUnavailable),
          cacheSeconds: introspection.cacheSeconds,
          ...(clockToleranceSeconds !== undefined && { clockToleranceSeconds }),
          ...(subjectClaim !== undefined && { subjectClaim }),
        });
  if (jwt && opaque) return byShape(jwt, opaque);
  const only = jwt ?? opaque;
  if (only === undefined) throw new Error('createResourceServerVerifier: needs jwksUri, introspection or both');
  return only;
}

function reported(introspect: Introspect, onUnavailable: ((error: IntrospectionUnavailableError) => void) | undefined): Introspect {
  if (onUnavailable === undefined) return introspect;
  return (token) =>
    introspect(token).catch((error: unknown) => {
      if (error instanceof IntrospectionUnavailableError) onUnavailable(error);
      throw error;
    });
}

function byShape(jwt: SharedKeysVerifier, opaque: SharedKeysVerifier): SharedKeysVerifier {
  const pick = (forJwt: TokenVerifier, forOpaque: TokenVerifier): TokenVerifier => ({
    verify: (token) => (looksLikeJwt(token) ? forJwt : forOpaque).verify(token),
  });
  return { ...pick(jwt, opaque), withAudience: (audience) => pick(jwt.withAudience(audience), opaque.withAudience(audience)) };
}

/** Three dot-separated parts whose first is a JOSE header naming an algorithm: a JWS compact JWT. */
export function looksLikeJwt(token: string): boolean {
  if (token.split('.').length !== 3) return false;
  try {
    return typeof decodeProtectedHeader(token).alg === 'string';
  } catch {
    return false;
  }
}
