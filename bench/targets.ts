// What the load phases call. Every target answers the same echo (and ping), so the rows differ only
// in what stands between the load and the answer:
//   floor          a bare node:http JSON server of ours (floor-server.ts): the least an HTTP front costs
//   floor-2026     the same floor asked in 2026-07-28: the least a front of that revision costs
//   stdio-direct   server-everything over stdio, spoken to by this process: the upstream's own capacity
//   gw-stdio-*     the gateway, memory store, in front of server-everything over stdio
//   gw-stdio-2025-traced  the same with tracing on, exporting to a sink that decodes and discards
//                  (otlp-sink.ts); only when asked for (--target), beside gw-stdio-2025
//   gw-stdio-2025-isolation  gw-stdio-2025 with a per-user (`isolation: session`) HTTP upstream
//                  configured that accepts connections and never answers: what one hung per-user
//                  upstream costs calls that do not need it; only when asked for, beside gw-stdio-2025
//   gw-redis-*     the same with the Redis session store
//   gw-modern-2026 the gateway in front of a 2026-07-28 server over stdio (the tests' modern fixture):
//                  2026 from the client to the upstream
//   mcp-proxy      the peer (npm mcp-proxy) in front of server-everything over stdio
//   min-proxy      the reference: the least any Node proxy of that stdio server costs (min-proxy.ts)
//   min-proxy-2026 the same reference asked in 2026-07-28: what the revision costs any such proxy
//   min-proxy-busy the reference spending 10 us more CPU per forwarded call; only when asked for
//                  (--target), beside min-proxy: what a microsecond of front CPU is worth in calls/s
//   floor-raw, min-proxy-raw  the floor and the reference on a bare socket reader instead of
//                  node:http (raw-http-front.ts); only when asked for: what node:http costs a front
//   http-direct    server-everything over Streamable HTTP, directly
//   gw-http-*      the gateway in front of that HTTP server
// -2025 targets open a session (initialize, then Mcp-Session-Id); -2026 targets send stateless
// 2026-07-28 requests (the `_meta` envelope and its headers), which the gateway serves from a
// 2025 upstream as a 2026 client of a 2025 server gets it.
import type { FrontControl } from './front-control.js';
import type { StdioPeer } from './stdio-peer.js';

export type Era = '2025' | '2026';

export const TARGET_NAMES = [
  'floor',
  'floor-2026',
  'stdio-direct',
  'gw-stdio-2025',
  'gw-stdio-2026',
  'gw-stdio-2025-traced',
  'gw-stdio-2025-isolation',
  'gw-redis-2025',
  'gw-redis-2026',
  'gw-modern-2026',
  'mcp-proxy',
  'min-proxy',
  'min-proxy-2026',
  'min-proxy-busy',
  'floor-raw',
  'min-proxy-raw',
  'http-direct',
  'gw-http-2025',
  'gw-http-2026',
] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

/**
 * Targets a run has only when asked for with --target: what they measure is a feature's cost
 * against another target, not the verdicts' figures, and the full run's length and its comparison
 * with the baseline stay as they were.
 */
export const ON_REQUEST_TARGETS: readonly TargetName[] = ['gw-stdio-2025-traced', 'gw-stdio-2025-isolation', 'min-proxy-busy', 'floor-raw', 'min-proxy-raw'];

/** The processes a target needs; two targets that share one (the two eras of a gateway) share the process. */
export type StackPart = 'floor' | 'stdio-direct' | 'gw-stdio' | 'gw-stdio-traced' | 'gw-isolation' | 'gw-redis' | 'gw-modern' | 'mcp-proxy' | 'min-proxy' | 'min-proxy-busy' | 'floor-raw' | 'min-proxy-raw' | 'http-upstream' | 'gw-http';

export interface TargetSpec {
  readonly name: TargetName;
  /** As printed in the table. */
  readonly label: string;
  readonly part: StackPart;
  /** The echo tool's name as this target exposes it. */
  readonly tool: string;
  /** 2025: initialize, then calls on an Mcp-Session-Id (on stdio: on the one connection). 2026: each call stands alone. */
  readonly era: Era;
}

const GATEWAY_TOOL = 'everything__echo';
/** The CPU that min-proxy-busy spends per forwarded call on top of the reference's own. */
export const MIN_PROXY_BUSY_US = 10;

export const TARGET_SPECS: Readonly<Record<TargetName, TargetSpec>> = {
  floor: { name: 'floor', label: 'floor: bare node:http', part: 'floor', tool: 'echo', era: '2025' },
  'floor-2026': { name: 'floor-2026', label: 'floor: bare node:http 2026', part: 'floor', tool: 'echo', era: '2026' },
  'stdio-direct': { name: 'stdio-direct', label: 'everything stdio direct', part: 'stdio-direct', tool: 'echo', era: '2025' },
  'gw-stdio-2025': { name: 'gw-stdio-2025', label: 'gw>stdio mem 2025', part: 'gw-stdio', tool: GATEWAY_TOOL, era: '2025' },
  'gw-stdio-2026': { name: 'gw-stdio-2026', label: 'gw>stdio mem 2026', part: 'gw-stdio', tool: GATEWAY_TOOL, era: '2026' },
  'gw-stdio-2025-traced': { name: 'gw-stdio-2025-traced', label: 'gw>stdio mem 2025 traced', part: 'gw-stdio-traced', tool: GATEWAY_TOOL, era: '2025' },
  'gw-stdio-2025-isolation': { name: 'gw-stdio-2025-isolation', label: 'gw>stdio mem 2025, hung per-user', part: 'gw-isolation', tool: GATEWAY_TOOL, era: '2025' },
  'gw-redis-2025': { name: 'gw-redis-2025', label: 'gw>stdio redis 2025', part: 'gw-redis', tool: GATEWAY_TOOL, era: '2025' },
  'gw-redis-2026': { name: 'gw-redis-2026', label: 'gw>stdio redis 2026', part: 'gw-redis', tool: GATEWAY_TOOL, era: '2026' },
  'gw-modern-2026': { name: 'gw-modern-2026', label: 'gw>stdio 2026 upstream', part: 'gw-modern', tool: 'modern__echo', era: '2026' },
  'mcp-proxy': { name: 'mcp-proxy', label: 'mcp-proxy>stdio 2025', part: 'mcp-proxy', tool: 'echo', era: '2025' },
  // Not a product: the least any Node proxy of a stdio server costs here (min-proxy.ts).
  'min-proxy': { name: 'min-proxy', label: 'reference: min proxy>stdio', part: 'min-proxy', tool: 'echo', era: '2025' },
  'min-proxy-2026': { name: 'min-proxy-2026', label: 'reference: min proxy>stdio 2026', part: 'min-proxy', tool: 'echo', era: '2026' },
  'min-proxy-busy': { name: 'min-proxy-busy', label: `reference + ${MIN_PROXY_BUSY_US} us/call`, part: 'min-proxy-busy', tool: 'echo', era: '2025' },
  // Not products either: node:http's share of a front (raw-http-front.ts).
  'floor-raw': { name: 'floor-raw', label: 'floor: raw socket front', part: 'floor-raw', tool: 'echo', era: '2025' },
  'min-proxy-raw': { name: 'min-proxy-raw', label: 'reference on raw socket front', part: 'min-proxy-raw', tool: 'echo', era: '2025' },
  'http-direct': { name: 'http-direct', label: 'everything http direct', part: 'http-upstream', tool: 'echo', era: '2025' },
  'gw-http-2025': { name: 'gw-http-2025', label: 'gw>http 2025', part: 'gw-http', tool: GATEWAY_TOOL, era: '2025' },
  'gw-http-2026': { name: 'gw-http-2026', label: 'gw>http 2026', part: 'gw-http', tool: GATEWAY_TOOL, era: '2026' },
};

/**
 * A target whose processes run: where to send calls, and whose CPU time to read. Its name is one
 * of TARGET_NAMES for the load phases, or another (the scale rows' gateways).
 */
export interface Target extends Omit<TargetSpec, 'name' | 'part'> {
  readonly name: string;
  /** An HTTP MCP endpoint, or the stdio pipe this process holds. */
  readonly endpoint: { readonly kind: 'http'; readonly url: string } | { readonly kind: 'stdio'; readonly peer: StdioPeer };
  /** The process in front of the upstream (gateway, mcp-proxy); none when the upstream is called directly. */
  readonly frontPid?: number;
  /** The process that answers the echo (server-everything, or the floor). */
  readonly upstreamPid?: number;
  /** Memory and profiles of the front process (front-hooks.mjs), when it has one. */
  readonly control?: FrontControl;
}

export function isTargetName(value: string): value is TargetName {
  return (TARGET_NAMES as readonly string[]).includes(value);
}
