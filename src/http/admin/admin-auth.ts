// Bearer tokens on the admin listener, when `auth` is configured: the same verifier as the MCP
// endpoint (issuer, JWKS and its cache, audience: the gateway's canonical URI), plus the admin
// scope (config admin.scope). No token or a bad one: 401 with a Bearer challenge; a valid token
// without the scope: 403 `insufficient_scope`. Every refusal is audited. The token is read from the
// Authorization header only.
import type { MiddlewareHandler } from 'hono';
import { bearerChallenge } from '../../auth/challenge.js';
import { KeysUnavailableError, TokenRejectedError, type TokenVerifier } from '../../auth/token-verifier.js';
import type { AdminRefusalEvent } from '../../observe/audit.js';
import type { AppEnv } from '../app-env.js';
import { clientAddress } from '../client-address.js';
import { adminError } from './errors.js';

export interface AdminAuthOptions {
  readonly verifier: TokenVerifier;
  /** The scope an admin's token must carry. */
  readonly scope: string;
  /** The gateway's RFC 9728 metadata URL: where a client learns which authorization server to ask. */
  readonly resourceMetadata: string;
  readonly onRefused?: (event: AdminRefusalEvent) => void;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_HEADER_LENGTH = 16 * 1024;

export function adminAuth({ verifier, scope, resourceMetadata, onRefused }: AdminAuthOptions): MiddlewareHandler<AppEnv> {
  if (scope === '' || /\s/.test(scope)) throw new Error('adminAuth: a scope is a word without spaces');
  return async function adminAuthMiddleware(c, next) {
    const refuse = (
      status: 401 | 403,
      reason: AdminRefusalEvent['reason'],
      error: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | undefined,
      message: string,
      detail?: string,
      sub?: string,
    ): Response => {
      try {
        onRefused?.({
          outcome: status === 401 ? 'unauthenticated' : 'denied',
          reason,
          ...(detail !== undefined && { detail }),
          status,
          httpMethod: c.req.method,
          path: c.req.path,
          ...(sub !== undefined && { sub }),
          client: clientAddress(c),
          requestId: c.get('requestId'),
        });
      } catch {
        // The audit trail's failure is not the caller's problem.
      }
      const challenge = bearerChallenge({ resourceMetadata, scope: [scope], ...(error && { error }), ...(detail !== undefined && { errorDescription: detail }) });
      return adminError(c, status === 401 ? 'unauthorized' : 'forbidden', message, error ? { oauthError: error } : {}, { 'WWW-Authenticate': challenge });
    };

    const header = c.req.header('authorization');
    if (header === undefined || header.trim() === '') {
      return refuse(401, 'missing-token', undefined, `Unauthorized: the admin listener needs a bearer token with the scope ${scope}`);
    }
    const match = header.length <= MAX_HEADER_LENGTH ? BEARER.exec(header) : null;
    if (!match?.[1]) return refuse(401, 'invalid-token', 'invalid_request', 'Unauthorized: the Authorization header must be "Bearer <token>"', 'not a Bearer token');
    let principal;
    try {
      principal = await verifier.verify(match[1]);
    } catch (error) {
      if (error instanceof TokenRejectedError) return refuse(401, 'invalid-token', 'invalid_token', `Unauthorized: ${error.reason}`, error.reason);
      if (error instanceof KeysUnavailableError) {
        try {
          onRefused?.({ outcome: 'unauthenticated', reason: 'keys-unavailable', status: 503, httpMethod: c.req.method, path: c.req.path, client: clientAddress(c), requestId: c.get('requestId') });
        } catch {
          // As above.
        }
        return adminError(c, 'unavailable', 'tokens cannot be verified right now (the identity provider\'s keys cannot be fetched)', {}, { 'Retry-After': '5' });
      }
      throw error;
    }
    if (!principal.scopes.includes(scope)) {
      const detail = `the token lacks the scope ${scope}`;
      return refuse(403, 'insufficient-scope', 'insufficient_scope', `Forbidden: ${detail}`, detail, principal.sub);
    }
    c.set('principal', principal);
    await next();
  };
}
