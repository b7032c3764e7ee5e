// Every request gets an id, taken from a well-formed X-Request-Id or made here, echoed back so a
// client's report can be matched to our log lines. Runs first, so it is also where the headers
// middleware added reach answers that the responder did not make (response-headers.ts).
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';
import { addResponseHeader, applyResponseHeaders } from '../response-headers.js';

const ACCEPTABLE_ID = /^[A-Za-z0-9._-]{1,128}$/;
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The client's id when it is one we can log safely, else a fresh one (either front). */
export function requestIdFrom(incoming: string | undefined): string {
  return incoming !== undefined && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
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
