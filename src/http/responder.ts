// How a route's answer becomes an HTTP response: through Hono's context, so the headers the
// middleware prepared (request id, CORS) are merged in as the response is made. Building a web
// Response by hand and letting Hono merge headers into it afterwards turns @hono/node-server's
// cheap string response into a real one that it must then read as a stream (measured with
// `npm run bench -- --profile`), and reading `c.res` to copy the headers does the same.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export type Responder = (body: string | ReadableStream<Uint8Array>, status: number, headers: Readonly<Record<string, string>>) => Response;

export function responder(c: Context): Responder {
  return (body, status, headers) => c.body(body, status as ContentfulStatusCode, { ...headers });
}

export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });
