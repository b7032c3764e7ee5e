// Liveness and readiness. healthz says the process serves; readyz says this replica can take
// traffic: the session store answers and the gateway is not draining. Upstreams are reported, not
// required: a replica with one upstream down still serves the others.
import type { Hono } from 'hono';
import type { SessionStore } from '../../session/store.js';
import { redactText } from '../../observe/redact-text.js';
import type { Upstream, UpstreamStatus } from '../../upstream/types.js';
import type { AppEnv } from '../app-env.js';

export interface HealthRouteOptions {
  readonly store: SessionStore;
  /** Read at each request: a reload changes the set. */
  readonly upstreams: { readonly all: readonly Upstream[] };
  /** Pinned tool definitions: which tools differ from their pins, per server (information; readiness does not depend on it). */
  readonly pinning?: { report(): unknown };
  isDraining(): boolean;
}

export function registerHealthRoutes(app: Hono<AppEnv>, { store, upstreams, pinning, isDraining }: HealthRouteOptions): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', async (c) => {
    // Unauthenticated: an upstream's last error must not carry a secret it quoted (redact-text.ts).
    const upstreamStatus = Object.fromEntries(upstreams.all.map((upstream) => [upstream.name, withRedactedError(upstream.status())]));
    const report = pinning?.report();
    const pins = report === undefined ? {} : { pinning: report };
    if (isDraining()) return c.json({ status: 'draining', upstreams: upstreamStatus, ...pins }, 503);
    try {
      await store.ping();
    } catch (error) {
      const reason = redactText(error instanceof Error ? error.message : String(error));
      return c.json({ status: 'unavailable', reason, upstreams: upstreamStatus, ...pins }, 503);
    }
    return c.json({ status: 'ready', upstreams: upstreamStatus, ...pins });
  });
}

function withRedactedError(status: UpstreamStatus): UpstreamStatus {
  return status.lastError === undefined ? status : { ...status, lastError: redactText(status.lastError) };
}
