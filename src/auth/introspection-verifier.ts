// Opaque access tokens, checked by asking the provider that issued them (RFC 7662). The provider
// says whether the token is active; the gateway still checks what the JWT path checks (issuer,
// audience, validity period with the clock tolerance, subject), since a provider's introspection
// endpoint answers for every token it issued, not just those meant for this gateway.
//
// Answers are cached, so a busy session costs one call per token, not one per request:
// - keyed by the SHA-256 of the token, so the cache holds no token that could be used;
// - an active answer is kept for cacheSeconds, never past the token's `exp`: a token revoked at the
//   provider is refused at most cacheSeconds later (the documented bound, at most 300 s);
// - at most maxCachedTokens answers, the least recently used going first;
// - inactive answers are not kept: a refused client gets a new token rather than retrying the old
//   one, and a flood of made-up tokens cannot push the good answers out;
// - concurrent requests with the same token share one call.
// One cache serves every audience (withAudience): the answer is the same; the audience check is not.
import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { AccessToken } from './access-token.js';
import { audienceMatches } from './audience.js';
import { ExpiringCache } from './expiring-cache.js';
import type { Introspect, IntrospectionAnswer } from './introspection-client.js';
import type { Principal } from './principal.js';
import { principalFromClaims, subjectOf } from './principal-from-claims.js';
import { TokenRejectedError, type SharedKeysVerifier, type TokenVerifier } from './token-verifier.js';

/** Enough for every live token of a large team; each entry is a few hundred bytes. */
export const DEFAULT_MAX_CACHED_TOKENS = 10_000;

export interface IntrospectionVerifierOptions {
  readonly issuer: string;
  /** The gateway's canonical URI(s): an answer's `aud` must name one of them. */
  readonly audience: string | readonly string[];
  readonly introspect: Introspect;
  /** How long an active answer is reused, at most; 0: never. */
  readonly cacheSeconds: number;
  readonly clockToleranceSeconds?: number;
  /** The claim that names the person (auth.subjectClaim); default `sub`. */
  readonly subjectClaim?: string;
  readonly maxCachedTokens?: number;
}

export function createIntrospectionVerifier(options: IntrospectionVerifierOptions): SharedKeysVerifier {
  const { issuer, introspect, cacheSeconds } = options;
  const clockTolerance = options.clockToleranceSeconds ?? 30;
  if (!Number.isFinite(clockTolerance) || clockTolerance < 0) throw new Error('clockToleranceSeconds must be >= 0');
  if (!Number.isFinite(cacheSeconds) || cacheSeconds < 0) throw new Error('cacheSeconds must be >= 0');
  const answers = new ExpiringCache<IntrospectionAnswer>(options.maxCachedTokens ?? DEFAULT_MAX_CACHED_TOKENS);
  const pending = new Map<string, Promise<IntrospectionAnswer>>();

  function answerFor(token: string): Promise<IntrospectionAnswer> {
    const key = createHash('sha256').update(token, 'utf8').digest('base64url');
    const cached = answers.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    let call = pending.get(key);
    if (call === undefined) {
      call = introspect(token)
        .then((answer) => {
          keep(key, answer);
          return answer;
        })
        .finally(() => pending.delete(key));
      pending.set(key, call);
    }
    return call;
  }

  function keep(key: string, answer: IntrospectionAnswer): void {
    if (answer.active !== true || cacheSeconds === 0) return;
    const now = Date.now();
    const until = typeof answer.exp === 'number' ? Math.min(now + cacheSeconds * 1000, answer.exp * 1000) : now + cacheSeconds * 1000;
    answers.set(key, Object.freeze({ ...answer }), until);
  }

  function check(answer: IntrospectionAnswer, token: string, audiences: readonly string[]): Principal {
    if (answer.active !== true) throw new TokenRejectedError('the token is not active (the provider\'s introspection says so)');
    if (answer.iss !== undefined && answer.iss !== issuer) throw new TokenRejectedError('the token is from another issuer (iss)');
    // A sender-constrained token (DPoP, mTLS) is only good with a proof this gateway does not check.
    if (answer.cnf !== undefined) throw new TokenRejectedError('the token is bound to a key (cnf), which this resource does not check');
    if (typeof answer.token_type === 'string' && answer.token_type.toLowerCase() !== 'bearer') {
      throw new TokenRejectedError('the token is not a bearer access token (token_type)');
    }
    const now = Date.now() / 1000;
    if (answer.exp !== undefined && (typeof answer.exp !== 'number' || now > answer.exp + clockTolerance)) throw new TokenRejectedError('the token has expired');
    if (answer.nbf !== undefined && (typeof answer.nbf !== 'number' || now + clockTolerance < answer.nbf)) throw new TokenRejectedError('the token is not valid yet (nbf)');
    // Required, as on the JWT path: without `aud` the token may have been issued for any resource
    // of the provider, and a resource that accepts it is the confused deputy RFC 8707 is about.
    if (!audienceMatches(answer.aud, audiences)) throw new TokenRejectedError('the token is not for this resource (aud)');
    const { sub } = answer;
    if (typeof sub !== 'string' || sub === '') throw new TokenRejectedError('the token has no subject (sub)');
    const claims: JWTPayload & { sub: string } = { ...answer, sub };
    const subject = subjectOf(claims, options.subjectClaim);
    if (subject === undefined) throw new TokenRejectedError(`the token does not name the person (${options.subjectClaim ?? 'sub'} claim, auth.subjectClaim)`);
    return principalFromClaims(claims, new AccessToken(token), subject);
  }

  const verifierFor = (audience: string | readonly string[]): TokenVerifier => {
    const audiences = typeof audience === 'string' ? [audience] : [...audience];
    if (audiences.length === 0) throw new Error('a token verifier needs at least one audience');
    return { verify: async (token) => check(await answerFor(token), token, audiences) };
  };

  return { ...verifierFor(options.audience), withAudience: verifierFor };
}
