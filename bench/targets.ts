// What the bench calls: the gateway in each protocol era, and the upstream directly. server-everything
// speaks only the 2025 revisions, so "direct" is a 2025 session; the 2026 row is the gateway's
// stateless path in front of that same upstream, which is what a 2026 client of a 2025 server gets.

export type Era = '2025' | '2026';

export const TARGET_NAMES = ['gateway-2025', 'gateway-2026', 'direct'] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

export interface Target {
  readonly name: TargetName;
  /** As printed in the table. */
  readonly label: string;
  readonly url: string;
  /** The echo tool's name as this target exposes it. */
  readonly tool: string;
  /** 2025: initialize, then calls on an Mcp-Session-Id. 2026: each call stands alone, described by its `_meta` envelope. */
  readonly era: Era;
  /** Whether the gateway serves it, so its CPU time belongs to the phase. */
  readonly viaGateway: boolean;
}

export function targetsFor(gatewayUrl: string, upstreamUrl: string): Record<TargetName, Target> {
  return {
    'gateway-2025': { name: 'gateway-2025', label: 'gateway 2025 session', url: gatewayUrl, tool: 'everything__echo', era: '2025', viaGateway: true },
    'gateway-2026': { name: 'gateway-2026', label: 'gateway 2026 stateless', url: gatewayUrl, tool: 'everything__echo', era: '2026', viaGateway: true },
    direct: { name: 'direct', label: 'direct 2025 session', url: upstreamUrl, tool: 'echo', era: '2025', viaGateway: false },
  };
}

export function isTargetName(value: string): value is TargetName {
  return (TARGET_NAMES as readonly string[]).includes(value);
}
