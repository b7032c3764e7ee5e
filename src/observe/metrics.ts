// Prometheus metrics (contract, "Metrics"), in a registry of the gateway's own: two gateways in one
// process (tests, an embedding application) never share or double-register series, and nothing
// else in the process writes into ours.
//
// Every label has a bounded set of values, whatever clients send: `method` is one of the MCP
// methods listed below or "other"; `server` is a configured upstream's slug (config/server-names.ts:
// `github` for a server named "GitHub", the name itself for names like "everything"), or "" for
// requests the gateway answers itself (merged lists, ping, unknown tools and methods); `route` is
// one of the gateway's routes or "other"; `mcp_endpoint` (only when config `endpoints` is set) is a
// configured endpoint's name or "default". Never arguments, tokens, session ids or URIs.
// docs/reference/metrics.md is generated from this registry (`npm run docs`); what a new label means
// goes in metric-docs.ts.
import { withTimeout } from './with-timeout.js';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { DEFAULT_ENDPOINT } from '../config/endpoints.js';
import { serverSlug } from '../config/server-names.js';
import { HotCounter, HotHistogram } from './hot-metrics.js';
import { LIST_CHANGE_DEFERRAL_OUTCOMES, type GatewayObserver, type NotificationEvent, type RequestEvent } from '../gateway/observer.js';
import { LIMIT_REFUSAL_REASONS } from '../gateway/calls/server-limits.js';
import type { Upstream, UpstreamState } from '../upstream/types.js';
import type { Logger } from './logger.js';

/** Client requests that get their own `method` label value; anything else counts as "other". */
export const RPC_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
  'server/discover',
  'subscriptions/listen',
]);

/** Notifications the gateway forwards to sessions that get their own `method` label value. */
export const NOTIFICATION_METHODS: ReadonlySet<string> = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/message',
  'notifications/progress',
  'notifications/cancelled',
  'notifications/tasks/status',
  'notifications/elicitation/complete',
]);

/** What can happen to a person's connection: the `outcome` of switchboard_connection_events_total. */
export const CONNECTION_OUTCOMES = ['connected', 'refreshed', 'refresh-failed', 'needs-reconnect', 'disconnected'] as const;

export const OTHER = 'other';
/** The `server` label of requests no upstream took part in. */
export const GATEWAY_SERVER_LABEL = '';

/** From 5 ms (a cached list) to 5 minutes (a long tool call). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** The duration histogram's upper bounds in seconds, +Inf last: the order of RpcTotals.buckets. */
export const RPC_DURATION_BOUNDS: readonly number[] = [...DURATION_BUCKETS, Number.POSITIVE_INFINITY];

/** One `server` label value's requests so far, summed over methods, eras and endpoints. */
export interface RpcTotals {
  readonly requests: number;
  readonly errors: number;
  readonly denied: number;
  /** Cumulative counts of the duration histogram, in the order of RPC_DURATION_BOUNDS. */
  readonly buckets: readonly number[];
}

/** The part of UpstreamPool that metrics follow. */
export interface UpstreamSet {
  readonly all: readonly Upstream[];
  onChange(listener: (changes: { readonly added: readonly Upstream[]; readonly removed: readonly Upstream[] }) => void): unknown;
}

/** Per server, what pinned tool definitions found (pinning/enforcer.ts), read at scrape time. */
export interface PinCountsSource {
  counts(): readonly { server: string; changed: number; unpinned: number; missing: number; withheld: number }[];
}

export interface MetricsOptions {
  /** Where the sessions gauge comes from (SessionStore.count()), read at scrape time. */
  readonly sessions: { count(): Promise<number> };
  /** A count younger than this is reused: scrapes from several Prometheus servers cost one read. */
  readonly sessionsCacheMs?: number;
  /** A store slower than this answers the scrape with the last count (and session_store_up 0). */
  readonly sessionsTimeoutMs?: number;
  /** Whether the store is in an outage (session/store-outages.ts): then session_store_up is 0 whatever the count did. */
  readonly storeState?: () => { readonly state: string };
  readonly logger?: Pick<Logger, 'warn' | 'info'>;
  /**
   * Which names are servers (the configured ones), whose slug is then the `server` label value.
   * By default the upstreams followed with watchUpstream; pass the config's names when some
   * servers have no shared upstream to follow (isolation: session).
   */
  readonly isServer?: (name: string) => boolean;
  /**
   * Whether endpoints are configured (config `endpoints`): then request series carry the
   * `mcp_endpoint` label. Without them every request is the default endpoint's, and the label is
   * left out, so a gateway without endpoints pays nothing for them per request.
   */
  readonly endpoints?: boolean;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  /** Feeds the request and notification metrics; add it to GatewayOptions.observers. */
  readonly observer: GatewayObserver;

  // The series every request updates are hot-metrics.ts's; the rest are prom-client's.
  readonly #rpcRequests: HotCounter<'method' | 'server' | 'outcome' | 'era' | 'mcp_endpoint'>;
  readonly #rpcDuration: HotHistogram<'method' | 'server'>;
  readonly #notifications: Counter<'method'>;
  readonly #listChangeDeferrals: Counter<'outcome'>;
  readonly #upstreamUp: Gauge<'server'>;
  readonly #upstreamRestarts: Counter<'server'>;
  readonly #upstreamConnectFailures: Counter<'server'>;
  readonly #httpRequests: HotCounter<'route' | 'method' | 'status'>;
  readonly #limitRefusals: Counter<'server' | 'kind'>;
  readonly #authChallenges: Counter<'server' | 'status'>;
  readonly #connectionEvents: Counter<'server' | 'outcome'>;
  readonly #sessionsActive: Gauge;
  readonly #sessionStoreUp: Gauge;
  readonly #servers = new Set<string>();
  #listens: { readonly size: number } | undefined;
  #streams: { readonly size: number } | undefined;
  #pins: PinCountsSource | undefined;
  readonly #isServer: (name: string) => boolean;
  readonly #endpointLabel: boolean;

  constructor({ sessions, sessionsCacheMs = 1_000, sessionsTimeoutMs = 1_000, storeState, logger, isServer, endpoints = false }: MetricsOptions) {
    this.#endpointLabel = endpoints;
    this.#isServer = isServer ?? ((name) => this.#servers.has(name));
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });

    this.#rpcRequests = new HotCounter({
      name: 'switchboard_rpc_requests_total',
      help: `JSON-RPC requests from clients, by MCP method, upstream server ("" when the gateway answered alone), outcome (ok | error | denied) and protocol era (2025: a session; 2026: stateless)${endpoints ? ', and MCP endpoint (a configured endpoint\'s name, or "default" for server.path)' : ''}`,
      // Not "endpoint": the Prometheus Operator puts a target label of that name on every series.
      labelNames: endpoints ? ['method', 'server', 'outcome', 'era', 'mcp_endpoint'] : ['method', 'server', 'outcome', 'era'],
      registers,
    });
    this.#rpcDuration = new HotHistogram({
      name: 'switchboard_rpc_duration_seconds',
      help: 'Time from receiving a JSON-RPC request to having its response, by MCP method and upstream server',
      labelNames: ['method', 'server'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.#notifications = new Counter({
      name: 'switchboard_notifications_forwarded_total',
      help: 'Notifications delivered to client sessions, counted once per session, by method',
      labelNames: ['method'],
      registers,
    });
    this.#listChangeDeferrals = new Counter({
      name: 'switchboard_list_change_deferrals_total',
      help: 'List changes the session store did not take when they happened, kept and announced once it answered, by outcome; and list changes never announced (failed)',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of LIST_CHANGE_DEFERRAL_OUTCOMES) this.#listChangeDeferrals.inc({ outcome }, 0);
    this.#upstreamUp = new Gauge({
      name: 'switchboard_upstream_up',
      help: '1 while the upstream server is connected and answering, else 0',
      labelNames: ['server'],
      registers,
    });
    this.#upstreamRestarts = new Counter({
      name: 'switchboard_upstream_restarts_total',
      help: 'Times a connected upstream was lost (process exit, failed ping, open circuit) and is being restarted',
      labelNames: ['server'],
      registers,
    });
    this.#upstreamConnectFailures = new Counter({
      name: 'switchboard_upstream_connect_failures_total',
      help: 'Connection attempts to an upstream that failed (each is retried with backoff)',
      labelNames: ['server'],
      registers,
    });
    this.#authChallenges = new Counter({
      name: 'switchboard_upstream_auth_challenges_total',
      help: 'Requests an upstream refused with 401 (or 403 with a challenge): the credentials the gateway presented, its own or a caller\'s, were not accepted',
      labelNames: ['server', 'status'],
      registers,
    });
    this.#connectionEvents = new Counter({
      name: 'switchboard_connection_events_total',
      help: 'What happened to people\'s connections on servers with credentials.connection, by upstream server and outcome (connected | refreshed | refresh-failed | needs-reconnect | disconnected)',
      labelNames: ['server', 'outcome'],
      registers,
    });
    this.#httpRequests = new HotCounter({
      name: 'switchboard_http_requests_total',
      help: 'HTTP requests answered, by route, HTTP method and status code',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.#limitRefusals = new Counter({
      name: 'switchboard_limit_refusals_total',
      help: 'Requests refused by a limit of limits.servers, by upstream server and kind (rate-limit | tool-rate-limit | queue-full | queue-timeout)',
      labelNames: ['server', 'kind'],
      registers,
    });

    let storeAnswered = true;
    const refreshSessions = cachedRefresh(sessionsCacheMs, async () => {
      try {
        this.#sessionsActive.set(await withTimeout(sessions.count(), sessionsTimeoutMs));
        this.#sessionStoreUp.set(1);
        if (!storeAnswered) logger?.info('metrics: the session store answers the session count again');
        storeAnswered = true;
      } catch (error) {
        // The last count stays: a scrape must not fail, nor report 0 sessions, because Redis hiccuped.
        this.#sessionStoreUp.set(0);
        if (storeAnswered) logger?.warn({ err: error instanceof Error ? error.message : String(error) }, 'metrics: could not count sessions');
        storeAnswered = false;
      }
    });
    this.#sessionsActive = new Gauge({
      name: 'switchboard_sessions_active',
      help: 'Live client sessions in the session store (all replicas, when the store is shared)',
      registers,
      collect: () => refreshSessions(),
    });
    this.#sessionStoreUp = new Gauge({
      name: 'switchboard_session_store_up',
      help: '1 when the session store serves (it answered the last count and is in no outage: down, frozen, read-only, out of memory), else 0',
      registers,
      collect: async () => {
        await refreshSessions();
        // A read-only or out-of-memory Redis still answers the count, but refuses every session it is asked for.
        if (storeState?.().state === 'outage') this.#sessionStoreUp.set(0);
      },
    });
    const streamsGauge: Gauge = new Gauge({
      name: 'switchboard_sse_streams_open',
      help: 'Server-Sent Events streams this replica holds open (GET streams and POST answers that stream)',
      registers,
      collect: () => {
        streamsGauge.set(this.#streams?.size ?? 0);
      },
    });

    const listensGauge: Gauge = new Gauge({
      name: 'switchboard_listens_open',
      help: '2026-07-28 subscriptions/listen requests this replica holds open',
      registers,
      collect: () => {
        listensGauge.set(this.#listens?.size ?? 0);
      },
    });

    // Gauges of the state now, not counters of detections: a tool is withheld while its upstream's
    // definition differs, and not once the pin is updated. No series while pinning is off.
    const pinMismatches: Gauge<'server' | 'kind'> = new Gauge({
      name: 'switchboard_pin_mismatches',
      help: 'Tools whose live definition does not match the lock file (pinning), by kind: changed (differs from its pin), unpinned (no pin; counted when pinning.unpinnedTools is withhold), missing (pinned, no longer listed)',
      labelNames: ['server', 'kind'],
      registers,
      collect: () => {
        pinMismatches.reset();
        for (const counts of this.#pins?.counts() ?? []) {
          const server = serverSlug(counts.server);
          for (const kind of ['changed', 'unpinned', 'missing'] as const) pinMismatches.set({ server, kind }, counts[kind]);
        }
      },
    });
    const toolsWithheld: Gauge<'server'> = new Gauge({
      name: 'switchboard_tools_withheld',
      help: 'Tools withheld from clients because their live definition does not match the lock file (pinning: enforce)',
      labelNames: ['server'],
      registers,
      collect: () => {
        toolsWithheld.reset();
        for (const counts of this.#pins?.counts() ?? []) toolsWithheld.set({ server: serverSlug(counts.server) }, counts.withheld);
      },
    });

    this.observer = {
      onRequest: (event) => this.#onRequest(event),
      onNotificationForwarded: (event) => this.#onNotification(event),
      onListChangeDeferral: ({ outcome }) => this.#listChangeDeferrals.inc({ outcome }),
    };
  }

  /**
   * Follows one upstream: `switchboard_upstream_up` tracks its state, and losses and failed
   * connects are counted, labelled with its slug. Its name becomes a known server for the request
   * metrics. Returns a function that stops following it and removes its series (for a server
   * removed by a reload).
   */
  watchUpstream(upstream: Upstream): () => void {
    this.#servers.add(upstream.name);
    const server = serverSlug(upstream.name);
    this.#upstreamRestarts.inc({ server }, 0);
    this.#upstreamConnectFailures.inc({ server }, 0);
    let previous: UpstreamState = upstream.state;
    this.#upstreamUp.set({ server }, previous === 'ready' ? 1 : 0);
    const unsubscribe = upstream.onStateChange((state) => {
      this.#upstreamUp.set({ server }, state === 'ready' ? 1 : 0);
      if (previous === 'ready' && (state === 'failed' || state === 'connecting')) this.#upstreamRestarts.inc({ server });
      if (previous === 'connecting' && state === 'failed') this.#upstreamConnectFailures.inc({ server });
      previous = state;
    });
    return () => {
      unsubscribe();
      this.#servers.delete(upstream.name);
      this.#upstreamUp.remove({ server });
      this.#upstreamRestarts.remove({ server });
      this.#upstreamConnectFailures.remove({ server });
    };
  }

  /** Follows every upstream of the pool, and those a reload adds or replaces later. */
  watchPool(pool: UpstreamSet): void {
    const unwatch = new Map<Upstream, () => void>();
    for (const upstream of pool.all) unwatch.set(upstream, this.watchUpstream(upstream));
    pool.onChange(({ added, removed }) => {
      // Removed first: a replaced server leaves and comes back under the same name.
      for (const upstream of removed) {
        unwatch.get(upstream)?.();
        unwatch.delete(upstream);
      }
      for (const upstream of added) unwatch.set(upstream, this.watchUpstream(upstream));
    });
  }

  /** Where `switchboard_listens_open` reads its value at scrape time (the gateway's Listens). */
  countListens(listens: { readonly size: number }): void {
    this.#listens = listens;
  }

  /** Where `switchboard_pin_mismatches` and `switchboard_tools_withheld` read their values at scrape time. */
  countPins(source: PinCountsSource): void {
    this.#pins = source;
  }

  /** Where `switchboard_sse_streams_open` reads its value at scrape time (OpenStreams). */
  countStreams(streams: { readonly size: number }): void {
    this.#streams = streams;
  }

  /** An upstream refused the credentials it was given (upstream/challenges.ts). */
  countAuthChallenge(server: string, status: number): void {
    if (this.#isServer(server)) this.#authChallenges.inc({ server: serverSlug(server), status: String(status) });
  }

  /** A person's connection to `server` changed (connections/upstream-connector.ts); `outcome` comes from a fixed set. */
  countConnectionEvent(server: string, outcome: (typeof CONNECTION_OUTCOMES)[number]): void {
    if (this.#isServer(server)) this.#connectionEvents.inc({ server: serverSlug(server), outcome });
  }

  /** One answered HTTP request; `route` must come from a fixed set (see observe-requests.ts). */
  countHttpRequest(route: string, method: string, status: number): void {
    this.#httpRequests.inc(route, method, statusLabel(status));
  }

  /**
   * The request counters and duration histogram as they are now, by `server` label value: what the
   * status page's recent rates are computed from (observe/recent-rates.ts). Read on a timer, never
   * on the request path.
   */
  rpcTotals(): Promise<Map<string, RpcTotals>> {
    const totals = new Map<string, { requests: number; errors: number; denied: number; buckets: number[] }>();
    const of = (server: string) => {
      let entry = totals.get(server);
      if (!entry) {
        entry = { requests: 0, errors: 0, denied: 0, buckets: RPC_DURATION_BOUNDS.map(() => 0) };
        totals.set(server, entry);
      }
      return entry;
    };
    for (const { labels, value } of this.#rpcRequests.series) {
      const entry = of(labels.server);
      entry.requests += value;
      if (labels.outcome === 'error') entry.errors += value;
      else if (labels.outcome === 'denied') entry.denied += value;
    }
    for (const { labels, counts } of this.#rpcDuration.series) {
      const { buckets } = of(labels.server);
      let cumulative = 0;
      counts.forEach((count, index) => {
        cumulative += count;
        buckets[index]! += cumulative;
      });
    }
    return Promise.resolve(totals);
  }

  /** The text exposition format, with its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  #onRequest(event: RequestEvent): void {
    const method = RPC_METHODS.has(event.method) ? event.method : OTHER;
    const server = event.server !== undefined && this.#isServer(event.server) ? serverSlug(event.server) : GATEWAY_SERVER_LABEL;
    const era = event.era === 'modern' ? '2026' : '2025';
    if (this.#endpointLabel) this.#rpcRequests.inc(method, server, event.outcome, era, event.endpoint ?? DEFAULT_ENDPOINT);
    else this.#rpcRequests.inc(method, server, event.outcome, era);
    this.#rpcDuration.observe(event.durationMs / 1000, method, server);
    // `kind` comes from a fixed set; a refusal always names a configured server.
    if (event.reason !== undefined && LIMIT_REFUSAL_REASONS.has(event.reason) && server !== GATEWAY_SERVER_LABEL) {
      this.#limitRefusals.inc({ server, kind: event.reason });
    }
  }

  #onNotification(event: NotificationEvent): void {
    const method = NOTIFICATION_METHODS.has(event.method) ? event.method : OTHER;
    this.#notifications.inc({ method }, event.sessions);
  }
}

/** "200" for 200: a status's label is made once, not per request. */
const statusLabels = new Map<number, string>();
function statusLabel(status: number): string {
  let label = statusLabels.get(status);
  if (label === undefined) {
    label = String(status);
    statusLabels.set(status, label);
  }
  return label;
}

/**
 * Runs `refresh` at most once per `maxAgeMs`; callers in between share the running or last
 * refresh (the sessions gauge and the store gauge collect from one count).
 */
function cachedRefresh(maxAgeMs: number, refresh: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let doneAt = Number.NEGATIVE_INFINITY;
  return () => {
    if (running) return running;
    if (performance.now() - doneAt < maxAgeMs) return Promise.resolve();
    running = refresh().finally(() => {
      doneAt = performance.now();
      running = undefined;
    });
    return running;
  };
}
