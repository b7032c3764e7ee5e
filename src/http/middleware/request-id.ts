// Every request gets an id, taken from a well-formed X-Request-Id or made here, echoed back so a
// client's report can be matched to our log lines. Runs first, so it is also where the headers
// middleware added reach answers that the responder did not make (response-headers.ts).
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';
import { addResponseHeader, applyResponseHeaders } from '../response-headers.js';

const ACCEPTABLE_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function requestId({ header = 'X-Request-Id' }: { header?: string } = {}): MiddlewareHandler<AppEnv> {
  return async function requestIdMiddleware(c, next) {
    const incoming = c.req.header(header);
    const id = incoming !== undefined && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', id);
    addResponseHeader(c, header, id);
    await next();
    // The outermost middleware: every header any middleware added is on whatever answer was made.
    applyResponseHeaders(c);
  };
}
