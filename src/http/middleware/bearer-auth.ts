// Bearer tokens -> principal, in two steps around the rate limit (design.md's order: token, then
// limit; access-checks.ts runs them). `check` verifies the token and gives the principal, or why it
// could not; the rate limit then counts the request against the principal or, failing one, the
// client address (the contract counts unauthenticated requests too); `refusal` answers what `check`
// could not accept: 401 without a valid token, 403 without a required scope (RFC 6750, MCP
// authorization).
// The token is read from the Authorization header only, never from the query string or the body.
import type { Principal } from '../../auth/principal.js';
import { bearerChallenge } from '../../auth/challenge.js';
import { KeysUnavailableError, TokenRejectedError, type TokenVerifier } from '../../auth/token-verifier.js';
import type { Refusal, RequestHead } from '../request-head.js';
import { catalogueRefusal } from '../../protocol/error-catalogue.js';
import { refusalEvent, report, unreadBodyHeaders, type RefusalListener } from './refusal.js';

export interface BearerAuthOptions {
  readonly verifier: TokenVerifier;
  /** The RFC 9728 metadata URL named in every challenge. */
  readonly resourceMetadata: string;
  readonly requiredScopes?: readonly string[];
  /**
   * The scopes a 401's challenge asks the client to request; default requiredScopes. In sign-in
   * mode every scope a token for the endpoint may carry: clients ask for what the challenge names,
   * and a scope never asked for (a policy's, the admin scope) is never granted.
   */
  readonly challengeScopes?: readonly string[];
  readonly onRefused?: RefusalListener;
}

export interface BearerAuth {
  /** The Authorization header's principal, or why not. */
  check(header: string | undefined): Promise<AuthOutcome>;
  /** The refusal (401, 403 or 503) for what check could not accept, reported to the audit trail. */
  refusal(problem: Problem, head: RequestHead): Refusal;
}

export type AuthOutcome = { readonly principal: Principal } | { readonly problem: Problem };

export type Problem =
  | { readonly kind: 'missing' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'invalid'; readonly detail: string }
  | { readonly kind: 'unavailable' }
  | { readonly kind: 'scope'; readonly sub: string; readonly missing: readonly string[] };

/** token68 (RFC 9110): what a bearer token may look like. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** Longer than any real access token; a bigger header is not worth a regular expression's time. */
const MAX_HEADER_LENGTH = 16 * 1024;

export function bearerAuth({ verifier, resourceMetadata, requiredScopes = [], challengeScopes = requiredScopes, onRefused }: BearerAuthOptions): BearerAuth {
  if (!/^https?:\/\//.test(resourceMetadata)) throw new Error('bearerAuth: resourceMetadata must be an http(s) URL');
  if (requiredScopes.some((scope) => scope === '' || /\s/.test(scope))) throw new Error('bearerAuth: a scope is a word without spaces');

  async function check(header: string | undefined): Promise<AuthOutcome> {
    if (header === undefined || header.trim() === '') return { problem: { kind: 'missing' } };
    const match = header.length <= MAX_HEADER_LENGTH ? BEARER.exec(header) : null;
    if (!match?.[1]) return { problem: { kind: 'malformed' } };
    try {
      const principal = await verifier.verify(match[1]);
      const missing = requiredScopes.filter((scope) => !principal.scopes.includes(scope));
      return missing.length > 0 ? { problem: { kind: 'scope', sub: principal.sub, missing } } : { principal };
    } catch (error) {
      if (error instanceof TokenRejectedError) return { problem: { kind: 'invalid', detail: error.reason } };
      if (error instanceof KeysUnavailableError) return { problem: { kind: 'unavailable' } };
      throw error;
    }
  }

  function refusal(problem: Problem, head: RequestHead): Refusal {
    const unread = unreadBodyHeaders(head);
    switch (problem.kind) {
      case 'missing':
        report(onRefused, () => refusalEvent(head, { outcome: 'unauthenticated', reason: 'missing-token', status: 401 }));
        return {
          ...catalogueRefusal('Unauthorized', 'this endpoint needs a bearer token'),
          headers: { ...unread, 'WWW-Authenticate': bearerChallenge({ resourceMetadata, scope: challengeScopes }) },
        };
      case 'malformed':
        report(onRefused, () => refusalEvent(head, { outcome: 'unauthenticated', reason: 'invalid-token', detail: 'not a Bearer token', status: 401 }));
        return {
          ...catalogueRefusal('Unauthorized', 'the Authorization header must be "Bearer <token>"'),
          headers: { ...unread, 'WWW-Authenticate': bearerChallenge({ resourceMetadata, scope: challengeScopes, error: 'invalid_request' }) },
        };
      case 'invalid':
        report(onRefused, () => refusalEvent(head, { outcome: 'unauthenticated', reason: 'invalid-token', detail: problem.detail, status: 401 }));
        return {
          ...catalogueRefusal('Unauthorized', problem.detail),
          headers: {
            ...unread,
            'WWW-Authenticate': bearerChallenge({ resourceMetadata, scope: challengeScopes, error: 'invalid_token', errorDescription: problem.detail }),
          },
        };
      case 'unavailable':
        report(onRefused, () => refusalEvent(head, { outcome: 'unauthenticated', reason: 'keys-unavailable', status: 503 }));
        return { ...catalogueRefusal('TokensUnverifiable'), headers: { ...unread, 'Retry-After': '5' } };
      case 'scope': {
        const detail = `the token lacks the scope ${problem.missing.join(', ')}`;
        report(onRefused, () => refusalEvent(head, { outcome: 'denied', reason: 'insufficient-scope', detail, sub: problem.sub, status: 403 }));
        return {
          ...catalogueRefusal('Forbidden', detail),
          headers: {
            ...unread,
            // The scopes that satisfy the request: the required ones (the client keeps what it has).
            'WWW-Authenticate': bearerChallenge({ resourceMetadata, scope: requiredScopes, error: 'insufficient_scope', errorDescription: detail }),
          },
        };
      }
    }
  }

  return { check, refusal };
}
