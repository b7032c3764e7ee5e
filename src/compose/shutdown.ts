// Closing the gateway: drain what is in flight within the grace period, then stop every part in the
// reverse order of building it, tracing last so the spans of everything above go out.
import type { Server } from 'node:http';
import type { Config } from '../config/schema.js';
import type { AdminListener } from '../http/admin/listener.js';
import type { Logger } from '../observe/logger.js';
import type { Reloading } from '../reload.js';
import type { DrainState } from './drain-state.js';
import type { GatewayCore } from './gateway-core.js';
import type { HttpSide } from './http-side.js';
import { closeServer } from './listening.js';

export interface ShutdownParts {
  readonly config: Config;
  readonly state: DrainState;
  readonly server: Server;
  readonly core: GatewayCore;
  readonly http: HttpSide;
  readonly reloading: Reloading | undefined;
  readonly adminListener: AdminListener | undefined;
  readonly logger: Logger;
}

/** Closes once: a second call gets the first one's promise. */
export function shutdown({ config, state, server, core, http, reloading, adminListener, logger }: ShutdownParts, reason: string): Promise<void> {
  state.closing ??= (async () => {
    const { drain } = http;
    state.draining = true;
    reloading?.close();
    logger.info({ reason }, 'switchboard shutting down');
    const graceMs = config.server.shutdownTimeoutSeconds * 1000;
    const stopped = closeServer(server, graceMs);
    // GET streams never end by themselves: they close now, and their clients reconnect elsewhere
    // with Last-Event-ID. Requests in flight, POSTs answered as a stream too, get the grace period.
    drain.closeStandaloneStreams();
    // 2026 listens end gracefully: their result, then the stream closes, and clients listen elsewhere.
    core.gateway.listens.endAll();
    if (!(await drain.whenIdle(graceMs))) {
      logger.warn({ inFlight: drain.inFlight, graceMs }, 'requests still in flight at the end of the shutdown grace period: they are cut off');
    }
    http.openStreams.closeAll();
    // Keep-alive connections that served the last requests are idle now: no need to wait them out.
    if ('closeIdleConnections' in server) server.closeIdleConnections();
    await stopped;
    // The status page stays up through the drain, so an operator can watch it.
    await adminListener?.close();
    core.rates.stop();
    core.parked.stop();
    // Before the store closes: with memory sessions, their upstream sessions end here (DELETE,
    // each within END_UPSTREAM_SESSION_TIMEOUT_MS).
    await core.gateway.stop();
    core.catalog.stop();
    await core.upstreams.stop();
    await core.sessions.close();
    await http.access.close();
    await http.signIn?.close();
    await core.serverLimits.close();
    await core.tokenCache.close();
    await core.connections.close();
    await core.tasks.close();
    // Last: the spans of everything above are finished and go out in the final batch.
    await http.tracing?.shutdown();
    logger.info('switchboard stopped');
  })();
  return state.closing;
}
