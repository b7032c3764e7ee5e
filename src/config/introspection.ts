// auth.introspection: RFC 7662 token introspection, for identity providers that issue opaque
// access tokens (src/auth/introspection-verifier.ts). The endpoint is configured, not discovered
// from the issuer's metadata, as jwksUri is: no fetch at start-up, no dependency on a metadata
// document that some providers serve without `introspection_endpoint`, and one place to read what
// the gateway calls.
import { z } from 'zod';
import { lenientNumber } from './lenient.js';

/** The longest an answer may be reused: a revoked token is refused at most this long after. */
export const MAX_INTROSPECTION_CACHE_SECONDS = 300;

export const introspectionSection = z
  .object({
    endpoint: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).describe("The provider's RFC 7662 introspection endpoint (its metadata's `introspection_endpoint`)."),
    clientId: z.string().min(1).describe('The gateway\'s client id at the provider, which may introspect tokens (RFC 7662 section 2.1: `client_secret_basic`).'),
    // From `${VAR}` (or VAR_FILE, a mounted secret): never written in the file itself.
    clientSecret: z.string().min(1).describe('Its secret, from `${VAR}` (or `VAR_FILE`).'),
    cacheSeconds: lenientNumber(z.number().int().min(0).max(MAX_INTROSPECTION_CACHE_SECONDS))
      .default(60)
      .describe(
        `How long an active token's answer is reused, never past the token's \`exp\` (at most ${MAX_INTROSPECTION_CACHE_SECONDS}; \`0\`: every request is introspected). A token revoked at the provider is refused at most this long after. Inactive answers are not kept.`,
      ),
    timeoutMs: lenientNumber(z.number().int().positive().max(60_000))
      .default(5_000)
      .describe('How long one introspection call may take, in milliseconds; past it the request gets 503.'),
  })
  .strict()
  .describe(
    'With `issuer`: RFC 7662 introspection of opaque access tokens. With `jwksUri` as well, a token shaped like a JWT is verified with the keys and any other token is introspected.',
  );

export type IntrospectionConfig = z.output<typeof introspectionSection>;
