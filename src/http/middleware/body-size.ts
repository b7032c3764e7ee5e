// Refuses a body whose declared length is over the limit before reading any of it. The connection
// is closed with the answer: the unread body would otherwise be taken for the next request.
import type { Refusal } from '../request-head.js';
import { catalogueRefusal } from '../../protocol/error-catalogue.js';

export const CLOSE_CONNECTION = { Connection: 'close' };

/** The answer to a body over the limit, declared (access-checks.ts) or found while reading. */
export function tooLargeRefusal(maxBytes: number): Refusal {
  return { ...catalogueRefusal('PayloadTooLarge', maxBytes), headers: CLOSE_CONNECTION };
}

/** Whether a Content-Length header declares more than `maxBytes` (or is not a number). */
export function declaresTooLarge(contentLength: string | undefined, maxBytes: number): boolean {
  return contentLength !== undefined && !(Number(contentLength) <= maxBytes);
}
