// The config file's shape: this schema *is* the contract's "Config file" section, checked once at
// load time. Defaults live here so that the rest of the code reads a complete, frozen object.
// The loader (load.ts) does what needs more than the parsed tree: ${VAR} interpolation, the aliases
// of other MCP clients' files, PORT/HOST/REDIS_URL and command-line overrides.
import { z } from 'zod';
import { isAddressOrRange } from './trusted-proxies.js';
import { credentialsSection } from './credentials.js';
import { introspectionSection } from './introspection.js';
import { lenientBoolean, lenientNumber } from './lenient.js';
import { adminSection, telemetrySection } from './operations.js';
import { DEFAULT_ENDPOINT, ENDPOINT_NAME } from './endpoints.js';
import { isPlainObject } from './key-path.js';
import { redisSection } from './redis.js';
import { SERVER_NAME_MAX } from './server-names.js';
import { browserSignInSection } from './browser-sign-in.js';
import { signInSection } from './sign-in.js';
import { TOOL_NAME } from './tool-renames.js';

// A prefix becomes the front of tool names, which must fit ^[A-Za-z0-9_-]{1,64}$.
/** namespace.maxNameLength: its default, and its least (a rewritten name keeps some of its own characters beside its 9-character hash). */
export const DEFAULT_MAX_NAME_LENGTH = 48;
const MIN_NAME_LENGTH = 24;
const PREFIX = /^[A-Za-z0-9_-]{0,32}$/;
// server.allowedOrigins entries (src/http/origin-patterns.ts says what they match).
const ORIGIN_PATTERN = /^(\*|https?:\/\/(\*\.)?([^/:*?#@\s]+|\[[0-9A-Fa-f:.]+\])(:(\d{1,5}|\*))?\/?)$/;
/** pinning.lockFile for a config that is not read from a file (a file's own default is named after it). */
export const DEFAULT_LOCK_FILE = 'switchboard.lock.yaml';


const stringMap = z.record(z.string(), z.string());

// Any key a client's config uses is a server name (`GitHub`, `brave_search`, `My Notes`); where an
// alphabet rule applies, its slug stands in for it (server-names.ts).
export const serverName = z
  .string()
  .min(1, 'a server name must not be empty')
  .refine((name) => [...name].length <= SERVER_NAME_MAX, `a server name is at most ${SERVER_NAME_MAX} characters`);

// MCP's ToolAnnotations. Given hints are laid over the upstream's own, key by key.
const toolAnnotations = z
  .object({
    title: z.string().optional().describe('A human-readable title for the tool.'),
    readOnlyHint: lenientBoolean().optional().describe('The tool does not change its environment.'),
    destructiveHint: lenientBoolean().optional().describe('The tool may destroy or overwrite data.'),
    idempotentHint: lenientBoolean().optional().describe('Calling the tool again with the same arguments has no further effect.'),
    openWorldHint: lenientBoolean().optional().describe('The tool reaches entities outside the server (the web, other systems).'),
  })
  .strict()
  .describe("MCP `ToolAnnotations`, laid over the upstream's key by key: a hint set here wins, the upstream's other hints stay.");

// One tool as the client should see it, keyed by the upstream's own tool name. A key the upstream
// does not list is not an error (its list may change); the gateway logs it once.
const toolOverride = z
  .object({
    // The exposed name, exactly: no prefix is added.
    name: z
      .string()
      .regex(TOOL_NAME, 'must be 1 to 64 of A-Z a-z 0-9 _ - (what LLM APIs accept as a function name)')
      .optional()
      .describe('The name clients see and call, exactly as written (no prefix is added). Renames that would collide with another tool are refused.'),
    title: z.string().optional().describe("Replaces the upstream's title."),
    description: z.string().optional().describe("Replaces the upstream's description."),
    annotations: toolAnnotations.optional(),
    hidden: lenientBoolean().optional().describe('`true`: not listed, and a call gets exactly the error of an unknown tool.'),
  })
  .strict()
  .describe("One tool as clients should see it, keyed by the upstream's own tool name; a tool the upstream does not list is logged once, not refused.");

export type ToolOverrideConfig = z.output<typeof toolOverride>;

/** The keys every kind of server has. */
export const upstreamCommon = {
  prefix: z
    .string()
    .regex(PREFIX, 'must be at most 32 of A-Z a-z 0-9 _ -')
    .optional()
    .describe('Put before the server\'s tool and prompt names (`{prefix}{separator}{name}`); default the server name\'s slug. `""` exposes names and resource URIs unchanged.'),
  timeoutMs: lenientNumber(z.number().int().positive().max(3_600_000))
    .default(60_000)
    .describe('Per request to this upstream, in milliseconds: then the client gets an error naming the server, and the upstream a cancel.'),
  isolation: z
    .enum(['shared', 'session'])
    .default('shared')
    .describe('`shared`: one connection (or process) per replica for all sessions; `session`: one per client session.'),
  // isolation: session only: at most this many session connections (or processes) on one replica;
  // the least recently used idle one is closed to make room.
  maxSessions: lenientNumber(z.number().int().positive().max(100_000))
    .default(1000)
    .describe('With `isolation: session`: at most this many session connections (or processes) per replica; the least recently used idle one is closed to make room.'),
  // isolation: session only: a list is never held up by one caller's upstream that is slow to start.
  listConnectTimeoutMs: lenientNumber(z.number().int().positive().max(3_600_000))
    .default(5_000)
    .describe(
      'With `isolation: session`: how long a list waits, in milliseconds, for a caller\'s first connection to this server and its lists (later lists wait at most `timeoutMs`); past it the server is left out of that caller\'s list while the connection goes on, and included once it answers.',
    ),
  // Each caller reaches the upstream as themself (credentials.ts); absent: the config's own headers or env.
  credentials: credentialsSection.optional(),
  enabled: lenientBoolean().default(true).describe('`false` keeps the server in the file but starts nothing and exposes nothing.'),
  tools: z
    .record(z.string().min(1, 'a tool name is not empty'), toolOverride)
    .optional()
    .describe("How the server's tools look to clients, keyed by the upstream's own tool name: `name`, `title`, `description`, `annotations`, `hidden`."),
};

export const stdioServer = z
  .object({
    command: z.string().min(1).describe('The program to run: a stdio upstream.'),
    args: z.array(z.string()).default([]).describe('Its arguments.'),
    env: stringMap.default({}).describe('Environment variables, added to a small safe default environment.'),
    cwd: z.string().min(1).optional().describe('Its working directory; default the gateway\'s.'),
    ...upstreamCommon,
  })
  .strict();

function hasUserInfo(url: string): boolean {
  const parsed = URL.parse(url);
  return parsed !== null && (parsed.username !== '' || parsed.password !== '');
}

export const httpServer = z
  .object({
    // User info is refused rather than sent as Basic: fetch refuses such a URL, and a URL is quoted
    // in errors, logs and traces where a header never is (docs/guides/security.md).
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .refine((url) => !hasUserInfo(url), {
        error: 'must not carry a user name or password (user:password@host): send credentials as a header instead, e.g. headers: { Authorization: "Basic <base64 of user:password>" }',
      })
      .describe('The MCP endpoint of an HTTP upstream, without user info (credentials go in `headers`).'),
    headers: stringMap.default({}).describe('Headers sent with every request to it, e.g. `Authorization: "Bearer ${TOKEN}"`.'),
    transport: z
      .enum(['auto', 'streamable-http', 'sse'])
      .default('auto')
      .describe('`auto`: Streamable HTTP, falling back to the legacy HTTP+SSE transport.'),
    ...upstreamCommon,
  })
  .strict();

export type StdioUpstreamConfig = z.output<typeof stdioServer>;
export type HttpUpstreamConfig = z.output<typeof httpServer>;

const STDIO_ONLY_KEYS = new Set(['command', 'args', 'env', 'cwd']);
const HTTP_ONLY_KEYS = new Set(['url', 'headers', 'transport']);

// The kind of a server is decided by which key it has ("command" or "url"), not by trying both
// shapes: a plain union would answer `{command: 5}` with "matches neither", where the user needs
// "command: expected string".
export const upstreamServer = z.unknown().transform((value, ctx): StdioUpstreamConfig | HttpUpstreamConfig => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: 'expected a server: an object with "command" (stdio) or "url" (HTTP)' });
    return z.NEVER;
  }
  const hasCommand = 'command' in value;
  const hasUrl = 'url' in value;
  if (hasCommand === hasUrl) {
    ctx.addIssue({
      code: 'custom',
      message: hasCommand
        ? 'a server has either "command" (stdio) or "url" (HTTP), not both'
        : 'a server needs either "command" (stdio) or "url" (HTTP)',
    });
    return z.NEVER;
  }
  const result = hasCommand ? stdioServer.safeParse(value) : httpServer.safeParse(value);
  if (result.success) return result.data;
  const otherKindKeys = hasCommand ? HTTP_ONLY_KEYS : STDIO_ONLY_KEYS;
  for (const issue of result.error.issues) {
    if (issue.code !== 'unrecognized_keys') {
      ctx.addIssue({ ...issue });
      continue;
    }
    // A key of the other kind of server is a mistake worth naming as such.
    const unknown = issue.keys.filter((key) => !otherKindKeys.has(key));
    for (const key of issue.keys.filter((key) => otherKindKeys.has(key))) {
      ctx.addIssue({
        code: 'custom',
        path: [...issue.path, key],
        message: hasCommand
          ? 'only HTTP servers ("url") take this key; this one is a stdio server ("command")'
          : 'only stdio servers ("command") take this key; this one is an HTTP server ("url")',
      });
    }
    if (unknown.length > 0) ctx.addIssue({ ...issue, keys: unknown });
  }
  return z.NEVER;
});

const serverMap = z.record(serverName, upstreamServer);
const MCP_SERVERS_DESCRIPTION =
  'The upstream MCP servers, by name: any non-empty key of at most 128 characters, as client configs write it. A server has either `command` (stdio) or `url` (HTTP).';

// A JavaScript object cannot hold a key "__proto__" as data, and zod's record drops it without a
// word: refused by name, rather than a server that silently is not there. (The function's parameter
// has the record's input type, so that ConfigInput keeps it; at run time it may be anything.)
function refusingProtoKey<Input>(): (servers: Input, ctx: z.core.$RefinementCtx) => Input {
  return (servers, ctx) => {
    if (isPlainObject(servers) && Object.hasOwn(servers, '__proto__')) {
      ctx.addIssue({ code: 'custom', path: ['__proto__'], message: 'a server cannot be named "__proto__"; choose another name' });
    }
    return servers;
  };
}

export const serverObject = z
  .object({
    host: z.string().min(1).default('127.0.0.1').describe('The bind address (the container image sets `0.0.0.0`); `HOST` and `--host` override it.'),
    port: lenientNumber(z.number().int().min(0).max(65_535))
      .default(8080)
      .describe('The port; `0` picks a free one. `PORT` and `--port` override it.'),
    path: z.string().regex(/^\/[^\s?#]*$/, 'must start with "/"').default('/mcp').describe('The MCP endpoint.'),
    publicUrl: z
      .url({ error: 'must be a URL' })
      .optional()
      .describe('The canonical URI clients reach the gateway at: the token audience and what metadata names. Default `http://{host}:{port}{path}`.'),
    allowedOrigins: z
      .array(z.string().regex(ORIGIN_PATTERN, 'must be scheme://host[:port], with "*" as the port or "*." before the host for any, or "*" alone'))
      .optional()
      .describe('The `Origin` allow-list: `https://app.example.com`, `http://localhost:*` (any port), `https://*.example.com` (any subdomain) or `*`. Unset: loopback origins only.'),
    trustedProxies: z
      .array(z.string().refine(isAddressOrRange, 'must be an IP address or a CIDR range, e.g. 10.0.0.0/8 or fd00::/8'))
      .default([])
      .describe(
        "The proxies in front of the gateway (an Ingress controller's pods, a load balancer), as addresses or CIDR ranges: from a peer in them, the right-most `X-Forwarded-For` entry that is not one of them is the client's address, for anonymous rate limits, registration limits and the audit trail. Empty (the default): forwarding headers are never read, since any client can write them.",
      ),
    maxBodyBytes: lenientNumber(z.number().int().positive()).default(4 * 1024 * 1024).describe('Larger request bodies get 413.'),
    shutdownTimeoutSeconds: lenientNumber(z.number().positive()).default(25).describe('How long in-flight requests get after SIGTERM.'),
    // The 2024-11-05 HTTP+SSE transport for the oldest clients; "" turns it off.
    ssePath: z
      .string()
      .regex(/^(\/[^\s?#]*)?$/, 'must start with "/", or be "" to turn the legacy SSE transport off')
      .default('/sse')
      .describe('The legacy 2024-11-05 HTTP+SSE transport, for the oldest clients; `""` turns it off.'),
  })
  .strict();
const serverSection = serverObject
  .refine((server) => server.ssePath !== server.path, { path: ['ssePath'], message: 'must differ from server.path' })
  .transform((server) => ({ ...server, publicUrl: server.publicUrl ?? defaultPublicUrl(server) }));

function defaultPublicUrl({ host, port, path }: { host: string; port: number; path: string }): string {
  const hostInUrl = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${hostInUrl}:${port}${path}`;
}

export const sessionsSection = z
  .object({
    store: z
      .enum(['memory', 'redis'])
      .optional()
      .describe('Where sessions, their event queues and logs live; default `redis` when `redisUrl` or `redis.sentinels` is set, else `memory`.'),
    // An empty string (from `${REDIS_URL:-}`) means "not set".
    redisUrl: z
      .string()
      .optional()
      .transform((value) => (value === '' ? undefined : value))
      .pipe(z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional())
      .describe('One Redis: `redis://` or `rediss://` (TLS); `REDIS_URL` overrides it. `""` means not set.'),
    // Sentinel (sentinels + masterName), or TLS files and credentials for the redisUrl connection (config/redis.ts).
    redis: redisSection.optional(),
    idleTimeoutSeconds: lenientNumber(z.number().int().positive()).default(3600).describe('A session unused this long is gone (404).'),
    unusedIdleTimeoutSeconds: lenientNumber(z.number().int().positive())
      .default(300)
      .describe(
        'The idle timeout of a 2025 session that has made no request since `initialize` (a client that connects and walks away); its first request gives it `idleTimeoutSeconds`. No effect when not shorter.',
      ),
    maxPerPrincipal: lenientNumber(z.number().int().nonnegative())
      .default(100)
      .describe(
        "At most this many live 2025 sessions per principal (token `sub`); a new one ends the principal's session nearest its idle expiry (its next request gets 404, its upstream sessions are ended). `0`: no cap. No cap without `auth` (there is no principal).",
      ),
    // While Redis does not answer (docs/guides/deploying-on-kubernetes.md): how long a request
    // waits for it, what its 503 tells the client, and whether readiness follows it.
    deadlineMs: lenientNumber(z.number().int().min(100).max(60_000))
      .default(2000)
      .describe('A Redis command of the session store unanswered after this long fails, and its request is answered 503 with `Retry-After`.'),
    retryAfterSeconds: lenientNumber(z.number().int().min(1).max(3600))
      .default(1)
      .describe('The `Retry-After` (and `data.retryAfterSeconds`) of the 503 a request gets while the session store does not answer.'),
    notReadyWhileDown: lenientBoolean()
      .default(false)
      .describe('`true`: `/readyz` answers 503 while the session store is out (down, frozen, read-only, out of memory). Default: it stays 200 and reports the store in its body, so every replica keeps answering the documented 503, and 2026 requests that need no store.'),
    // Every Redis key and channel starts with it, so several deployments can share one Redis.
    keyPrefix: z
      .string()
      .regex(/^[A-Za-z0-9:_.-]{1,128}$/, 'must be 1 to 128 of A-Z a-z 0-9 : _ . -')
      .default('switchboard:')
      .describe('The start of every Redis key and channel, so several deployments can share one Redis.'),
    // Seals the upstream tokens that token exchange obtained before they go to the shared store;
    // every replica must have the same. An empty string (from `${VAR:-}`) means "not set".
    credentialKey: z
      .string()
      .optional()
      .transform((value) => (value === '' ? undefined : value))
      .pipe(z.string().min(32, 'must be at least 32 characters (use a random string, e.g. `openssl rand -base64 32`)').optional())
      .describe('Seals the tokens token exchange obtained before they go to Redis: at least 32 characters, the same on every replica. Required with the Redis store when a server uses `tokenExchange`.'),
  })
  .strict()
  .superRefine((sessions, ctx) => {
    const sentinel = sessions.redis?.mode === 'sentinel';
    if (sentinel && sessions.redisUrl !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['redisUrl'],
        message: 'set either redisUrl (one Redis) or redis.sentinels (a Sentinel group), not both (is REDIS_URL set?)',
      });
    }
    if (sessions.store === 'redis' && sessions.redisUrl === undefined && !sentinel) {
      ctx.addIssue({
        code: 'custom',
        path: ['redisUrl'],
        message: 'required when sessions.store is "redis" (set it, or REDIS_URL, or redis.sentinels)',
      });
    }
  })
  // Setting a Redis URL (or sentinels) is how a user asks for Redis; an explicit store still wins.
  .transform((sessions) => ({ ...sessions, store: sessions.store ?? (sessions.redisUrl || sessions.redis?.mode === 'sentinel' ? 'redis' : 'memory') }));

export const namespaceSection = z
  .object({
    separator: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,4}$/, 'must be 1 to 4 of A-Z a-z 0-9 _ -')
      .default('__')
      .describe('Between a server\'s prefix and an upstream name: exposed name = prefix + separator + name.'),
    // Clients put their own key in front of a tool's name (Mastra and LangChain: a server key such
    // as `gw_`), and function-calling APIs accept 64 characters: a gateway name of 64 is refused
    // there. 48 leaves 16 for that key.
    maxNameLength: lenientNumber(z.number().int().min(MIN_NAME_LENGTH).max(64))
      .default(DEFAULT_MAX_NAME_LENGTH)
      .describe(
        `The longest tool or prompt name the gateway makes: a longer \`prefix + separator + name\` is cut and ends in \`_\` and 8 characters of a hash of the server and upstream name, the same on every replica. The default ${DEFAULT_MAX_NAME_LENGTH} leaves 16 of the 64 characters function-calling APIs accept for the server key some clients put in front (Mastra, LangChain). A tool override's \`name\` is exposed as written.`,
      ),
  })
  .strict();

// A page size for the merged lists, for clients that page; without one every list is one page.
const listsSection = z
  .object({
    pageSize: lenientNumber(z.number().int().positive().max(100_000))
      .optional()
      .describe(
        'Items per page of `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`, for clients that page. Unset: each list is one page, since some clients read only the first page (the spec lets a server choose its page size).',
      ),
  })
  .strict();

const authSection = z
  .object({
    issuer: z
      .string()
      .min(1)
      .optional()
      .describe('The identity provider whose tokens the gateway accepts (resource-server mode): tokens must carry this `iss`. Not with `signIn`, where Switchboard is the issuer.'),
    audience: z.string().min(1).optional().describe('Tokens must name it in `aud`; default `server.publicUrl`.'),
    jwksUri: z
      .url({ error: 'must be a URL' })
      .optional()
      .describe("With `issuer`: where the provider's signing keys are (a JWKS); fetched on first use, cached, and fetched again for an unknown `kid`. Set this, `introspection`, or both."),
    introspection: introspectionSection.optional(),
    signIn: signInSection.optional(),
    browserSignIn: browserSignInSection.optional(),
    requiredScopes: z.array(z.string().min(1)).default([]).describe('Scopes every token needs; without one: 403.'),
    subjectClaim: z
      .string()
      .min(1)
      .optional()
      .describe(
        "With `issuer`: the claim that names the person in the provider's tokens, which sessions, rate limits, policy `when.sub`, per-user credentials and connections are keyed by; default `sub`. Entra ID: `oid` (its `sub` is pairwise: one person has another `sub` in each client app's tokens). Not with `signIn`, whose tokens carry the mapped `claims.sub` as `sub`.",
      ),
    authorizationServers: z
      .array(z.url({ error: 'must be a URL' }))
      .optional()
      .describe('What the protected resource metadata names as authorization servers; default `[issuer]`.'),
    clockToleranceSeconds: lenientNumber(z.number().int().min(0).max(300))
      .default(30)
      .describe('Leeway for `exp` and `nbf`, in seconds.'),
  })
  .strict()
  .superRefine(authModeProblems);

// Two modes: the tokens of the team's provider (`issuer` + `jwksUri` and/or `introspection`), or
// Switchboard's own (`signIn`). Both at once would leave it unclear whose tokens count.
function authModeProblems(
  auth: { issuer?: string | undefined; jwksUri?: string | undefined; introspection?: unknown; signIn?: unknown; browserSignIn?: unknown; authorizationServers?: unknown; subjectClaim?: unknown },
  context: z.RefinementCtx,
): void {
  if (auth.signIn !== undefined) {
    for (const key of ['issuer', 'jwksUri', 'introspection', 'authorizationServers', 'subjectClaim'] as const) {
      if (auth[key] !== undefined) context.addIssue({ code: 'custom', path: [key], message: 'not with signIn: Switchboard issues the tokens itself and is their authorization server' });
    }
    if (auth.browserSignIn !== undefined) context.addIssue({ code: 'custom', path: ['browserSignIn'], message: "not with signIn: browsers sign in through Switchboard's own authorization server there" });
    return;
  }
  if (auth.issuer === undefined) context.addIssue({ code: 'custom', path: ['issuer'], message: "is required: the identity provider whose tokens are accepted (or signIn, for Switchboard's own)" });
  else if (auth.jwksUri === undefined && auth.introspection === undefined) {
    context.addIssue({ code: 'custom', path: ['jwksUri'], message: "is required with issuer, unless introspection is set: where the provider's signing keys are (for JWTs), or its introspection endpoint (for opaque tokens)" });
  }
}

const claimValue = z.union([z.string(), z.number(), z.boolean()]);
// {server}/{name} globs (src/policy/glob.ts): a server part and a name part, split at the first "/".
const policyPattern = z
  .string()
  .regex(/^[^/]+\/.+$/s, 'must be {server}/{name}, e.g. "everything/echo", "memory/read_*" or "*/*"')
  .describe("A `{server}/{name}` glob: the server's config name or slug, then the upstream's own tool or prompt name, resource URI or URI template.");
const policyRule = z
  .object({
    when: z
      .object({
        sub: z.string().optional().describe("The token's subject, equal."),
        scopes: z.array(z.string()).optional().describe('Scopes the token has, every one.'),
        claims: z
          .record(z.string(), z.union([claimValue, z.array(claimValue)]))
          .optional()
          .describe('Claims equal to the value (or, for an array claim, containing it); a list means any of them. `a.b` walks into nested claims.'),
      })
      .strict()
      .default({})
      .describe('When the rule applies: all conditions hold. Absent: to every caller.'),
    allow: z.array(policyPattern).default([]).describe('Items this rule allows.'),
    deny: z.array(policyPattern).default([]).describe('Items this rule denies; a deny in any applicable rule wins.'),
  })
  .strict()
  .describe('A rule: when it applies, the items it allows and denies.');

const policySection = z
  .object({
    default: z.enum(['allow', 'deny']).default('allow').describe('What happens to items no applicable rule names.'),
    rules: z.array(policyRule).default([]).describe('Rules; the allows of all applicable rules add up.'),
  })
  .strict();

// Per-server limits (limits.servers), keyed by the server's config name as written. Rates are per
// principal and across replicas, like limits.requestsPerMinute; the concurrency cap is per replica.
export const DEFAULT_MAX_QUEUED = 100;
export const DEFAULT_QUEUE_TIMEOUT_MS = 10_000;
const requestsPerMinute = lenientNumber(z.number().int().positive());
const toolLimit = z
  .object({ requestsPerMinute: requestsPerMinute.describe('Calls to this tool a minute, per principal, across replicas.') })
  .strict()
  .describe("One tool's limit, keyed by the upstream's own tool name.");
export const serverLimitObject = z
  .object({
    requestsPerMinute: requestsPerMinute.optional().describe('Calls to this server a minute, per principal, across replicas.'),
    maxConcurrent: lenientNumber(z.number().int().positive().max(10_000))
      .optional()
      .describe('Calls in progress at the server at once, per replica; more wait in line.'),
    maxQueued: lenientNumber(z.number().int().min(0).max(100_000))
      .optional()
      .describe(`With \`maxConcurrent\`: calls that may wait for a slot (default ${DEFAULT_MAX_QUEUED}); more are refused at once.`),
    queueTimeoutMs: lenientNumber(z.number().int().positive().max(3_600_000))
      .optional()
      .describe(`With \`maxConcurrent\`: the longest a call waits for a slot, in milliseconds (default ${DEFAULT_QUEUE_TIMEOUT_MS}).`),
    // Keyed by the upstream's own tool name, as mcpServers.<name>.tools is.
    tools: z
      .record(z.string().min(1, 'a tool name is not empty'), toolLimit)
      .optional()
      .describe("Per-tool rates, keyed by the upstream's own tool name (not the exposed or renamed one)."),
  })
  .strict();
const serverLimit = serverLimitObject
  .describe("One server's limits, keyed by its name as `mcpServers` writes it.")
  .superRefine((limit, ctx) => {
    if (limit.maxConcurrent !== undefined) return;
    // A queue without a cap would never fill: the setting is a mistake worth naming.
    for (const key of ['maxQueued', 'queueTimeoutMs'] as const) {
      if (limit[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'only applies with maxConcurrent: it bounds the calls waiting for one of its slots' });
    }
  })
  // With a cap, the queue is always bounded: both of its bounds are set in the result.
  .transform((limit) =>
    limit.maxConcurrent === undefined
      ? limit
      : { ...limit, maxQueued: limit.maxQueued ?? DEFAULT_MAX_QUEUED, queueTimeoutMs: limit.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS },
  );
const serverLimitMap = z.record(z.string(), serverLimit);

export type ServerLimitConfig = z.output<typeof serverLimit>;

// An endpoint's path is also its canonical URI, which tokens name as their audience: a trailing "/"
// is refused with the path to write rather than quietly dropped, so that URI is the one written.
function refusingTrailingSlash(path: string, ctx: z.core.$RefinementCtx): void {
  if (path.length > 1 && path.endsWith('/')) ctx.addIssue({ code: 'custom', message: `must not end with "/": write "${path.replace(/\/+$/, '') || '/'}"` });
}

// More MCP endpoints beside server.path (endpoints.ts): each a view of the same gateway, selected
// with policy patterns, with its own canonical URI, token audience and required scopes.
export const endpointName = z
  .string()
  .regex(ENDPOINT_NAME, 'an endpoint name is 1 to 64 of A-Z a-z 0-9 _ - (it is a metric label value)')
  .refine((name) => name !== DEFAULT_ENDPOINT, `"${DEFAULT_ENDPOINT}" names server.path's endpoint; choose another name`);
export const endpointSection = z
  .object({
    path: z
      .string()
      .regex(/^\/[^\s?#]*$/, 'must start with "/"')
      .superRefine(refusingTrailingSlash)
      .describe('Where the endpoint is served, beside `server.path`. No trailing "/": the path is also the endpoint\'s canonical URI, which tokens name.'),
    // What the endpoint offers: items some include matches and no exclude does (then policy decides).
    include: z
      .array(policyPattern)
      .default(['*/*'])
      .describe('`{server}/{name}` patterns, as in policy: the endpoint offers the items an include matches and no exclude does.'),
    exclude: z.array(policyPattern).default([]).describe('Patterns of items left out; an exclude beats an include.'),
    // Tokens must name this audience; default the endpoint's canonical URI (publicUrl's origin + path).
    audience: z
      .string()
      .min(1)
      .optional()
      .describe("With `auth`: the audience tokens must name here; default the endpoint's canonical URI (`server.publicUrl`'s origin + `path`)."),
    // Scopes a token needs here, on top of auth.requiredScopes.
    requiredScopes: z
      .array(z.string().regex(/^\S+$/, 'a scope is a word without spaces'))
      .default([])
      .describe('With `auth`: scopes a token needs here, on top of `auth.requiredScopes`.'),
    // list: the selected tools as they are; search: two tools, find_tools and call_tool, instead.
    discovery: z
      .enum(['list', 'search'])
      .default('list')
      .describe('`list`: the selected tools as they are; `search`: two tools instead, `find_tools` and `call_tool`.'),
  })
  .strict()
  .describe('One endpoint, named for metrics and audit lines: its path, what it offers, and with `auth` its audience and scopes.');
const endpointsSection = z.record(endpointName, endpointSection);

export type EndpointConfig = z.output<typeof endpointSection>;

const limitsSection = z
  .object({
    requestsPerMinute: lenientNumber(z.number().int().positive())
      .optional()
      .describe('Requests to the MCP endpoints a minute, per token subject (or client address without a token), across replicas; over it: 429.'),
    // Which servers exist is checked with the whole config (limit-servers.ts).
    servers: z
      .preprocess(refusingProtoKey<z.input<typeof serverLimitMap>>(), serverLimitMap)
      .optional()
      .describe('Per-server limits, keyed by the server\'s name as `mcpServers` writes it.'),
  })
  .strict();

// Pinned tool definitions (src/pinning/): what the gateway does with a tool whose live definition
// is not the one in the lock file that `switchboard lock` wrote. `pinning: enforce` is short for
// `pinning: {mode: enforce}`.
const pinningObject = z
  .object({
    mode: z
      .enum(['off', 'warn', 'enforce'])
      .default('off')
      .describe('What the gateway does with a tool whose definition is not the one in the lock file: nothing, log it, or withhold it.'),
    // Relative to the config file's directory (load.ts resolves it); the default is named after
    // the config file: switchboard.yaml -> switchboard.lock.yaml.
    lockFile: z
      .string()
      .min(1)
      .default(DEFAULT_LOCK_FILE)
      .describe('The lock file `switchboard lock` writes, relative to the config file\'s directory; default the config file\'s name with `.lock.yaml`.'),
    // A tool with no pin (new, or of a server not in the lock file): withheld under enforce, or listed.
    unpinnedTools: z
      .enum(['withhold', 'allow'])
      .default('withhold')
      .describe('A tool the lock file has no pin for (new, or of a server not in it): withheld under `enforce`, or allowed.'),
  })
  .strict();

function pinningShorthand(value: string | z.input<typeof pinningObject>): z.input<typeof pinningObject> {
  return typeof value === 'string' ? { mode: value as 'off' | 'warn' | 'enforce' } : value;
}

/** The config file's `pinning`: a mode alone, or the whole object. */
export const pinningSection = z.preprocess(pinningShorthand, pinningObject);

// MRTR (2026-07-28): how the gateway keeps a call between a client's rounds of input.
const mrtrSection = z
  .object({
    // Seals requestState (modern/request-state.ts). Every replica must have the same; an empty
    // string (from `${SWITCHBOARD_STATE_SECRET:-}`) means "not set": a random key per process.
    stateSecret: z
      .string()
      .optional()
      .transform((value) => (value === '' ? undefined : value))
      .pipe(z.string().min(16, 'must be at least 16 characters (use a random string, e.g. `openssl rand -base64 32`)').optional())
      .describe('Seals the `requestState` of 2026 calls waiting for client input: at least 16 characters, the same on every replica. `SWITCHBOARD_STATE_SECRET` overrides it; unset, each process seals with a random key of its own.'),
    // How long a call waits for the client's retry before it is cancelled upstream; also the
    // lifetime of the sealed state.
    inputTimeoutSeconds: lenientNumber(z.number().int().positive().max(3600))
      .default(300)
      .describe("How long a call waits for the client's answers (and its sealed state stays valid) before it is cancelled upstream."),
    // Rounds of a 2026 upstream's input_required put to a 2025 client before the call is abandoned.
    maxRounds: lenientNumber(z.number().int().positive().max(100))
      .default(8)
      .describe("Rounds of a 2026 upstream's `input_required` put to a 2025 client before the call is abandoned."),
  })
  .strict();

// Gateway tasks (docs/decisions/0019-gateway-tasks.md): a task-augmented tools/call of a tool whose
// upstream has no tasks runs as a task of the gateway's, kept in the session store.
const tasksSection = z
  .object({
    gatewayTasks: lenientBoolean()
      .default(false)
      .describe('Run tool calls of servers that have no tasks as tasks of the gateway\'s: their tools (those that say nothing of tasks) are listed with `execution.taskSupport: "optional"`, and a task-augmented call runs detached, its status and result kept in the session store for the task\'s ttl (any replica answers tasks/get and tasks/result). A 2026-07-28 client that declares the tasks extension gets a task for every call of such a tool. Off: such tools are listed and called as their servers say.'),
    maxPerPrincipal: lenientNumber(z.number().int().positive().max(100_000))
      .default(20)
      .describe('Gateway tasks one principal may have kept at once, working or done and not yet expired; one more is refused ("too many gateway tasks", see the error reference). With maxResultBytes, bounds what one principal can make the store keep.'),
    maxResultBytes: lenientNumber(z.number().int().positive().max(100_000_000))
      .default(1_048_576)
      .describe('The largest result of a gateway task the gateway keeps (bytes of its JSON); a larger one fails the task.'),
    maxTtlSeconds: lenientNumber(z.number().int().positive().max(604_800))
      .default(3600)
      .describe('The longest a gateway task and its result are kept: the client\'s `task.ttl`, capped at this; this when it asks for none.'),
  })
  .strict();

export const configSchema = z
  .object({
    server: serverSection.default(() => serverSection.parse({})).describe('Where and how the gateway listens.'),
    sessions: sessionsSection.default(() => sessionsSection.parse({})).describe('The session store: memory (one replica) or Redis (any number of replicas).'),
    namespace: namespaceSection.default(() => namespaceSection.parse({})).describe('How exposed tool and prompt names are built.'),
    lists: listsSection.default({}).describe('How the merged lists are paged: one page each unless `pageSize` is set.'),
    mcpServers: z.preprocess(refusingProtoKey<z.input<typeof serverMap>>(), serverMap).default({}).describe(MCP_SERVERS_DESCRIPTION),
    auth: authSection
      .optional()
      .describe('Makes the gateway an OAuth 2.1 resource server: every request needs a bearer token, from `issuer` (resource-server mode) or from Switchboard itself (`signIn`). Absent: no authentication.'),
    policy: policySection
      .optional()
      .describe('Which caller may see and use which tools, prompts and resources; a denied item looks exactly like a missing one.'),
    endpoints: endpointsSection
      .default({})
      .describe('More MCP endpoints beside `server.path`, by name (a metric label value, not `default`): each the same gateway seen through a selection.'),
    limits: limitsSection.default({}).describe('Rate limits per principal, and per-server rates and concurrency caps.'),
    tasks: tasksSection.default(() => tasksSection.parse({})).describe('Gateway tasks: tasks the gateway runs for servers that have none, and their bounds. A change takes effect after a restart.'),
    mrtr: mrtrSection.default(() => mrtrSection.parse({})).describe('How the gateway keeps a 2026-07-28 call between the client\'s rounds of input.'),
    pinning: pinningSection
      .default(() => pinningObject.parse({}))
      .describe('Pinned tool definitions: `off`, `warn` or `enforce` (short for `{mode: ...}`), or the whole object.'),
    telemetry: telemetrySection.default({}),
    admin: adminSection.default(() => adminSection.parse({})),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
export type Config = z.output<typeof configSchema>;
export type UpstreamConfig = Config['mcpServers'][string];
export type AuthConfig = z.output<typeof authSection>;
export type PolicyConfig = z.output<typeof policySection>;
export type PolicyRule = z.output<typeof policyRule>;
export type PinningConfig = z.output<typeof pinningObject>;

export function isStdioUpstream(upstream: UpstreamConfig): upstream is StdioUpstreamConfig {
  return 'command' in upstream;
}
