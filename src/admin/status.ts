// The facts the status page and the admin API show, as plain JSON: the gateway, its endpoints, its
// sessions, each configured server (state, era, transport, restarts, last error, what it lists, its
// pins, its recent traffic). Strings that come from upstreams (errors, server info) are data here;
// whoever renders them escapes them.
import { redactText } from '../observe/redact-text.js';
import { withTimeout } from '../observe/with-timeout.js';
import { hostname } from 'node:os';
import { isStdioUpstream, type UpstreamConfig } from '../config/schema.js';
import { serverSlug } from '../config/server-names.js';
import type { CatalogView } from '../gateway/catalogue/catalog-view.js';
import type { ServerTraffic, TrafficReport } from '../observe/recent-rates.js';
import type { PinningReport, ServerPinReport } from '../pinning/enforcer.js';
import type { Upstream } from '../upstream/types.js';
import { GATEWAY_VERSION } from '../version.js';
import type { GatewayUrls, OperatorSources, ServerConnectionCounts } from './sources.js';

export interface UpstreamCounts {
  readonly tools: number;
  readonly prompts: number;
  readonly resources: number;
  readonly resourceTemplates: number;
}

export interface UpstreamEntry {
  readonly name: string;
  readonly kind: 'stdio' | 'http';
  readonly isolation: 'shared' | 'session';
  readonly enabled: boolean;
  /**
   * ready | connecting | failed | stopped for a shared connection; `per-session` for a server with
   * isolation: session (each session has its own connection); `disabled` for enabled: false.
   */
  readonly state: string;
  readonly since: string | null;
  readonly era: 'modern' | 'legacy' | null;
  readonly protocolVersion: string | null;
  /** stdio | streamable-http | sse, once connected. */
  readonly transport: string | null;
  readonly serverInfo: { readonly name: string; readonly version: string } | null;
  readonly restarts: number;
  readonly lastError: string | null;
  /** What clients are offered now (after tool overrides and pinning); null for servers with no shared list. */
  readonly counts: UpstreamCounts | null;
  /** With pinning on: this server's comparison with the lock file; null otherwise. */
  readonly pinning: ServerPinReport | null;
  /** Its requests (metrics label `server`, the slug); null before its first request. */
  readonly traffic: ServerTraffic | null;
}

export interface AdminStatus {
  readonly gateway: {
    readonly version: string;
    readonly host: string;
    readonly pid: number;
    readonly startedAt: string;
    readonly uptimeSeconds: number;
    /** ready | draining */
    readonly status: 'ready' | 'draining';
    readonly store: 'memory' | 'redis';
    readonly auth: boolean;
    readonly policy: boolean;
  };
  readonly endpoints: GatewayUrls;
  readonly sessions: SessionsStatus;
  readonly upstreams: readonly UpstreamEntry[];
  readonly traffic: {
    readonly intervalSeconds: number;
    readonly windowSeconds: number;
    /** Requests the gateway answered alone (merged lists, ping, unknown tools): metrics label server="". */
    readonly gateway: ServerTraffic | null;
  };
  readonly pinning: Omit<PinningReport, 'servers'> | null;
  /**
   * People's connections per server with credentials.connection, by state (never a token, nor who);
   * empty without such servers, null when the store did not answer in time.
   */
  readonly connections: readonly ServerConnectionCounts[] | null;
}

export interface SessionsStatus {
  readonly store: 'memory' | 'redis';
  /** Live sessions in the store: with Redis, all replicas'; null when the store did not answer. */
  readonly active: number | null;
  readonly listens: number;
  readonly sseStreams: number;
}

const COUNT_TIMEOUT_MS = 1_000;

export async function sessionsStatus(sources: OperatorSources): Promise<SessionsStatus> {
  let active: number | null;
  try {
    active = await withTimeout(sources.sessions.count(), COUNT_TIMEOUT_MS);
  } catch {
    active = null;
  }
  return { store: sources.sessions.kind, active, listens: sources.listens.size, sseStreams: sources.streams.size };
}

export async function upstreamEntries(sources: OperatorSources, traffic?: TrafficReport): Promise<UpstreamEntry[]> {
  const report = traffic ?? (await sources.traffic.report());
  const pins = sources.pinning.report();
  const counts = countsByServer(sources.catalog.view);
  const leftOut = sources.isolation?.leftOut() ?? {};
  return Object.entries(sources.config().mcpServers).map(([name, server]) =>
    upstreamEntry(name, server, sources.upstreams.get(name), counts.get(name), pins, report, Object.hasOwn(leftOut, name) ? leftOut[name] : undefined),
  );
}

export async function adminStatus(sources: OperatorSources): Promise<AdminStatus> {
  const [traffic, sessions, connections] = await Promise.all([sources.traffic.report(), sessionsStatus(sources), connectionCounts(sources)]);
  const config = sources.config();
  const pins = sources.pinning.report();
  const { servers: _perServer, ...pinning } = pins ?? { servers: {} };
  return {
    gateway: {
      version: GATEWAY_VERSION,
      host: hostname(),
      pid: process.pid,
      startedAt: sources.startedAt.toISOString(),
      uptimeSeconds: Math.floor((Date.now() - sources.startedAt.getTime()) / 1000),
      status: sources.isDraining() ? 'draining' : 'ready',
      store: sources.sessions.kind,
      auth: config.auth !== undefined,
      policy: config.policy !== undefined,
    },
    endpoints: sources.urls(),
    sessions,
    upstreams: await upstreamEntries(sources, traffic),
    traffic: {
      intervalSeconds: traffic.intervalSeconds,
      windowSeconds: traffic.windowSeconds,
      gateway: traffic.servers[''] ?? null,
    },
    pinning: pins ? (pinning as Omit<PinningReport, 'servers'>) : null,
    connections,
  };
}

async function connectionCounts(sources: OperatorSources): Promise<readonly ServerConnectionCounts[] | null> {
  if (sources.connections === undefined) return [];
  try {
    return await withTimeout(sources.connections.counts(), COUNT_TIMEOUT_MS);
  } catch {
    return null;
  }
}

function upstreamEntry(
  name: string,
  server: UpstreamConfig,
  upstream: Upstream | undefined,
  counts: UpstreamCounts | undefined,
  pins: PinningReport | undefined,
  traffic: TrafficReport,
  /** A per-session server that lists go without: since when, and why. */
  leftOut?: { readonly since: string; readonly reason: string },
): UpstreamEntry {
  const status = upstream?.status();
  const info = upstream?.info;
  const shared = server.enabled && server.isolation === 'shared';
  return {
    name,
    kind: isStdioUpstream(server) ? 'stdio' : 'http',
    isolation: server.isolation,
    enabled: server.enabled,
    state: !server.enabled ? 'disabled' : server.isolation === 'session' ? 'per-session' : (status?.state ?? 'stopped'),
    since: status?.since ?? leftOut?.since ?? null,
    era: info?.era ?? null,
    protocolVersion: status?.protocolVersion ?? info?.protocolVersion ?? null,
    transport: status?.transport ?? info?.transport ?? null,
    serverInfo: info?.serverInfo ? { name: String(info.serverInfo.name), version: String(info.serverInfo.version) } : null,
    restarts: status?.restarts ?? 0,
    // The page, the API and the restart action's audit line all read it here (redact-text.ts).
    lastError: redactedOrNull(status?.lastError ?? leftOut?.reason),
    counts: shared ? (counts ?? { tools: 0, prompts: 0, resources: 0, resourceTemplates: 0 }) : null,
    pinning: pins?.servers[name] ?? null,
    traffic: server.enabled ? (traffic.servers[serverSlug(name)] ?? null) : null,
  };
}

function countsByServer(view: CatalogView): Map<string, UpstreamCounts> {
  const counts = new Map<string, { tools: number; prompts: number; resources: number; resourceTemplates: number }>();
  const of = (server: string) => {
    let entry = counts.get(server);
    if (!entry) {
      entry = { tools: 0, prompts: 0, resources: 0, resourceTemplates: 0 };
      counts.set(server, entry);
    }
    return entry;
  };
  for (const { server } of view.tools) of(server).tools += 1;
  for (const { server } of view.prompts) of(server).prompts += 1;
  for (const { server } of view.resources) of(server).resources += 1;
  for (const { server } of view.resourceTemplates) of(server).resourceTemplates += 1;
  return counts;
}

function redactedOrNull(text: string | undefined): string | null {
  return text === undefined ? null : redactText(text);
}
