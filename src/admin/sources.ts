// What the operator's window reads and what it may do, handed over by the composition root
// (compose/operator.ts). Small getters over the running parts, read at each request: a reload
// replaces the config, the upstreams and the catalogue view under them. No HTTP here (http/admin/
// serves it).
import type { Config } from '../config/schema.js';
import type { AccessPolicy } from '../gateway/catalogue/access.js';
import type { CatalogView } from '../gateway/catalogue/catalog-view.js';
import type { ItemFilter } from '../gateway/catalogue/filter-view.js';
import type { TrafficReport } from '../observe/recent-rates.js';
import type { PinningReport } from '../pinning/enforcer.js';
import type { ReloadOutcome } from '../reload.js';
import type { Upstream } from '../upstream/types.js';

export interface ServerConnectionCounts {
  readonly server: string;
  readonly connected: number;
  readonly needsReconnect: number;
  /** More people than were read: the counts are a floor. */
  readonly partial: boolean;
}

/** Where the gateway answers, with the ports actually bound. */
export interface GatewayUrls {
  readonly mcp: string;
  /** Configured endpoints, by name. */
  readonly endpoints: Readonly<Record<string, string>>;
  /** The 2024-11-05 HTTP+SSE transport's GET URL; null when off. */
  readonly legacySse: string | null;
  readonly health: string;
  readonly readiness: string;
  readonly metrics: string;
  /** The status page; null while the admin listener is off. */
  readonly status: string | null;
}

export interface OperatorSources {
  readonly startedAt: Date;
  /** The config in force. */
  config(): Config;
  /** The file it was read from, when there is one to reload from. */
  readonly configFile?: string;
  isDraining(): boolean;
  /** Shared upstreams of this replica, in config order. */
  readonly upstreams: { readonly all: readonly Upstream[]; get(name: string): Upstream | undefined };
  readonly catalog: {
    readonly view: CatalogView;
    /** Resolves once no list refresh is under way (or after maxWaitMs). */
    settled(maxWaitMs?: number): Promise<void>;
  };
  readonly pinning: { report(): PinningReport | undefined };
  /** Session-isolated servers that lists went without lately (gateway/isolation/left-out-servers.ts). */
  readonly isolation?: { leftOut(): Readonly<Record<string, { readonly since: string; readonly reason: string }>> };
  readonly sessions: { readonly kind: 'memory' | 'redis'; count(): Promise<number> };
  /** 2026 subscriptions/listen requests held open on this replica. */
  readonly listens: { readonly size: number };
  /** SSE streams held open on this replica. */
  readonly streams: { readonly size: number };
  readonly traffic: { report(): Promise<TrafficReport> };
  urls(): GatewayUrls;
  /** Policy (built once at start: `policy` is restart-only); absent: everything is allowed. */
  readonly access?: AccessPolicy;
  /** What each configured endpoint selects, by name. */
  readonly endpointSelections: ReadonlyMap<string, ItemFilter>;
  /** Asks for a config reload; absent when the gateway has no config file to reload from. */
  readonly reload?: () => Promise<ReloadOutcome>;
  /**
   * People's connections on servers with credentials.connection: how many per server and state
   * (counted in the store, bounded and cached: connections/upstream-connector.ts counts).
   */
  readonly connections?: { counts(): Promise<readonly ServerConnectionCounts[]> };
  /** Stops taking new work as SIGTERM's first phase does (true), or takes it again (false). */
  setDraining(draining: boolean): void;
}
