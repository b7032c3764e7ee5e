// The checks that read more than one key of the config: slugs and prefixes that two servers share,
// renames that collide, limits and selectors naming no server, credentials without what they
// need, endpoint paths that clash, endpoint token settings without `auth`, and rules that name a
// tool by its exposed name. They run on what parsed (parts.ts), beside the field-level problems,
// so one run of `switchboard validate` shows everything to fix. Pure: key paths and messages.
import { credentialProblems } from './credentials.js';
import { endpointProblems, type EndpointPaths } from './endpoints.js';
import type { PathProblem } from './key-path.js';
import { limitServerProblems } from './limit-servers.js';
import type { ConfigParts } from './parts.js';
import { ruleToolNameProblems, type PatternSite } from './rule-tool-names.js';
import { serverSlug } from './server-names.js';
import { toolRenameProblems } from './tool-renames.js';

export function crossKeyProblems(parts: ConfigParts): PathProblem[] {
  return [
    ...sharedNameProblems(parts),
    ...renameProblems(parts),
    ...limitServerProblems(Object.fromEntries(parts.limitedServers.map((name) => [name, true])), parts.serverNames),
    ...credentialsProblems(parts),
    ...endpointsProblems(parts),
    ...endpointAuthProblems(parts),
    ...signInProblems(parts),
    ...ruleNameProblems(parts),
  ];
}

function enabledServers(parts: ConfigParts) {
  return Object.entries(parts.servers).filter(([, server]) => server.enabled !== false);
}

// A disabled server exposes nothing, so it may share a slug or a prefix with another (an
// alternative kept in the file).
function sharedNameProblems(parts: ConfigParts): PathProblem[] {
  const problems: PathProblem[] = [];
  const ownerOfSlug = new Map<string, string>();
  const ownerOfPrefix = new Map<string, string>();
  for (const [name, server] of enabledServers(parts)) {
    // The slug names the server in resource URIs, metrics, policy patterns and Redis keys, so
    // two servers may not share one even when their prefixes differ.
    const slug = serverSlug(name);
    const slugOwner = ownerOfSlug.get(slug);
    if (slugOwner !== undefined) {
      problems.push({
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
    problems.push({
      path: ['mcpServers', name, 'prefix'],
      message: `servers "${owner}" and "${name}" both expose the prefix "${prefix}"; give one a different prefix`,
    });
  }
  return problems;
}

// Renamed tools must stay unique, as far as the file can tell (tool-renames.ts); every enabled
// server takes part, since a rename may fall among the names of one without overrides.
function renameProblems(parts: ConfigParts): PathProblem[] {
  if (parts.separator === undefined) return [];
  const renaming = enabledServers(parts).map(([name, server]) => ({ server: name, prefix: server.prefix ?? serverSlug(name), tools: server.tools ?? {} }));
  return toolRenameProblems(renaming, parts.separator);
}

function credentialsProblems(parts: ConfigParts): PathProblem[] {
  // An isolation that did not parse is reported already; "must be session" would say it twice.
  const servers = Object.fromEntries(
    enabledServers(parts).flatMap(([name, { kind, isolation, credentials }]) => (isolation === undefined ? [] : [[name, { kind, isolation, credentials }]])),
  );
  // Without a parsed `sessions`, the store is unknown: the check that needs it is skipped.
  const sessions = parts.sessions ?? { store: 'memory' as const, credentialKey: undefined };
  return credentialProblems({ servers, auth: parts.hasAuth, signIn: parts.hasSignIn, browserSignIn: parts.hasBrowserSignIn, store: sessions.store, credentialKey: sessions.credentialKey });
}

function endpointsProblems(parts: ConfigParts): PathProblem[] {
  const endpoints: Record<string, EndpointPaths> = {};
  for (const [name, endpoint] of Object.entries(parts.endpoints)) {
    if (endpoint.path === undefined) continue;
    endpoints[name] = { path: endpoint.path, include: endpoint.include ?? [], exclude: endpoint.exclude ?? [] };
  }
  if (Object.keys(endpoints).length === 0) return [];
  const { path = '/mcp', ssePath = '/sse', publicUrl } = parts.server;
  // A port out of range makes no URL: the paths are still known.
  const publicPath = (publicUrl === undefined ? undefined : URL.parse(publicUrl)?.pathname) ?? path;
  return endpointProblems(endpoints, { path, ssePath, publicPath }, parts.serverNames);
}

// Without `auth` no token is read, so an endpoint's audience or scopes would protect nothing
// while the file says they do.
function endpointAuthProblems(parts: ConfigParts): PathProblem[] {
  if (parts.hasAuth) return [];
  return Object.entries(parts.endpoints).flatMap(([name, endpoint]): PathProblem[] => [
    ...(endpoint.audience === undefined ? [] : [{ path: ['endpoints', name, 'audience'], message: 'needs auth: without it no token is checked, on this endpoint or any other' }]),
    ...((endpoint.requiredScopes ?? []).length === 0
      ? []
      : [{ path: ['endpoints', name, 'requiredScopes'], message: 'needs auth: without it no token is checked, so no scope can be required' }]),
  ]);
}

// In sign-in mode the public URL's origin is the issuer of the gateway's tokens and the address
// of its sign-in pages: OAuth 2.1 wants it on HTTPS, and its cookies are Secure.
function signInProblems(parts: ConfigParts): PathProblem[] {
  if (!parts.hasSignIn || parts.server.publicUrl === undefined) return [];
  const url = URL.parse(parts.server.publicUrl);
  if (url === null || url.protocol === 'https:') return [];
  if (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return [];
  return [{ path: ['server', 'publicUrl'], message: 'must be an https URL with auth.signIn (its origin is the issuer of the tokens and the sign-in pages; http only on loopback)' }];
}

function ruleNameProblems(parts: ConfigParts): PathProblem[] {
  if (parts.separator === undefined) return [];
  const patterns: PatternSite[] = [
    ...Object.entries(parts.endpoints).flatMap(([name, endpoint]) =>
      (['include', 'exclude'] as const).flatMap((key) => (endpoint[key] ?? []).map((pattern, index) => ({ path: ['endpoints', name, key, index], pattern }))),
    ),
    ...parts.policyPatterns,
  ];
  const servers = Object.entries(parts.servers).map(([name, server]) => ({ server: name, prefix: server.prefix ?? serverSlug(name), tools: server.tools ?? {} }));
  const toolLimits = Object.entries(parts.limitedTools).flatMap(([server, tools]) => tools.map((tool) => ({ server, tool })));
  return ruleToolNameProblems(servers, parts.separator, patterns, toolLimits);
}
