// Headers that middleware puts on every answer (the request id; CORS for an allowed browser origin),
// kept as a plain object in the context until the answer is made. Hono's c.header() keeps them in a
// web Headers object, which each answer then carries into @hono/node-server's response path: an
// undici Headers per request, set, copied and iterated in sorted order to write the head. The
// responder (responder.ts) writes these into the answers it makes, as plain objects node:http takes
// as they are; applyResponseHeaders puts them on any other answer (a refusal made with c.json, a
// health route) once the route is done.
import type { Context } from 'hono';
import type { AppEnv } from './app-env.js';

export function addResponseHeader(c: Context<AppEnv>, name: string, value: string): void {
  const headers = c.get('responseHeaders');
  if (headers) headers[name] = value;
  else c.set('responseHeaders', { [name]: value });
}

/** The headers for an answer the responder makes; the others are then left alone. */
export function takeResponseHeaders(c: Context<AppEnv>): Readonly<Record<string, string>> | undefined {
  c.set('responseHeadersWritten', true);
  return c.get('responseHeaders');
}

/**
 * Puts the headers on an answer that the responder did not make. Runs after the route, in the
 * middleware that added headers (the first to return does it, the rest find it done).
 */
export function applyResponseHeaders(c: Context<AppEnv>): void {
  if (c.get('responseHeadersWritten') === true) return;
  c.set('responseHeadersWritten', true);
  const headers = c.get('responseHeaders');
  if (!headers) return;
  for (const name of Object.keys(headers)) c.header(name, headers[name]);
}

/**
 * Whether the answer is a stream. The responder says so as it makes the answer; for one it did not
 * make, the content type tells (reading it makes @hono/node-server's light response a real one).
 */
export function isStreamedAnswer(c: Context<AppEnv>): boolean {
  return c.get('streamed') ?? c.res.headers.get('content-type')?.startsWith('text/event-stream') === true;
}
