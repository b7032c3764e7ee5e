// The config file's shape: this schema *is* the contract's "Config file" section, checked once at
// load time. Defaults live here so that the rest of the code reads a complete, frozen object.
// The loader (load.ts) does what needs more than the parsed tree: ${VAR} interpolation, the aliases
// of other MCP clients' files, PORT/HOST/REDIS_URL and command-line overrides.
import { z } from 'zod';
import { credentialProblems, credentialsSection } from './credentials.js';
import { lenientBoolean, lenientNumber } from './lenient.js';
import { adminSection, telemetrySection } from './operations.js';
import { DEFAULT_ENDPOINT, ENDPOINT_NAME, endpointProblems } from './endpoints.js';
import { isPlainObject } from './key-path.js';
import { limitServerProblems } from './limit-servers.js';
import { redisSection } from './redis.js';
import { SERVER_NAME_MAX, serverSlug } from './server-names.js';
import { TOOL_NAME, toolRenameProblems } from './tool-renames.js';

// A prefix becomes the front of tool names, which must fit ^[A-Za-z0-9_-]{1,64}$.
const PREFIX = /^[A-Za-z0-9_-]{0,32}$/;
// server.allowedOrigins entries (src/http/origin-patterns.ts says what they match).
const ORIGIN_PATTERN = /^(\*|https?:\/\/(\*\.)?([^/:*?#@\s]+|\[[0-9A-Fa-f:.]+\])(:(\d{1,5}|\*))?\/?)$/;
/** pinning.lockFile for a config that is not read from a file (a file's own default is named after it). */
export const DEFAULT_LOCK_FILE = 'switchboard.lock.yaml';


const stringMap = z.record(z.string(), z.string());

// Any key a client's config uses is a server name (`GitHub`, `brave_search`, `My Notes`); where an
// alphabet rule applies, its slug stands in for it (server-names.ts).
const serverName = z
  .string()
  .min(1, 'a server name must not be empty')
  .refine((name) => [...name].length <= SERVER_NAME_MAX, `a server name is at most ${SERVER_NAME_MAX} characters`);

// MCP's ToolAnnotations. Given hints are laid over the upstream's own, key by key.
const toolAnnotations = z
  .object({
    title: z.string().optional(),
    readOnlyHint: lenientBoolean().optional(),
    destructiveHint: lenientBoolean().optional(),
    idempotentHint: lenientBoolean().optional(),
    openWorldHint: lenientBoolean().optional(),
  })
  .strict();

// One tool as the client should see it, keyed by the upstream's own tool name. A key the upstream
// does not list is not an error (its list may change); the gateway logs it once.
const toolOverride = z
  .object({
    // The exposed name, exactly: no prefix is added.
    name: z.string().regex(TOOL_NAME, 'must be 1 to 64 of A-Z a-z 0-9 _ - (what LLM APIs accept as a function name)').optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    annotations: toolAnnotations.optional(),
    hidden: lenientBoolean().optional(),
  })
  .strict();

export type ToolOverrideConfig = z.output<typeof toolOverride>;

const upstreamCommon = {
  prefix: z.string().regex(PREFIX, 'must be at most 32 of A-Z a-z 0-9 _ -').optional(),
  timeoutMs: lenientNumber(z.number().int().positive().max(3_600_000)).default(60_000),
  isolation: z.enum(['shared', 'session']).default('shared'),
  // isolation: session only: at most this many session connections (or processes) on one replica;
  // the least recently used idle one is closed to make room.
  maxSessions: lenientNumber(z.number().int().positive().max(100_000)).default(1000),
  // Each caller reaches the upstream as themself (credentials.ts); absent: the config's own headers or env.
  credentials: credentialsSection.optional(),
  enabled: lenientBoolean().default(true),
  tools: z.record(z.string().min(1, 'a tool name is not empty'), toolOverride).optional(),
};

const stdioServer = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: stringMap.default({}),
    cwd: z.string().min(1).optional(),
    ...upstreamCommon,
  })
  .strict();

const httpServer = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    headers: stringMap.default({}),
    transport: z.enum(['auto', 'streamable-http', 'sse']).default('auto'),
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
const upstreamServer = z.unknown().transform((value, ctx): StdioUpstreamConfig | HttpUpstreamConfig => {
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

const serverSection = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: lenientNumber(z.number().int().min(0).max(65_535)).default(8080),
    path: z.string().regex(/^\/[^\s?#]*$/, 'must start with "/"').default('/mcp'),
    publicUrl: z.url({ error: 'must be a URL' }).optional(),
    allowedOrigins: z.array(z.string().regex(ORIGIN_PATTERN, 'must be scheme://host[:port], with "*" as the port or "*." before the host for any, or "*" alone')).optional(),
    maxBodyBytes: lenientNumber(z.number().int().positive()).default(4 * 1024 * 1024),
    shutdownTimeoutSeconds: lenientNumber(z.number().positive()).default(25),
    // The 2024-11-05 HTTP+SSE transport for the oldest clients; "" turns it off.
    ssePath: z.string().regex(/^(\/[^\s?#]*)?$/, 'must start with "/", or be "" to turn the legacy SSE transport off').default('/sse'),
  })
  .strict()
  .refine((server) => server.ssePath !== server.path, { path: ['ssePath'], message: 'must differ from server.path' })
  .transform((server) => ({ ...server, publicUrl: server.publicUrl ?? defaultPublicUrl(server) }));

function defaultPublicUrl({ host, port, path }: { host: string; port: number; path: string }): string {
  const hostInUrl = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${hostInUrl}:${port}${path}`;
}

const sessionsSection = z
  .object({
    store: z.enum(['memory', 'redis']).optional(),
    // An empty string (from `${REDIS_URL:-}`) means "not set".
    redisUrl: z
      .string()
      .optional()
      .transform((value) => (value === '' ? undefined : value))
      .pipe(z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional()),
    // Sentinel (sentinels + masterName), or TLS files and credentials for the redisUrl connection (config/redis.ts).
    redis: redisSection.optional(),
    idleTimeoutSeconds: lenientNumber(z.number().int().positive()).default(3600),
    // Every Redis key and channel starts with it, so several deployments can share one Redis.
    keyPrefix: z.string().regex(/^[A-Za-z0-9:_.-]{1,128}$/, 'must be 1 to 128 of A-Z a-z 0-9 : _ . -').default('switchboard:'),
    // Seals the upstream tokens that token exchange obtained before they go to the shared store;
    // every replica must have the same. An empty string (from `${VAR:-}`) means "not set".
    credentialKey: z
      .string()
      .optional()
      .transform((value) => (value === '' ? undefined : value))
      .pipe(z.string().min(32, 'must be at least 32 characters (use a random string, e.g. `openssl rand -base64 32`)').optional()),
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

const namespaceSection = z
  .object({
    separator: z.string().regex(/^[A-Za-z0-9_-]{1,4}$/, 'must be 1 to 4 of A-Z a-z 0-9 _ -').default('__'),
  })
  .strict();

const authSection = z
  .object({
    issuer: z.string().min(1),
    audience: z.string().min(1).optional(),
    jwksUri: z.url({ error: 'must be a URL' }),
    requiredScopes: z.array(z.string().min(1)).default([]),
    authorizationServers: z.array(z.url({ error: 'must be a URL' })).optional(),
    clockToleranceSeconds: lenientNumber(z.number().int().min(0).max(300)).default(30),
  })
  .strict();

const claimValue = z.union([z.string(), z.number(), z.boolean()]);
// {server}/{name} globs (src/policy/glob.ts): a server part and a name part, split at the first "/".
const policyPattern = z.string().regex(/^[^/]+\/.+$/s, 'must be {server}/{name}, e.g. "everything/echo", "memory/read_*" or "*/*"');
const policyRule = z
  .object({
    when: z
      .object({
        sub: z.string().optional(),
        scopes: z.array(z.string()).optional(),
        claims: z.record(z.string(), z.union([claimValue, z.array(claimValue)])).optional(),
      })
      .strict()
      .default({}),
    allow: z.array(policyPattern).default([]),
    deny: z.array(policyPattern).default([]),
  })
  .strict();

const policySection = z
  .object({
    default: z.enum(['allow', 'deny']).default('allow'),
    rules: z.array(policyRule).default([]),
  })
  .strict();

// Per-server limits (limits.servers), keyed by the server's config name as written. Rates are per
// principal and across replicas, like limits.requestsPerMinute; the concurrency cap is per replica.
export const DEFAULT_MAX_QUEUED = 100;
export const DEFAULT_QUEUE_TIMEOUT_MS = 10_000;
const requestsPerMinute = lenientNumber(z.number().int().positive());
const toolLimit = z.object({ requestsPerMinute }).strict();
const serverLimit = z
  .object({
    requestsPerMinute: requestsPerMinute.optional(),
    maxConcurrent: lenientNumber(z.number().int().positive().max(10_000)).optional(),
    maxQueued: lenientNumber(z.number().int().min(0).max(100_000)).optional(),
    queueTimeoutMs: lenientNumber(z.number().int().positive().max(3_600_000)).optional(),
    // Keyed by the upstream's own tool name, as mcpServers.<name>.tools is.
    tools: z.record(z.string().min(1, 'a tool name is not empty'), toolLimit).optional(),
  })
  .strict()
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

// More MCP endpoints beside server.path (endpoints.ts): each a view of the same gateway, selected
// with policy patterns, with its own canonical URI, token audience and required scopes.
const endpointName = z
  .string()
  .regex(ENDPOINT_NAME, 'an endpoint name is 1 to 64 of A-Z a-z 0-9 _ - (it is a metric label value)')
  .refine((name) => name !== DEFAULT_ENDPOINT, `"${DEFAULT_ENDPOINT}" names server.path's endpoint; choose another name`);
const endpointSection = z
  .object({
    path: z.string().regex(/^\/[^\s?#]*$/, 'must start with "/"'),
    // What the endpoint offers: items some include matches and no exclude does (then policy decides).
    include: z.array(policyPattern).default(['*/*']),
    exclude: z.array(policyPattern).default([]),
    // Tokens must name this audience; default the endpoint's canonical URI (publicUrl's origin + path).
    audience: z.string().min(1).optional(),
    // Scopes a token needs here, on top of auth.requiredScopes.
    requiredScopes: z.array(z.string().regex(/^\S+$/, 'a scope is a word without spaces')).default([]),
    // list: the selected tools as they are; search: two tools, find_tools and call_tool, instead.
    discovery: z.enum(['list', 'search']).default('list'),
  })
  .strict();
const endpointsSection = z.record(endpointName, endpointSection);

export type EndpointConfig = z.output<typeof endpointSection>;

const limitsSection = z
  .object({
    requestsPerMinute: lenientNumber(z.number().int().positive()).optional(),
    // Which servers exist is checked with the whole config (limit-servers.ts).
    servers: z.preprocess(refusingProtoKey<z.input<typeof serverLimitMap>>(), serverLimitMap).optional(),
  })
  .strict();

// Pinned tool definitions (src/pinning/): what the gateway does with a tool whose live definition
// is not the one in the lock file that `switchboard lock` wrote. `pinning: enforce` is short for
// `pinning: {mode: enforce}`.
const pinningObject = z
  .object({
    mode: z.enum(['off', 'warn', 'enforce']).default('off'),
    // Relative to the config file's directory (load.ts resolves it); the default is named after
    // the config file: switchboard.yaml -> switchboard.lock.yaml.
    lockFile: z.string().min(1).default(DEFAULT_LOCK_FILE),
    // A tool with no pin (new, or of a server not in the lock file): withheld under enforce, or listed.
    unpinnedTools: z.enum(['withhold', 'allow']).default('withhold'),
  })
  .strict();

function pinningShorthand(value: string | z.input<typeof pinningObject>): z.input<typeof pinningObject> {
  return typeof value === 'string' ? { mode: value as 'off' | 'warn' | 'enforce' } : value;
}

const pinningSection = z.preprocess(pinningShorthand, pinningObject);

// MRTR (2026-07-28): how the gateway keeps a call between a client's rounds of input.
const mrtrSection = z
  .object({
    // Seals requestState (modern/request-state.ts). Every replica must have the same; an empty
    // string (from `${SWITCHBOARD_STATE_SECRET:-}`) means "not set": a random key per process.
    stateSecret: z
      .string()
      .optional()
      .transform((value) => (value === '' ? undefined : value))
      .pipe(z.string().min(16, 'must be at least 16 characters (use a random string, e.g. `openssl rand -base64 32`)').optional()),
    // How long a call waits for the client's retry before it is cancelled upstream; also the
    // lifetime of the sealed state.
    inputTimeoutSeconds: lenientNumber(z.number().int().positive().max(3600)).default(300),
    // Rounds of a 2026 upstream's input_required put to a 2025 client before the call is abandoned.
    maxRounds: lenientNumber(z.number().int().positive().max(100)).default(8),
  })
  .strict();

export const configSchema = z
  .object({
    server: serverSection.default(() => serverSection.parse({})),
    sessions: sessionsSection.default(() => sessionsSection.parse({})),
    namespace: namespaceSection.default(() => namespaceSection.parse({})),
    mcpServers: z.preprocess(refusingProtoKey<z.input<typeof serverMap>>(), serverMap).default({}),
    auth: authSection.optional(),
    policy: policySection.optional(),
    endpoints: endpointsSection.default({}),
    limits: limitsSection.default({}),
    mrtr: mrtrSection.default(() => mrtrSection.parse({})),
    pinning: pinningSection.default(() => pinningObject.parse({})),
    telemetry: telemetrySection.default({}),
    admin: adminSection.default(() => adminSection.parse({})),
  })
  .strict()
  .superRefine((config, ctx) => {
    // A disabled server exposes nothing, so it may share a slug or a prefix with another (an
    // alternative kept in the file).
    const ownerOfSlug = new Map<string, string>();
    const ownerOfPrefix = new Map<string, string>();
    for (const [name, server] of Object.entries(config.mcpServers)) {
      if (!server.enabled) continue;
      // The slug names the server in resource URIs, metrics, policy patterns and Redis keys, so
      // two servers may not share one even when their prefixes differ.
      const slug = serverSlug(name);
      const slugOwner = ownerOfSlug.get(slug);
      if (slugOwner !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['mcpServers', name],
          message: `servers "${slugOwner}" and "${name}" both normalize to "${slug}", the name a server goes by in tool prefixes, resource URIs, metrics and policy patterns; rename one of them`,
        });
        continue;
      }
      ownerOfSlug.set(slug, name);
      // Two enabled servers with one prefix would expose each other's tools under the same names.
      const prefix = server.prefix ?? slug;
      if (prefix === '') continue;
      const owner = ownerOfPrefix.get(prefix);
      if (owner === undefined) {
        ownerOfPrefix.set(prefix, name);
        continue;
      }
      ctx.addIssue({
        code: 'custom',
        path: ['mcpServers', name, 'prefix'],
        message: `servers "${owner}" and "${name}" both expose the prefix "${prefix}"; give one a different prefix`,
      });
    }
    // Renamed tools must stay unique, as far as the file can tell (tool-renames.ts); every enabled
    // server takes part, since a rename may fall among the names of one without overrides.
    const renaming = Object.entries(config.mcpServers)
      .filter(([, server]) => server.enabled)
      .map(([name, server]) => ({ server: name, prefix: server.prefix ?? serverSlug(name), tools: server.tools ?? {} }));
    for (const problem of toolRenameProblems(renaming, config.namespace.separator)) {
      ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
    }
    for (const problem of limitServerProblems(config.limits.servers ?? {}, Object.keys(config.mcpServers))) {
      ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
    }
    const credentialFacts = {
      servers: Object.fromEntries(
        Object.entries(config.mcpServers)
          .filter(([, server]) => server.enabled)
          .map(([name, server]) => [name, { kind: isStdioUpstream(server) ? ('stdio' as const) : ('http' as const), isolation: server.isolation, credentials: server.credentials }]),
      ),
      auth: config.auth !== undefined,
      store: config.sessions.store,
      credentialKey: config.sessions.credentialKey,
    };
    for (const problem of credentialProblems(credentialFacts)) {
      ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
    }
    // Refinements run on a config with problems elsewhere too (a port out of range makes no URL).
    if (Object.keys(config.endpoints).length > 0) {
      const serverPaths = { path: config.server.path, ssePath: config.server.ssePath, publicPath: URL.parse(config.server.publicUrl)?.pathname ?? config.server.path };
      for (const problem of endpointProblems(config.endpoints, serverPaths, Object.keys(config.mcpServers))) {
        ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
      }
    }
  });

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
