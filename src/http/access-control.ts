// The access-control pieces of the HTTP layer, built from the config: Origin/Host guard, bearer
// authentication, rate limit, and the RFC 9728 metadata route. The composition root builds this
// once and hands it to createApp, which puts each piece in its place in the middleware order.
import { DEFAULT_ENDPOINT } from '../config/endpoints.js';
import { tokenScopes } from '../config/token-scopes.js';
import type { Config } from '../config/schema.js';
import { resourceMetadataUrl } from '../auth/challenge.js';
import { createResourceServerVerifier } from '../auth/resource-server-verifier.js';
import { createTokenVerifier, type SharedKeysVerifier } from '../auth/token-verifier.js';
import { createRateLimiter } from '../limits/create-limiter.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Logger } from '../observe/logger.js';
import { auditRefusals } from '../observe/audit.js';
import { bearerAuth, type BearerAuth } from './middleware/bearer-auth.js';
import { originCheck, type OriginCheck } from './middleware/origin-guard.js';
import { rateLimitCheck, type RateLimitCheck } from './middleware/rate-limit.js';
import { isLoopbackHost } from './origin-patterns.js';
import { TrustedProxies } from './trusted-proxies.js';
import type { WellKnownRouteOptions } from './routes/well-known.js';
import type { JWTVerifyGetKey } from 'jose';

export interface AccessControl {
  /**
   * First: refuses foreign origins and (on a loopback bind) foreign Host headers. Checks, not
   * middleware: middleware/access-checks.ts runs them all, in order, for the Hono app and the fast
   * path.
   */
  readonly origin: OriginCheck;
  /** Then, in this order: the token's check, the rate limit, the token's refusal; the body limit last. */
  readonly auth?: BearerAuth;
  readonly rateLimit?: RateLimitCheck;
  readonly wellKnown?: WellKnownRouteOptions;
  /**
   * With auth, each configured endpoint's own token check (its audience, its required scopes) and
   * RFC 9728 metadata (its canonical URI), by endpoint name.
   */
  readonly endpoints?: ReadonlyMap<string, EndpointAccess>;
  /** With auth: the verifier of tokens for the gateway's audience (the admin listener checks its tokens with it too). */
  readonly verifier?: SharedKeysVerifier;
  /** server.trustedProxies: who is believed about the client's address (trusted-proxies.ts). */
  readonly trustedProxies: TrustedProxies;
  close(): Promise<void>;
}

export interface EndpointAccess {
  readonly auth: BearerAuth;
  readonly wellKnown: WellKnownRouteOptions;
}

export interface AccessControlDeps {
  readonly logger: Logger;
  /** How soon an unknown `kid` may trigger another JWKS fetch; tests make it short. */
  readonly jwksCooldownMs?: number;
  /** Overrides the config's choice of limiter (tests). */
  readonly rateLimiter?: RateLimiter;
  /** With `auth.signIn`: the gateway's own issuer and its key ring, which sign the tokens checked here. */
  readonly signIn?: { readonly issuer: string; readonly keys: JWTVerifyGetKey };
}

export function createAccessControl(config: Config, { logger, jwksCooldownMs, rateLimiter, signIn }: AccessControlDeps): AccessControl {
  const { server } = config;
  const endpointOfPath = new Map(Object.entries(config.endpoints).map(([name, endpoint]) => [endpoint.path, name]));
  const onRefused = auditRefusals(logger, endpointOfPath.size > 0 ? (path) => endpointOfPath.get(path) ?? DEFAULT_ENDPOINT : undefined);
  const publicHost = new URL(server.publicUrl).hostname.toLowerCase();
  const loopbackBind = isLoopbackHost(server.host);
  const origin = originCheck({
    ...(server.allowedOrigins !== undefined && { allowedOrigins: server.allowedOrigins }),
    // On a loopback bind, only loopback names (and the public URL's host, for a local reverse proxy).
    ...(loopbackBind && { allowedHosts: [publicHost] }),
    onRefused,
  });

  const trustedProxies = new TrustedProxies(server.trustedProxies);
  const limiter = rateLimiter ?? createRateLimiter(config, logger);
  const limit = limiter && rateLimitCheck({ limiter, onRefused });

  if (!config.auth) {
    if (!loopbackBind) {
      logger.warn({ host: server.host }, 'no auth section: anyone who can reach this address can use every upstream');
    }
    return { origin, trustedProxies, ...(limit && { rateLimit: limit }), close: async () => limiter?.close() };
  }

  const { auth } = config;
  const resourceMetadata = resourceMetadataUrl(server.publicUrl);
  const issuer = auth.signIn ? signIn?.issuer : auth.issuer;
  if (issuer === undefined) throw new Error('createAccessControl: auth.signIn is configured but the sign-in issuer and keys were not handed in');
  const audience = auth.audience ?? server.publicUrl;
  const verifier =
    signIn && auth.signIn
      ? createTokenVerifier({ issuer, audience, keys: { lookup: signIn.keys }, clockToleranceSeconds: auth.clockToleranceSeconds })
      : createResourceServerVerifier({
          issuer,
          audience,
          jwksUri: auth.jwksUri,
          introspection: auth.introspection,
          clockToleranceSeconds: auth.clockToleranceSeconds,
          subjectClaim: auth.subjectClaim,
          ...(jwksCooldownMs !== undefined && { jwksCooldownMs }),
          onIntrospectionUnavailable: (error) => logger.warn({ err: error.message }, 'tokens cannot be introspected: requests whose token needs introspection get 503'),
        });
  const scopesSupported = tokenScopes(config);
  // In sign-in mode a 401 names every scope the endpoint's tokens may carry (see bearer-auth.ts).
  const challengeScopes = (endpoint?: string) => (auth.signIn ? { challengeScopes: tokenScopes(config, endpoint) } : {});
  const authorizationServers = auth.authorizationServers ?? [issuer];
  // Each endpoint is a resource of its own: its canonical URI is publicUrl's origin with its path,
  // and a token must be for it (one for another endpoint, or for server.path, is refused here).
  const publicOrigin = new URL(server.publicUrl).origin;
  const endpoints = new Map<string, EndpointAccess>();
  for (const [name, endpoint] of Object.entries(config.endpoints)) {
    const resource = `${publicOrigin}${endpoint.path}`;
    const requiredScopes = [...new Set([...auth.requiredScopes, ...endpoint.requiredScopes])];
    const supported = tokenScopes(config, name);
    endpoints.set(name, {
      auth: bearerAuth({ verifier: verifier.withAudience(endpoint.audience ?? resource), resourceMetadata: resourceMetadataUrl(resource), requiredScopes, ...challengeScopes(name), onRefused }),
      wellKnown: {
        metadata: {
          resource,
          authorization_servers: authorizationServers,
          ...(supported.length > 0 && { scopes_supported: supported }),
          bearer_methods_supported: ['header'],
          resource_name: `Switchboard MCP gateway (${name})`,
        },
        paths: [endpoint.path],
        root: false,
      },
    });
  }
  return {
    origin,
    trustedProxies,
    auth: bearerAuth({ verifier, resourceMetadata, requiredScopes: auth.requiredScopes, ...challengeScopes(), onRefused }),
    ...(limit && { rateLimit: limit }),
    wellKnown: {
      metadata: {
        resource: server.publicUrl,
        authorization_servers: authorizationServers,
        ...(scopesSupported.length > 0 && { scopes_supported: scopesSupported }),
        bearer_methods_supported: ['header'],
        resource_name: 'Switchboard MCP gateway',
      },
      paths: [server.path, new URL(server.publicUrl).pathname],
    },
    endpoints,
    verifier,
    close: async () => limiter?.close(),
  };
}
