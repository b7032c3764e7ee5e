// Access tokens as an OAuth 2.1 resource server checks them (MCP authorization spec, 2025-06-18 and
// 2025-11-25): a JWT signed by a key of the configured JWKS with an asymmetric algorithm, from the
// configured issuer, for this gateway's canonical URI (RFC 8707), within its validity period give
// or take a small clock tolerance, with a subject. The JWKS is fetched once and cached; a token
// with an unknown `kid` makes jose fetch it again (at most once per cooldown), which is how a key
// rotation at the identity provider is picked up.
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { AccessToken } from './access-token.js';
import { audienceMatches } from './audience.js';
import type { Principal } from './principal.js';
import { principalFromClaims, subjectOf } from './principal-from-claims.js';

/**
 * Only public-key signatures. Never `none`, and never an HMAC algorithm: with HS256 a verifier
 * that takes the JWKS's public key as the shared secret would accept tokens anyone can make.
 */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

export interface TokenVerifierOptions {
  readonly issuer: string;
  /** The gateway's canonical URI(s): a token must name one of them in `aud`. */
  readonly audience: string | readonly string[];
  /**
   * Where the keys are: the provider's JWKS URL, or (sign-in mode, where the gateway is the issuer)
   * a lookup in the gateway's own key ring.
   */
  readonly keys: { readonly jwksUri: string } | { readonly lookup: JWTVerifyGetKey };
  readonly clockToleranceSeconds?: number;
  /** The claim that names the person (auth.subjectClaim); default `sub`. */
  readonly subjectClaim?: string;
  /** How long after a JWKS fetch an unknown `kid` may not trigger another (jose's default: 30 s). */
  readonly jwksCooldownMs?: number;
  /** How long fetched keys are trusted before they are fetched again. */
  readonly jwksCacheMaxAgeMs?: number;
  readonly jwksTimeoutMs?: number;
}

/** Why a token was refused: the client's fault (401), or ours (the keys cannot be had: 503). */
export class TokenRejectedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TokenRejectedError';
  }
}

/**
 * The gateway cannot tell whether a token is good because the identity provider does not answer:
 * its keys (JWKS) cannot be fetched, or (a subclass, introspection-client.ts) its introspection
 * endpoint fails. Either way the caller gets 503, not 401.
 */
export class KeysUnavailableError extends Error {
  constructor(cause: unknown, message = 'the identity provider\'s keys (JWKS) cannot be fetched') {
    super(message, { cause });
    this.name = 'KeysUnavailableError';
  }
}

export interface TokenVerifier {
  /** The principal the token speaks for; throws TokenRejectedError or KeysUnavailableError. */
  verify(token: string): Promise<Principal>;
}

const ALLOWED = new Set<string>(ASYMMETRIC_ALGORITHMS);
/** jose errors that say the token is bad, as opposed to the JWKS being unreachable. */
const TOKEN_ERRORS: readonly (abstract new (...args: never[]) => Error)[] = [
  errors.JWTExpired,
  errors.JWTClaimValidationFailed,
  errors.JWTInvalid,
  errors.JWSInvalid,
  errors.JWSSignatureVerificationFailed,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
  errors.JWKInvalid,
];

export interface SharedKeysVerifier extends TokenVerifier {
  /** A verifier for other audiences (another endpoint's) that shares this one's JWKS and its cache. */
  withAudience(audience: string | readonly string[]): TokenVerifier;
}

export function createTokenVerifier(options: TokenVerifierOptions): SharedKeysVerifier {
  const clockTolerance = options.clockToleranceSeconds ?? 30;
  if (!Number.isFinite(clockTolerance) || clockTolerance < 0) throw new Error('clockToleranceSeconds must be >= 0');
  const jwks =
    'lookup' in options.keys
      ? options.keys.lookup
      : createRemoteJWKSet(new URL(options.keys.jwksUri), {
          ...(options.jwksCooldownMs !== undefined && { cooldownDuration: options.jwksCooldownMs }),
          ...(options.jwksCacheMaxAgeMs !== undefined && { cacheMaxAge: options.jwksCacheMaxAgeMs }),
          timeoutDuration: options.jwksTimeoutMs ?? 5_000,
        });

  const verifierFor = (audience: string | readonly string[]): TokenVerifier => {
    const audiences = typeof audience === 'string' ? [audience] : [...audience];
    if (audiences.length === 0) throw new Error('a token verifier needs at least one audience');
    return { verify: (token) => verify(token, audiences) };
  };

  async function verify(token: string, audiences: readonly string[]): Promise<Principal> {
    checkHeader(token);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: options.issuer,
        algorithms: [...ASYMMETRIC_ALGORITHMS],
        clockTolerance,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      if (TOKEN_ERRORS.some((kind) => error instanceof kind)) throw new TokenRejectedError(describe(error as Error));
      throw new KeysUnavailableError(error);
    }
    if (!audienceMatches(payload.aud, audiences)) throw new TokenRejectedError('the token is not for this resource (aud)');
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new TokenRejectedError('the token has no subject (sub)');
    const subject = subjectOf(payload, options.subjectClaim);
    if (subject === undefined) throw new TokenRejectedError(`the token does not name the person (${options.subjectClaim ?? 'sub'} claim, auth.subjectClaim)`);
    return principalFromClaims(payload as JWTPayload & { sub: string }, new AccessToken(token), subject);
  }

  return { ...verifierFor(options.audience), withAudience: verifierFor };
}

/**
 * Refuses what is not a signed JWT with an allowed algorithm before any key is looked up, so that
 * garbage never costs a JWKS fetch and its errors are never mistaken for an unreachable JWKS.
 */
function checkHeader(token: string): void {
  if (token.split('.').length !== 3) throw new TokenRejectedError('the token is not a JWS compact JWT');
  let alg: unknown;
  try {
    ({ alg } = decodeProtectedHeader(token));
  } catch {
    throw new TokenRejectedError('the token header cannot be read');
  }
  if (typeof alg !== 'string' || !ALLOWED.has(alg)) throw new TokenRejectedError('the token is not signed with an allowed algorithm');
}

function describe(error: Error): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'the token is not valid yet (nbf)';
    if (error.claim === 'iss') return 'the token is from another issuer (iss)';
    if (error.claim === 'iat') return 'the token was issued in the future (iat)';
    return `the token's "${error.claim}" claim is missing or invalid`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token is signed with an unknown key';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature is invalid';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token is not signed with an allowed algorithm';
  return 'the token is malformed';
}
