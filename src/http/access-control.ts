// The access-control pieces of the HTTP layer, built from the config: Origin/Host guard, bearer
// authentication, rate limit, and the RFC 9728 metadata route. The composition root builds this
// once and hands it to createApp, which puts each piece in its place in the middleware order.
import type { Config } from '../config/schema.js';
import { resourceMetadataUrl } from '../auth/challenge.js';
import { createTokenVerifier } from '../auth/token-verifier.js';
import { createRateLimiter } from '../limits/create-limiter.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Logger } from '../observe/logger.js';
import { auditRefusals } from '../observe/audit.js';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { bearerAuth, type BearerAuth } from './middleware/bearer-auth.js';
import { originGuard } from './middleware/origin-guard.js';
import { rateLimit } from './middleware/rate-limit.js';
import { isLoopbackHost } from './origin-patterns.js';
import type { WellKnownRouteOptions } from './routes/well-known.js';

export interface AccessControl {
  /** Before the body limit: refuses foreign origins and (on a loopback bind) foreign Host headers. */
  readonly origin: MiddlewareHandler<AppEnv>;
  /** After the body limit, in this order: authenticate, rate limit, enforce. */
  readonly auth?: BearerAuth;
  readonly rateLimit?: MiddlewareHandler<AppEnv>;
  readonly wellKnown?: WellKnownRouteOptions;
  close(): Promise<void>;
}

export interface AccessControlDeps {
  readonly logger: Logger;
  /** How soon an unknown `kid` may trigger another JWKS fetch; tests make it short. */
  readonly jwksCooldownMs?: number;
  /** Overrides the config's choice of limiter (tests). */
  readonly rateLimiter?: RateLimiter;
}

export function createAccessControl(config: Config, { logger, jwksCooldownMs, rateLimiter }: AccessControlDeps): AccessControl {
  const onRefused = auditRefusals(logger);
  const { server } = config;
  const publicHost = new URL(server.publicUrl).hostname.toLowerCase();
  const loopbackBind = isLoopbackHost(server.host);
  const origin = originGuard({
    ...(server.allowedOrigins !== undefined && { allowedOrigins: server.allowedOrigins }),
    // On a loopback bind, only loopback names (and the public URL's host, for a local reverse proxy).
    ...(loopbackBind && { allowedHosts: [publicHost] }),
    onRefused,
  });

  const limiter = rateLimiter ?? createRateLimiter(config, logger);
  const limit = limiter && rateLimit({ limiter, onRefused });

  if (!config.auth) {
    if (!loopbackBind) {
      logger.warn({ host: server.host }, 'no auth section: anyone who can reach this address can use every upstream');
    }
    return { origin, ...(limit && { rateLimit: limit }), close: async () => limiter?.close() };
  }

  const { auth } = config;
  const resourceMetadata = resourceMetadataUrl(server.publicUrl);
  const verifier = createTokenVerifier({
    issuer: auth.issuer,
    audience: auth.audience ?? server.publicUrl,
    jwksUri: auth.jwksUri,
    clockToleranceSeconds: auth.clockToleranceSeconds,
    ...(jwksCooldownMs !== undefined && { jwksCooldownMs }),
  });
  const scopesSupported = [...new Set([...auth.requiredScopes, ...(config.policy?.rules.flatMap((rule) => rule.when.scopes ?? []) ?? [])])];
  return {
    origin,
    auth: bearerAuth({ verifier, resourceMetadata, requiredScopes: auth.requiredScopes, onRefused }),
    ...(limit && { rateLimit: limit }),
    wellKnown: {
      metadata: {
        resource: server.publicUrl,
        authorization_servers: auth.authorizationServers ?? [auth.issuer],
        ...(scopesSupported.length > 0 && { scopes_supported: scopesSupported }),
        bearer_methods_supported: ['header'],
        resource_name: 'Switchboard MCP gateway',
      },
      paths: [server.path, new URL(server.publicUrl).pathname],
    },
    close: async () => limiter?.close(),
  };
}
