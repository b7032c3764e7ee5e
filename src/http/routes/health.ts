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
  isDraining(): boolean;
}

export function registerHealthRoutes(app: Hono<AppEnv>, { store, upstreams, isDraining }: HealthRouteOptions): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', async (c) => {
    const upstreamStatus = Object.fromEntries(upstreams.all.map((upstream) => [upstream.name, upstream.status()]));
    if (isDraining()) return c.json({ status: 'draining', upstreams: upstreamStatus }, 503);
    try {
      await store.ping();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return c.json({ status: 'unavailable', reason, upstreams: upstreamStatus }, 503);
    }
    return c.json({ status: 'ready', upstreams: upstreamStatus });
  });
}
