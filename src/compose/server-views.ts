// What the catalogue, the isolation of sessions and routing need to know of the configured servers,
// read from the config in force. Each is asked on every view or forwarded request, so each is
// computed once per config (and set of upstreams) and kept until a reload changes it.
import { isStdioUpstream, type Config } from '../config/schema.js';
import { serverSlug } from '../config/server-names.js';
import type { CatalogServer } from '../gateway/catalogue/catalog.js';
import { toolOverridesFrom } from '../gateway/catalogue/tool-overrides.js';
import type { Routing } from '../gateway/calls/routing.js';
import type { IsolatedServer } from '../gateway/isolation/isolated-servers.js';
import type { CredentialSources } from '../credentials/sources.js';
import type { UpstreamPool } from '../upstream/pool.js';
import type { ConfigInForce } from './config-in-force.js';

export interface ServerViews {
  /** The shared upstreams as the catalogue merges them, in config order. */
  catalogServers(): CatalogServer[];
  /** The servers with `isolation: session`. */
  isolatedServers(): readonly IsolatedServer[];
  readonly routing: Routing;
}

export function serverViews(live: ConfigInForce, upstreams: UpstreamPool, credentials: CredentialSources): ServerViews {
  // The default prefix is the name's slug: tool names must fit [A-Za-z0-9_-], names as users write them need not.
  const prefixOf = (name: string) => live.current.mcpServers[name]?.prefix ?? serverSlug(name);
  const toolOverridesOf = (name: string) => toolOverridesFrom(live.current.mcpServers[name]?.tools);

  const catalogServers = () =>
    upstreams.all.map((upstream) => {
      const server = live.current.mcpServers[upstream.name];
      return {
        upstream,
        prefix: prefixOf(upstream.name),
        seenByAllReplicas: server !== undefined && !isStdioUpstream(server),
        tools: toolOverridesOf(upstream.name),
      };
    });

  let isolated: { config?: Config; servers: IsolatedServer[] } = { servers: [] };
  const isolatedServers = (): readonly IsolatedServer[] => {
    if (isolated.config !== live.current) {
      isolated = {
        config: live.current,
        servers: Object.entries(live.current.mcpServers)
          .filter(([, server]) => server.enabled && server.isolation === 'session')
          .map(([name, server]) => ({
            name,
            prefix: prefixOf(name),
            transport: isStdioUpstream(server) ? 'stdio' : 'http',
            maxSessions: server.maxSessions,
            timeoutMs: server.timeoutMs,
            listConnectTimeoutMs: server.listConnectTimeoutMs,
            ...(server.credentials && { credentials: credentials.of(name, server) }),
          })),
      };
    }
    return isolated.servers;
  };

  let routedServers: { config?: Config; upstreams?: readonly unknown[]; servers: Routing['servers'] } = { servers: [] };
  const routing: Routing = {
    get separator() {
      return live.current.namespace.separator;
    },
    get maxNameLength() {
      return live.current.namespace.maxNameLength;
    },
    // Every enabled server in config order; a session-isolated one is ready whenever a session asks.
    // Read on every call, so it is rebuilt only when a reload changed the config or the upstreams.
    get servers() {
      if (routedServers.config !== live.current || routedServers.upstreams !== upstreams.all) {
        routedServers = {
          config: live.current,
          upstreams: upstreams.all,
          servers: Object.entries(live.current.mcpServers)
            .filter(([, server]) => server.enabled)
            .map(([name, server]) => {
              const upstream = server.isolation === 'shared' ? upstreams.get(name) : undefined;
              return {
                name,
                prefix: prefixOf(name),
                tools: toolOverridesOf(name),
                isReady: () => server.isolation === 'session' || upstream?.state === 'ready',
                unavailability: () => upstream?.unavailability(),
              };
            }),
        };
      }
      return routedServers.servers;
    },
  };

  return { catalogServers, isolatedServers, routing };
}
