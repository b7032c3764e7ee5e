// What a 2026-07-28 request says about itself in HTTP (basic/transports/streamable-http): the
// headers derived from its body, so that intermediaries can route without parsing JSON, and the
// headers a caller may not set in their place. As the client SDK's transport derives them.
import { PROTOCOL_VERSION_META_KEY, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/client';
import { mcpNameParam } from '../protocol/mcp-name.js';
import { encodeHeaderValue } from '../protocol/mirrored-params.js';

/**
 * Headers a request's own options may not override: the derived ones would then disagree with the
 * body (which a 2026 server refuses, -32020), and credentials and content type are the transport's.
 */
export const RESERVED_REQUEST_HEADERS: ReadonlySet<string> = new Set(['authorization', 'dpop', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id']);

/** The protocol version a request's envelope claims: what makes it a 2026 request. */
export function envelopeVersionOf(message: JSONRPCMessage): string | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const version = (message.params?._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}

/** MCP-Protocol-Version, Mcp-Method and, for the methods that name something, Mcp-Name. */
export function derivedHeaders(request: JSONRPCRequest, version: string): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': request.method };
  const key = mcpNameParam(request.method);
  const named = key === undefined ? undefined : request.params?.[key];
  if (typeof named === 'string') headers['mcp-name'] = encodeHeaderValue(named);
  return headers;
}
