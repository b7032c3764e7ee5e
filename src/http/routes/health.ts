// Liveness and readiness. healthz says the process serves; readyz says this replica can take
// traffic: the session store answers and the gateway is not draining. Upstreams are reported, not
// required: a replica with one upstream down still serves the others.
import type { Hono } from 'hono';
import type { SessionStore } from '../../session/store.js';
import type { Upstream } from '../../upstream/types.js';
import type { AppEnv } from '../app-env.js';

export interface HealthRouteOptions {
  readonly store: SessionStore;
  /** Read at each request: a reload changes the set. */
  readonly upstreams: { readonly all: readonly Upstream[] };
  /** Pinned tool definitions: which tools differ from their pins, per server (information; readiness does not depend on it). */
  readonly pinning?: { report(): unknown };
  /** Session-isolated servers that lists went without lately (information, like the upstreams). */
  readonly isolation?: { leftOut(): Readonly<Record<string, unknown>> };
  isDraining(): boolean;
}

export function registerHealthRoutes(app: Hono<AppEnv>, { store, upstreams, pinning, isolation, isDraining }: HealthRouteOptions): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', async (c) => {
    const upstreamStatus = Object.fromEntries(upstreams.all.map((upstream) => [upstream.name, upstream.status()]));
    const report = pinning?.report();
    const leftOut = isolation?.leftOut() ?? {};
    const pins = { ...(report !== undefined && { pinning: report }), ...(Object.keys(leftOut).length > 0 && { leftOutOfLists: leftOut }) };
    if (isDraining()) return c.json({ status: 'draining', upstreams: upstreamStatus, ...pins }, 503);
    try {
      await store.ping();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return c.json({ status: 'unavailable', reason, upstreams: upstreamStatus, ...pins }, 503);
    }
    return c.json({ status: 'ready', upstreams: upstreamStatus, ...pins });
  });
}
