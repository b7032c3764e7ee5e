// Which era an upstream speaks, decided once per connection (basic/versioning, "Backward
// Compatibility"): the SDK probes with server/discover and falls back to the 2025 initialize when
// the answer is no modern evidence. The verdict and what the server said about itself become the
// connection's UpstreamInfo.
import type { Client, VersionNegotiationOptions } from '@modelcontextprotocol/client';
import type { UpstreamInfo } from './types.js';

/**
 * How long a stdio server has to answer the server/discover probe before it counts as a 2025
 * server that ignores requests before initialize (basic/transports/stdio: "does not respond
 * within a reasonable timeout"). The probe runs on a short-lived sibling process (stdio-probe.ts)
 * and the clock starts when the sibling is spawned, so this includes its start: Node servers, npx
 * included once its cache is warm, answer in well under a second, but the first start after a fresh
 * install (cold caches) on a loaded machine took over 5 s in CI; 10 s leaves room for that. It is
 * also what a 2025 server that ignores the probe in silence adds to each (re)connect (most answer it
 * with an error at once). A modern server that is slower than this is taken for a 2025 one, refuses the initialize, and is probed again on the
 * supervisor's next attempt. On HTTP no such guess is made: silence there is an outage, and the
 * SDK's probe has the whole connect timeout.
 */
export const STDIO_PROBE_TIMEOUT_MS = 10_000;

/**
 * The negotiation for one connection: `auto` (probe, fall back) wherever a modern server can be
 * met. The legacy HTTP+SSE transport is 2024-11-05 only, and a resumed Streamable HTTP session
 * (an Mcp-Session-Id) exists only on a 2025 server: both stay on the plain 2025 handshake.
 */
export function negotiationFor(kind: UpstreamInfo['transport'], resuming: boolean): VersionNegotiationOptions {
  if (kind === 'sse' || resuming) return { mode: 'legacy' };
  return { mode: 'auto', ...(kind === 'stdio' && { probe: { timeoutMs: STDIO_PROBE_TIMEOUT_MS } }) };
}

/** What the connected client learned: from server/discover on a modern upstream, from initialize on a 2025 one. */
export function negotiatedInfo(client: Client, kind: UpstreamInfo['transport'], sessionId: string | undefined): UpstreamInfo {
  const discover = client.getDiscoverResult();
  return {
    era: client.getProtocolEra() === 'modern' ? 'modern' : 'legacy',
    protocolVersion: client.getNegotiatedProtocolVersion(),
    serverInfo: client.getServerVersion(),
    capabilities: discover?.capabilities ?? client.getServerCapabilities() ?? {},
    instructions: discover?.instructions ?? client.getInstructions(),
    ...(sessionId !== undefined && { sessionId }),
    transport: kind,
  };
}
