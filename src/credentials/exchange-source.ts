// The tokenExchange credential source: the caller's access token is exchanged at the identity
// provider (RFC 8693) for a token made for the upstream, which the upstream gets as its bearer
// token. The exchanged token is cached per caller and server until shortly before it expires
// (renewal.ts), in this process or shared by the replicas (token-cache.ts), so a caller's calls
// cost one exchange per token lifetime, not one each.
//
// A cache that fails is skipped, never the caller's problem: the exchange still works without it.
// Concurrent resolves of one key on this replica share one exchange. A refusal is not cached as a
// token; it is remembered for a few seconds (recent-refusals.ts says why), and so is a token
// endpoint that did not answer or could not be reached (recent-outages.ts).
import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { TokenExchangeConfig } from '../config/credentials.js';
import type { Logger } from '../observe/logger.js';
import { CredentialMissingError, CredentialRefusedError, CredentialUnavailableError } from './errors.js';
import { RecentOutages, type OutageBackoff } from './recent-outages.js';
import { RecentRefusals } from './recent-refusals.js';
import { renewalTime } from './renewal.js';
import type { CachedToken, TokenCache } from './token-cache.js';
import { tokenExchanger, type TokenExchanger } from './token-exchange.js';
import type { CredentialSource, UpstreamCredential } from './types.js';

export interface TokenExchangeSourceOptions {
  /** How long a refusal is answered from memory (ms); 0 asks the provider every time. Default 5,000. */
  readonly refusalMemoryMs?: number;
  /** How long an outage of the token endpoint is answered from memory (recent-outages.ts has the default). */
  readonly outageBackoff?: OutageBackoff;
  /** Told when the cache fails and when it works again (once each), never with a token or a key. */
  readonly logger?: Pick<Logger, 'info' | 'warn'>;
  readonly now?: () => number;
  /** The exchange itself; default: tokenExchanger(server, config) (tests may count or fake it). */
  readonly exchanger?: TokenExchanger;
}

/** Throws at once when the config lacks what its client authentication needs. */
export function tokenExchangeSource(server: string, config: TokenExchangeConfig, cache: TokenCache, options: TokenExchangeSourceOptions = {}): CredentialSource {
  const { refusalMemoryMs = 5_000, outageBackoff, logger, now = Date.now, exchanger = tokenExchanger(server, config) } = options;
  const refusals = new RecentRefusals(refusalMemoryMs, now);
  const outages = new RecentOutages(outageBackoff, now);
  const inFlight = new Map<string, Promise<CachedToken>>();
  const asked = fingerprint(server, config);
  let cacheWorks = true;

  const cacheFailed = (operation: string, error: unknown) => {
    if (!cacheWorks) return;
    cacheWorks = false;
    logger?.warn({ server, err: error instanceof Error ? error.message : String(error) }, `credential cache ${operation} failed; exchanging tokens without it`);
  };
  const cacheAnswered = () => {
    if (cacheWorks) return;
    cacheWorks = true;
    logger?.info({ server }, 'credential cache works again');
  };

  async function cachedOrExchanged(key: string, subjectToken: string): Promise<CachedToken> {
    const cached = await cache.get(key).then(
      (entry) => (cacheAnswered(), entry),
      (error: unknown) => cacheFailed('get', error),
    );
    if (cached && cached.expiresAt > now()) return cached;

    const issuedAt = now();
    let issued;
    try {
      issued = await exchanger.exchange(subjectToken);
    } catch (error) {
      if (error instanceof CredentialRefusedError) refusals.remember(key, subjectToken, error);
      if (error instanceof CredentialUnavailableError) outages.remember(key, error);
      throw error;
    }
    outages.forget(key);
    const fresh = { token: issued.accessToken, expiresAt: renewalTime(issuedAt, issued.lifetimeMs) };
    // Stored before it is handed out, so another replica asking a moment later finds it.
    await cache.set(key, fresh.token, fresh.expiresAt).then(cacheAnswered, (error: unknown) => cacheFailed('set', error));
    return fresh;
  }

  return {
    mode: 'tokenExchange',
    async resolve(principal: Principal): Promise<UpstreamCredential> {
      const accessToken = principal.token;
      if (accessToken === undefined) throw new CredentialMissingError(server, 'the request carries no access token to exchange');
      const subjectToken = accessToken.reveal();
      const key = cacheKey(asked, principal);
      const refused = refusals.recall(key, subjectToken) ?? outages.recall(key);
      if (refused) throw refused;

      let pending = inFlight.get(key);
      if (pending === undefined) {
        pending = cachedOrExchanged(key, subjectToken).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      const { token, expiresAt } = await pending;
      return Object.freeze({ headers: Object.freeze({ authorization: `Bearer ${token}` }), env: Object.freeze({}), expiresAt });
    },
  };
}

/**
 * What the exchange asks for, as part of every key: a reload that changes the endpoint, the client,
 * the audience, the resource or the scopes must not be answered with tokens asked for before it.
 */
function fingerprint(server: string, config: TokenExchangeConfig): string {
  const { tokenEndpoint, clientId, audience, resource, scopes, requestedTokenType } = config;
  return createHash('sha256')
    .update(JSON.stringify([server, tokenEndpoint, clientId, audience ?? null, resource ?? null, [...scopes].sort(), requestedTokenType]))
    .digest('base64url');
}

/**
 * One cached token per caller and server; the caller is their issuer and subject, and their token's
 * scopes, since a provider may narrow the issued token to the subject token's scopes: a caller's
 * read-only client must not be handed what their read-write client was issued.
 */
function cacheKey(asked: string, principal: Principal): string {
  const issuer = typeof principal.claims.iss === 'string' ? principal.claims.iss : '';
  return JSON.stringify([asked, issuer, principal.sub, [...principal.scopes].sort()]);
}
