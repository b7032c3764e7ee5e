// Refuses a body whose declared length is over the limit before reading any of it. The connection
// is closed with the answer: the unread body would otherwise be taken for the next request.
import type { MiddlewareHandler } from 'hono';
import { TransportCode, transportError } from '../transport-errors.js';

export const CLOSE_CONNECTION = { Connection: 'close' };

export function tooLarge(c: Parameters<MiddlewareHandler>[0], maxBytes: number): Response {
  return transportError(c, 413, TransportCode.InvalidRequest, `Payload Too Large: the body exceeds ${maxBytes} bytes`, CLOSE_CONNECTION);
}

export function bodySize({ maxBytes }: { maxBytes: number }): MiddlewareHandler {
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new Error(`bodySize: maxBytes must be a positive integer, got ${maxBytes}`);
  return async function bodySizeMiddleware(c, next) {
    const declared = c.req.header('content-length');
    if (declared !== undefined && !(Number(declared) <= maxBytes)) return tooLarge(c, maxBytes);
    await next();
  };
}
