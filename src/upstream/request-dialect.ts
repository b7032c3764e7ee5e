// How the gateway's own requests to an upstream are worded and their answers read, by era. The
// request path (lean-requests.ts) is the same for both eras; only these three steps differ.
//   - 2025 (legacy): params go out as they are, and any result object is the answer.
//   - 2026-07-28 (modern): every request and notification carries the reserved `_meta` envelope
//     (basic/index, "Request Metadata"), methods the era deleted are refused here, and every result
//     says its `resultType` (modern-dialect.ts).
import type { UpstreamRpcError } from './errors.js';
import { upstreamError } from './errors.js';
import type { JsonObject } from './types.js';

export interface RequestDialect {
  /**
   * Whether closing a request's own stream is how it is cancelled, on a transport that opens one
   * per request (2026-07-28, basic/patterns/cancellation); otherwise notifications/cancelled says so.
   */
  readonly cancelsByClosingStream: boolean;
  /** A method this era lacks, refused before anything is sent (the error the caller gets), or undefined. */
  refusal(server: string, method: string): Error | undefined;
  /** The params of a request or notification (`method`) as they go out. */
  outbound(params: JsonObject | undefined, method: string): JsonObject | undefined;
  /** A result as the caller gets it, or the error the caller gets instead. */
  decode(server: string, method: string, result: unknown): JsonObject | Error;
}

export const LEGACY_DIALECT: RequestDialect = {
  cancelsByClosingStream: false,
  refusal: () => undefined,
  outbound: (params) => params,
  decode: (server, _method, result) => (isPlainObject(result) ? result : notAnObject(server)),
};

export function notAnObject(server: string): UpstreamRpcError {
  return upstreamError(server, 'UpstreamResultInvalid', 'the upstream answered with a result that is not an object');
}

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
