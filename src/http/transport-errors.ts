// Errors the Streamable HTTP transport answers before a message reaches the gateway: an HTTP
// status with a JSON-RPC error body (id null), as the MCP SDKs' servers do, so that clients can show
// a message rather than a bare status line.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import { STORE_RETRY_AFTER_SECONDS } from '../session/store-unavailable.js';
import { JSON_HEADERS } from './responder.js';

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
  /** What the MCP SDKs use for transport-level refusals (bad headers, missing session); also "retry later" with 503. */
  BadRequest: -32000,
  SessionNotFound: -32001,
} as const;

/**
 * The answer to a request that needed the session store while it did not answer (down, restarting,
 * failing over): 503 with Retry-After, which clients and proxies know to retry, and a JSON-RPC
 * error that says so, for 2025 and 2026 requests alike. Never a 500: that reads as a bug.
 */
export const storeUnavailable = {
  status: 503,
  headers: { ...JSON_HEADERS, 'retry-after': String(STORE_RETRY_AFTER_SECONDS) } as Readonly<Record<string, string>>,
  body(id: JsonRpcId | null = null): string {
    return JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: {
        code: TransportCode.BadRequest,
        message: 'the session store is unavailable; retry',
        data: { reason: 'session-store-unavailable', retryAfterSeconds: STORE_RETRY_AFTER_SECONDS },
      },
    });
  },
} as const;

export function storeUnavailableResponse(c: Context, id: JsonRpcId | null = null): Response {
  return c.body(storeUnavailable.body(id), 503, storeUnavailable.headers);
}
