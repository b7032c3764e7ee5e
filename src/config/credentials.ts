// mcpServers.<name>.credentials: how each caller reaches an upstream as themself (src/credentials/).
// The block's own shape is here; what depends on the rest of the config (the server's kind and
// isolation, auth, the session store) is checked by credentialProblems, which the schema reports.
import { z } from 'zod';
import type { PathProblem } from './key-path.js';
import { lenientNumber } from './lenient.js';

const TOKEN_TYPE_ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
// An HTTP field name (RFC 9110 token) and a POSIX environment variable name.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const SECRET_PLACEHOLDER = '{secret}';


const tokenExchange = z
  .object({
    tokenEndpoint: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).describe("The identity provider's token endpoint."),
    clientId: z.string().min(1).describe('The gateway\'s client id at the identity provider.'),
    // From `${VAR}` (or VAR_FILE, a mounted secret): never written in the file itself.
    clientSecret: z
      .string()
      .min(1)
      .optional()
      .describe('Its secret, from `${VAR}` (or `VAR_FILE`): required unless `clientAuthentication` is `private_key_jwt`.'),
    clientAuthentication: z
      .enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt'])
      .default('client_secret_basic')
      .describe('How the gateway authenticates to the token endpoint.'),
    // private_key_jwt (RFC 7523): a PKCS#8 PEM private key, from `${VAR}` or VAR_FILE.
    privateKey: z.string().min(1).optional().describe('With `private_key_jwt` (RFC 7523): a PKCS#8 PEM private key, from `${VAR}` or `VAR_FILE`.'),
    privateKeyAlgorithm: z.enum(['RS256', 'PS256', 'ES256', 'EdDSA']).default('RS256').describe('The algorithm `privateKey` signs with.'),
    keyId: z.string().min(1).optional().describe('The `kid` of the signed assertion.'),
    // What the token is asked for (RFC 8693 section 2.1): at least one of audience and resource.
    audience: z.string().min(1).optional().describe('The upstream the token is asked for (at least one of `audience` and `resource`).'),
    resource: z.url({ error: 'must be a URL' }).optional().describe('The upstream\'s URI the token is asked for (at least one of `audience` and `resource`).'),
    scopes: z.array(z.string().regex(/^\S+$/, 'a scope is a word without spaces')).default([]).describe('Scopes asked for.'),
    requestedTokenType: z.string().min(1).default(TOKEN_TYPE_ACCESS).describe('The RFC 8693 token type asked for.'),
    timeoutMs: lenientNumber(z.number().int().positive().max(120_000)).default(10_000).describe('How long an exchange may take, in milliseconds.'),
  })
  .strict()
  .describe("RFC 8693 token exchange, for HTTP upstreams: the caller's token is exchanged at the identity provider for one made for the upstream, sent as `Authorization: Bearer`.")
  .superRefine((exchange, ctx) => {
    if (exchange.audience === undefined && exchange.resource === undefined) {
      ctx.addIssue({ code: 'custom', path: ['audience'], message: 'name the upstream the token is for: audience, resource, or both' });
    }
    if (exchange.clientAuthentication === 'private_key_jwt') {
      if (exchange.privateKey === undefined) ctx.addIssue({ code: 'custom', path: ['privateKey'], message: 'required with clientAuthentication: private_key_jwt (a PKCS#8 PEM key, e.g. "${EXCHANGE_KEY}" with EXCHANGE_KEY_FILE)' });
    } else if (exchange.clientSecret === undefined) {
      ctx.addIssue({ code: 'custom', path: ['clientSecret'], message: `required with clientAuthentication: ${exchange.clientAuthentication} (e.g. "\${EXCHANGE_CLIENT_SECRET}", or EXCHANGE_CLIENT_SECRET_FILE for a mounted secret)` });
    }
  });

const perUser = z
  .object({
    // A directory of one file per caller: a mounted Kubernetes Secret.
    directory: z.string().min(1).describe('A directory of one file per caller, typically a mounted Kubernetes Secret.'),
    // The token claim whose value names the caller's file (secret-directory.ts maps it to a file name).
    claim: z.string().min(1).default('sub').describe("The token claim whose value names the caller's file."),
    // HTTP: the header the secret is sent in, and how (`{secret}` stands for it).
    header: z.string().regex(HEADER_NAME, 'must be an HTTP header name').optional().describe('HTTP: the header the secret is sent in; default `Authorization`.'),
    format: z
      .string()
      .includes(SECRET_PLACEHOLDER, { error: `must contain ${SECRET_PLACEHOLDER}, where the secret goes` })
      .optional()
      .describe(`HTTP: the header's value, \`${SECRET_PLACEHOLDER}\` standing for the secret; default \`Bearer ${SECRET_PLACEHOLDER}\` for Authorization, else \`${SECRET_PLACEHOLDER}\`.`),
    // stdio: the environment variable of the caller's own process.
    env: z.string().regex(ENV_NAME, 'must be an environment variable name').optional().describe("stdio (required there): the environment variable of the caller's own process."),
  })
  .strict()
  .describe('A secret per caller, read from a file named after a token claim: for HTTP and stdio upstreams.');

// Each person connects their own account at the upstream's OAuth authorization server
// (src/connections/): for hosted MCP servers that sign people in themselves (GitHub, Linear, Notion).
const connection = z
  .object({
    authorizationServer: z
      .url({ protocol: /^https?$/, error: 'must be an https URL (http only on loopback)' })
      .optional()
      .describe("The upstream's authorization server (its issuer URL); default: what its protected resource metadata (RFC 9728) names."),
    scopes: z
      .array(z.string().regex(/^\S+$/, 'a scope is a word without spaces'))
      .optional()
      .describe("Scopes asked for when a person connects; default the `scopes_supported` of the upstream's protected resource metadata."),
    client: z
      .object({
        clientId: z.string().min(1).describe("Switchboard's client ID at the upstream's authorization server."),
        clientSecret: z.string().min(1).optional().describe('Its secret, from `${VAR}`; absent: a public client (PKCE only).'),
      })
      .strict()
      .optional()
      .describe(
        'A client registered by hand at the upstream (redirect URI `<server.publicUrl origin>/connections/callback`), for servers without registration (GitHub OAuth apps). Absent: a client ID metadata document, else dynamic registration.',
      ),
    timeoutMs: lenientNumber(z.number().int().positive().max(60_000)).default(10_000).describe("How long a request to the upstream's authorization server may take."),
  })
  .strict()
  .describe('Each person connects their own account on the upstream (OAuth authorization code with PKCE), when first asked, by a link the gateway gives them; HTTP upstreams only.');

export const credentialsSection = z
  .object({
    tokenExchange: tokenExchange.optional(),
    perUser: perUser.optional(),
    connection: connection.optional(),
    // A caller without a credential: the server's items are left out of their lists, or listed
    // and answered with an error that says what is missing.
    whenMissing: z
      .enum(['hide', 'error'])
      .default('error')
      .describe("A caller without a credential: `error` lists the server's tools and answers a call with an error saying what is missing; `hide` leaves the server out of their lists."),
  })
  .strict()
  .describe('Each caller reaches the upstream as themself: exactly one of `tokenExchange`, `perUser` and `connection`. Needs `auth` and `isolation: session`.')
  .superRefine((credentials, ctx) => {
    const given = (credentials.tokenExchange ? 1 : 0) + (credentials.perUser ? 1 : 0) + (credentials.connection ? 1 : 0);
    if (given !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of tokenExchange, perUser and connection' });
  });

export type CredentialsConfig = z.output<typeof credentialsSection>;
export type TokenExchangeConfig = z.output<typeof tokenExchange>;
export type PerUserConfig = z.output<typeof perUser>;
export type ConnectionConfig = z.output<typeof connection>;

/** perUser's header and format for an HTTP upstream, with their defaults filled in. */
export function perUserHeader(config: PerUserConfig): { name: string; format: string } {
  const name = config.header ?? 'Authorization';
  return { name, format: config.format ?? (name.toLowerCase() === 'authorization' ? `Bearer ${SECRET_PLACEHOLDER}` : SECRET_PLACEHOLDER) };
}

interface ServerFacts {
  readonly kind: 'stdio' | 'http';
  readonly isolation: 'shared' | 'session';
  readonly credentials?: CredentialsConfig | undefined;
}

interface ConfigFacts {
  readonly servers: Readonly<Record<string, ServerFacts>>;
  readonly auth: boolean;
  /** auth.signIn is written. */
  readonly signIn?: boolean;
  /** auth.browserSignIn is written (resource-server mode's browser sign-in). */
  readonly browserSignIn?: boolean;
  readonly store: 'memory' | 'redis';
  readonly credentialKey: string | undefined;
}

/** What the credentials blocks need from the rest of the config. Pure: the schema reports it. */
export function credentialProblems(config: ConfigFacts): PathProblem[] {
  const problems: PathProblem[] = [];
  let exchanges = false;
  for (const [name, server] of Object.entries(config.servers)) {
    const credentials = server.credentials;
    if (!credentials) continue;
    const at = (...keys: string[]) => ['mcpServers', name, ...keys];
    if (!config.auth) problems.push({ path: at('credentials'), message: 'needs auth: a caller is known by their token, and without auth there is none' });
    if (server.isolation !== 'session') {
      problems.push({
        path: at('isolation'),
        message:
          server.kind === 'stdio'
            ? 'must be "session" for per-user credentials: each caller gets a process of their own, with their secret in its environment'
            : 'must be "session" for per-user credentials: an upstream session is never shared between callers',
      });
    }
    if (credentials.connection) {
      exchanges = true;
      // The person who opens a connect link must be signed in to the gateway's pages (a cookie):
      // through its own authorization server (signIn), or at the team's provider (browserSignIn).
      if (config.auth && !config.signIn && !config.browserSignIn) {
        problems.push({
          path: at('credentials', 'connection'),
          message:
            "needs auth.browserSignIn (or auth.signIn): the person who opens a connect link signs in to the gateway's pages at the team's provider, as the gateway's client there (auth.browserSignIn: {clientId, clientSecret, scopes, secret})",
        });
      }
    }
    if (credentials.connection && server.kind === 'stdio') {
      problems.push({ path: at('credentials', 'connection'), message: 'is for HTTP servers: the person\'s token is sent as their bearer token' });
    }
    if (credentials.tokenExchange) {
      exchanges = true;
      if (server.kind === 'stdio') problems.push({ path: at('credentials', 'tokenExchange'), message: 'is for HTTP servers (the token is their bearer token); a stdio server takes perUser with env' });
    }
    const perUserConfig = credentials.perUser;
    if (perUserConfig && server.kind === 'stdio') {
      if (perUserConfig.env === undefined) problems.push({ path: at('credentials', 'perUser', 'env'), message: 'required for a stdio server: the environment variable the caller\'s secret is passed in' });
      for (const key of ['header', 'format'] as const) {
        if (perUserConfig[key] !== undefined) problems.push({ path: at('credentials', 'perUser', key), message: 'is for HTTP servers; a stdio server gets the secret in env' });
      }
    }
    if (perUserConfig && server.kind === 'http' && perUserConfig.env !== undefined) {
      problems.push({ path: at('credentials', 'perUser', 'env'), message: 'is for stdio servers; an HTTP server gets the secret in header (default Authorization: Bearer {secret})' });
    }
  }
  if (exchanges && config.store === 'redis' && config.credentialKey === undefined) {
    problems.push({
      path: ['sessions', 'credentialKey'],
      message: 'required when a server uses tokenExchange or connection with the Redis store: its tokens are shared between replicas sealed with this key (at least 32 characters, the same on every replica, e.g. "${SWITCHBOARD_CREDENTIAL_KEY}")',
    });
  }
  return problems;
}
