// Every request gets an id, taken from a well-formed X-Request-Id or made here, echoed back so a
// client's report can be matched to our log lines. Runs first, so it is also where the headers
// middleware added reach answers that the responder did not make (response-headers.ts).
import { randomFillSync } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';
import { addResponseHeader, applyResponseHeaders } from '../response-headers.js';

const ACCEPTABLE_ID = /^[A-Za-z0-9._-]{1,128}$/;
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The client's id when it is one we can log safely, else a fresh one (Hono or the fast path). */
export function requestIdFrom(incoming: string | undefined): string {
  return incoming !== undefined && ACCEPTABLE_ID.test(incoming) ? incoming : freshRequestId();
}

// A fresh id is a random (version 4) UUID, written out as one flat string. Node's randomUUID()
// joins 20 pieces into its text, a tree of strings that each later reader (the X-Request-Id header,
// the access and audit lines) walks again to copy or check it. Random bytes are drawn 1,024 ids at
// a time (16 KB): a draw costs the same however few bytes it makes, and at randomUUID's 128 ids it
// still showed in a profile of the loaded gateway. See
// docs/decisions/0015-request-ids-without-async-local-storage.md.
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const random = Buffer.alloc(16 * 1024);
let used = random.length;
const text = Buffer.alloc(36);

export function freshRequestId(): string {
  if (used === random.length) {
    randomFillSync(random);
    used = 0;
  }
  let at = 0;
  for (let index = 0; index < 16; index++) {
    let byte = random[used + index]!;
    if (index === 6) byte = (byte & 0x0f) | 0x40; // version 4
    else if (index === 8) byte = (byte & 0x3f) | 0x80; // the RFC 9562 variant
    if (index === 4 || index === 6 || index === 8 || index === 10) text[at++] = 0x2d; // '-'
    text[at++] = HEX_DIGITS[byte >> 4]!;
    text[at++] = HEX_DIGITS[byte & 0x0f]!;
  }
  used += 16;
  return text.toString('latin1', 0, 36);
}

export function requestId({ header = REQUEST_ID_HEADER }: { header?: string } = {}): MiddlewareHandler<AppEnv> {
  return async function requestIdMiddleware(c, next) {
    const id = requestIdFrom(c.req.header(header));
    c.set('requestId', id);
    addResponseHeader(c, header, id);
    await next();
    // The outermost middleware: every header any middleware added is on whatever answer was made.
    applyResponseHeaders(c);
  };
}
