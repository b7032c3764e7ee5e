// Errors the Streamable HTTP transport answers before a message reaches the gateway: an HTTP
// status with a JSON-RPC error body (id null), as the MCP SDKs' servers do, so that clients can show
// a message rather than a bare status line.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import { catalogueError, ERRORS, type CatalogueError } from '../protocol/error-catalogue.js';
import { STORE_RETRY_AFTER_SECONDS } from '../session/store-unavailable.js';
import { JSON_HEADERS } from './responder.js';

/** `refusal`: a catalogue refusal (catalogueRefusal()), answered with its status. */
export function transportError(c: Context, { status, code, message }: CatalogueError & { readonly status: number }, headers: Record<string, string> = {}): Response {
  return c.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status as ContentfulStatusCode, headers);
}

/**
 * The answer to a request that needed the session store while it did not answer (down, restarting,
 * failing over): 503 with Retry-After, which clients and proxies know to retry, and a JSON-RPC
 * error that says so, for 2025 and 2026 requests alike. Never a 500: that reads as a bug.
 */
export interface StoreUnavailableAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** `id`: the request's, where its body was read; else null. */
  body(id: JsonRpcId | null): string;
}

/** The answer with `retryAfterSeconds` (config `sessions.retryAfterSeconds`) in the header and the error's data. */
export function storeUnavailableAnswer(retryAfterSeconds = STORE_RETRY_AFTER_SECONDS): StoreUnavailableAnswer {
  return {
    status: ERRORS.SessionStoreUnavailable.status,
    headers: { ...JSON_HEADERS, 'retry-after': String(retryAfterSeconds) },
    body(id) {
      return JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: {
          ...catalogueError('SessionStoreUnavailable'),
          data: { reason: 'session-store-unavailable', retryAfterSeconds },
        },
      });
    },
  };
}

export function storeUnavailableResponse(c: Context, answer: StoreUnavailableAnswer, id: JsonRpcId | null): Response {
  return c.body(answer.body(id), answer.status as ContentfulStatusCode, answer.headers);
}
