// The server/discover probe that tells a 2026-07-28 ("modern") server from a 2025 one, shared by
// the stdio probe (on a sibling process) and the HTTP probe (one plain POST): the same request, and
// the same reading of its answer, so both transports reach the same verdict for the same server.
import type { JSONRPCMessage, PriorDiscovery } from '@modelcontextprotocol/client';
import { ERRORS } from '../protocol/error-catalogue.js';
import { GATEWAY_IMPLEMENTATION } from '../version.js';

export const MODERN_VERSION = '2026-07-28';
export const PROBE_ID = 'switchboard-probe';
export function discoverRequest(capabilities: Readonly<Record<string, unknown>>): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id: PROBE_ID,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientCapabilities': capabilities,
        'io.modelcontextprotocol/clientInfo': GATEWAY_IMPLEMENTATION,
      },
    },
  } as JSONRPCMessage;
}

export const LEGACY: PriorDiscovery = { kind: 'legacy' };

/**
 * The verdict an answer to the probe gives: a DiscoverResult that offers 2026-07-28 is a modern
 * server, any other result or error a 2025 one. `undefined` only for the one answer the SDK
 * negotiates further (an "unsupported version" error naming a modern version): whoever probed
 * then leaves the negotiation to the SDK.
 */
export function verdictOf(message: JSONRPCMessage): PriorDiscovery | undefined {
  if ('result' in message) {
    const result = message.result as { supportedVersions?: unknown };
    const modern = Array.isArray(result.supportedVersions) && result.supportedVersions.includes(MODERN_VERSION);
    return modern ? { kind: 'modern', discover: result as Extract<PriorDiscovery, { kind: 'modern' }>['discover'] } : LEGACY;
  }
  if ('error' in message) return offersModern(message.error) ? undefined : LEGACY;
  return LEGACY;
}

function offersModern(error: { code: number; data?: unknown }): boolean {
  if (error.code !== ERRORS.UnsupportedProtocolVersion.code) return false;
  const supported = (error.data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) && supported.some((version) => typeof version === 'string' && version >= MODERN_VERSION);
}
