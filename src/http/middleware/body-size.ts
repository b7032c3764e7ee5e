// Refuses a body whose declared length is over the limit before reading any of it. The connection
// is closed with the answer: the unread body would otherwise be taken for the next request.
import type { MiddlewareHandler } from 'hono';
import { refuseWithHono, type Refusal } from '../request-head.js';
import { TransportCode } from '../transport-errors.js';

export const CLOSE_CONNECTION = { Connection: 'close' };

/** The answer to a body over the limit, declared or found while reading (either front). */
export function tooLargeRefusal(maxBytes: number): Refusal {
  return { status: 413, code: TransportCode.InvalidRequest, message: `Payload Too Large: the body exceeds ${maxBytes} bytes`, headers: CLOSE_CONNECTION };
}

/** Whether a Content-Length header declares more than `maxBytes` (or is not a number). */
export function declaresTooLarge(contentLength: string | undefined, maxBytes: number): boolean {
  return contentLength !== undefined && !(Number(contentLength) <= maxBytes);
}

export function bodySize({ maxBytes }: { maxBytes: number }): MiddlewareHandler {
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new Error(`bodySize: maxBytes must be a positive integer, got ${maxBytes}`);
  return async function bodySizeMiddleware(c, next) {
    if (declaresTooLarge(c.req.header('content-length'), maxBytes)) return refuseWithHono(c, tooLargeRefusal(maxBytes));
    await next();
  };
}
