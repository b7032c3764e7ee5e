// Liveness and readiness. healthz says the process serves; readyz says this replica can take
// traffic: it is not draining. Upstreams are reported, not required: a replica with one upstream
// down still serves the others.
//
// The session store is reported, and by default not required either: while only the store is out,
// every replica still answers what the documentation promises (503 with Retry-After to requests
// that need the store, and 2026 requests that need none served). A readiness that followed the
// store would take every replica out of a Kubernetes Service at once, and clients would get the
// ingress's error instead. `sessions.notReadyWhileDown` restores "not ready while the store is out"
// for those who prefer another replica set, or none, to a 503.
import type { Hono } from 'hono';
import { ANSWERING, outageKindOf, type OutageKind, type StoreState } from '../../session/store-outages.js';
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
  /** Whether the store serves, or what kind of outage it is in (session/store-outages.ts); absent: only the ping says. */
  readonly storeState?: () => StoreState;
  /** 503 while the store does not serve; default false (see above). */
  readonly notReadyWhileStoreDown?: boolean;
  /** Session-isolated servers that lists went without lately (information, like the upstreams). */
  readonly isolation?: { leftOut(): Readonly<Record<string, { readonly since: string; readonly reason: string }>> };
  isDraining(): boolean;
}

/**
 * How long readyz waits for the store's ping: under the kubelet's default probe timeout (1 s), so a
 * store that does not answer (frozen) never makes the probe itself time out.
 */
const PING_WAIT_MS = 500;

export function registerHealthRoutes(app: Hono<AppEnv>, options: HealthRouteOptions): void {
  const { upstreams, pinning, isolation, isDraining, notReadyWhileStoreDown = false } = options;
  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', async (c) => {
    // Unauthenticated: an upstream's last error must not carry a secret it quoted (redact-text.ts).
    const upstreamStatus = Object.fromEntries(upstreams.all.map((upstream) => [upstream.name, withRedactedError(upstream.status())]));
    const report = pinning?.report();
    const leftOut = Object.fromEntries(Object.entries(isolation?.leftOut() ?? {}).map(([name, spell]) => [name, { ...spell, reason: redactText(spell.reason) }]));
    const pins = { ...(report !== undefined && { pinning: report }), ...(Object.keys(leftOut).length > 0 && { leftOutOfLists: leftOut }) };
    if (isDraining()) return c.json({ status: 'draining', upstreams: upstreamStatus, ...pins }, 503);
    const store = await storeState(options);
    if (store.state === 'outage' && notReadyWhileStoreDown) {
      return c.json({ status: 'unavailable', reason: store.reason, store, upstreams: upstreamStatus, ...pins }, 503);
    }
    return c.json({ status: 'ready', store, upstreams: upstreamStatus, ...pins });
  });
}

/**
 * The store's state after a ping (which also tells the store's outage tracking, without traffic): a
 * ping that fails or does not answer in time is an outage even before the tracking has classified it.
 */
async function storeState({ store, storeState: tracked }: HealthRouteOptions): Promise<StoreState> {
  let timer: NodeJS.Timeout | undefined;
  const failure = await Promise.race([
    store.ping().then(
      () => undefined,
      (error: unknown) => ({ kind: outageKindOf(error instanceof Error ? (error.cause ?? error) : error), reason: error instanceof Error ? error.message : String(error) }),
    ),
    new Promise<{ kind: OutageKind; reason: string }>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'frozen', reason: `the session store did not answer a ping within ${PING_WAIT_MS} ms` }), PING_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  const state = tracked?.() ?? ANSWERING;
  if (state.state === 'outage') return { ...state, reason: redactText(state.reason) };
  if (failure === undefined) return state;
  return { state: 'outage', since: new Date().toISOString(), kind: failure.kind, reason: redactText(failure.reason) };
}

function withRedactedError(status: UpstreamStatus): UpstreamStatus {
  return status.lastError === undefined ? status : { ...status, lastError: redactText(status.lastError) };
}
