// Errors the Streamable HTTP transport answers before a message reaches the gateway: an HTTP
// status with a JSON-RPC error body (id null), as the MCP SDKs' servers do, so that clients can show
// a message rather than a bare status line.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export function transportError(
  c: Context,
  status: ContentfulStatusCode,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return c.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status, headers);
}

export const TransportCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  /** What the MCP SDKs use for transport-level refusals (bad headers, missing session). */
  BadRequest: -32000,
  SessionNotFound: -32001,
} as const;
