// The operator's window (admin/): what it shows and what it may do, read at each request so that it
// follows reloads. The URLs are known once listening, before the first request the window can get.
import type { GatewayUrls, OperatorSources } from '../admin/sources.js';
import { isStdioUpstream } from '../config/schema.js';
import type { Logger } from '../observe/logger.js';
import type { ReloadSource, Reloading } from '../reload.js';
import type { ConfigInForce } from './config-in-force.js';
import type { DrainState } from './drain-state.js';
import type { GatewayCore } from './gateway-core.js';
import type { HttpSide } from './http-side.js';

export interface OperatorWindow {
  readonly sources: OperatorSources;
  /** Tells the window where the gateway listens, once it does. */
  setUrls(urls: GatewayUrls): void;
}

export interface OperatorDeps {
  readonly startedAt: Date;
  readonly live: ConfigInForce;
  readonly state: DrainState;
  readonly core: GatewayCore;
  readonly http: HttpSide;
  readonly reload: ReloadSource | undefined;
  readonly reloading: Reloading | undefined;
  readonly logger: Logger;
}

export function operatorWindow({ startedAt, live, state, core, http, reload, reloading, logger }: OperatorDeps): OperatorWindow {
  const { gateway, pinning, accessPolicy } = core;
  let urls: GatewayUrls | undefined;
  const sources: OperatorSources = {
    startedAt,
    config: () => live.current,
    ...(reload && { configFile: reload.file }),
    isDraining: () => state.draining,
    upstreams: core.upstreams,
    catalog: core.catalog,
    pinning: { report: () => pinning.report() },
    isolation: { leftOut: () => gateway.leftOutServers() },
    sessions: core.sessions.store,
    listens: gateway.listens,
    streams: http.openStreams,
    traffic: core.rates,
    urls: () => urls!,
    ...(accessPolicy && { access: accessPolicy }),
    endpointSelections: core.endpointSelections,
    connections: {
      // Per server of the config in force whose credentials are connections; counting reads the store.
      counts: () =>
        Promise.all(
          Object.entries(live.current.mcpServers).flatMap(([server, upstream]) => {
            const connection = upstream.credentials?.connection;
            if (!upstream.enabled || connection === undefined || isStdioUpstream(upstream)) return [];
            return [core.connections.connectors.of(server, upstream.url, connection).counts().then((counts) => ({ server, ...counts }))];
          }),
        ),
    },
    ...(reloading && { reload: () => reloading.reload('admin') }),
    setDraining: (on) => {
      if (state.closing || on === state.draining) return;
      state.draining = on;
      if (!on) {
        logger.warn('drain ended by an operator: this replica takes new sessions and streams again');
        return;
      }
      logger.warn('draining on an operator\'s request: /readyz answers 503, new sessions and streams are refused, open GET streams and listens end');
      http.drain.closeStandaloneStreams();
      gateway.listens.endAll();
    },
  };
  return {
    sources,
    setUrls: (next) => {
      urls = next;
    },
  };
}
