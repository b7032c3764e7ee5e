// The one line `switchboard validate` prints for a good config, so that "ok" also shows what the
// gateway would actually front (a server disabled by mistake is visible here).
import { isStdioUpstream, type Config } from '../config/schema.js';
import { serverSlug } from '../config/server-names.js';

export function summariseConfig(config: Config): string {
  const servers = Object.entries(config.mcpServers).map(([name, server]) => {
    const kind = isStdioUpstream(server) ? 'stdio' : 'http';
    return server.enabled ? `${shown(name)} [${kind}]` : `${shown(name)} [${kind}, disabled]`;
  });
  const serverList =
    servers.length === 0 ? 'no servers' : `${servers.length} server${servers.length === 1 ? '' : 's'}: ${servers.join(', ')}`;
  const endpoints = Object.entries(config.endpoints).map(([name, endpoint]) => `${name} ${endpoint.path}${endpoint.discovery === 'search' ? ' [search]' : ''}`);
  const endpointList = endpoints.length === 0 ? '' : `; endpoints: ${endpoints.join(', ')}`;
  return `${serverList}; listens on ${config.server.host}:${config.server.port}, path ${config.server.path}${endpointList}; sessions: ${config.sessions.store}; auth: ${authSummary(config)}${pinning(config)}`;
}

function pinning({ pinning: { mode, lockFile } }: Config): string {
  return mode === 'off' ? '' : `; pinning: ${mode} (${lockFile})`;
}

/**
 * A name that is its own slug as it is; any other quoted (it may hold spaces or commas) and followed
 * by its slug, which is what tool prefixes, URIs, metrics and policy patterns use.
 */
function shown(name: string): string {
  const slug = serverSlug(name);
  return slug === name ? name : `${JSON.stringify(name)} (${slug})`;
}

/** Which of the two auth modes, and whose tokens. */
function authSummary(config: Config): string {
  if (config.auth === undefined) return 'off';
  if (config.auth.signIn) return `sign-in at ${config.auth.signIn.provider.issuer}`;
  return `tokens from ${config.auth.issuer ?? 'the identity provider'}`;
}
