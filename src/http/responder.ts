// How a route's answer becomes an HTTP response: a Response whose headers are one plain object,
// the middleware's (request id, CORS: response-headers.ts) with the route's, which
// @hono/node-server writes with node:http as they are. Hono's c.body() would make them a web
// Headers, and merging headers into a finished Response, or reading `c.res` to copy them, turns
// node-server's light response into a real one that it must then read as a stream (measured with
// `npm run bench -- --profile` and `npm run bench:ab`).
import type { Context } from 'hono';
import type { JsonPieces } from '../protocol/json-text.js';
import type { AppEnv } from './app-env.js';
import { takeResponseHeaders } from './response-headers.js';

/**
 * Makes an answer from a body or an SSE stream. Hono's routes get a Response to return; the
 * node:http fast path (fast-path/) writes the answer at once and gets nothing back.
 */
export type Responder<R = Response> = (body: string | ReadableStream<Uint8Array>, status: number, headers: Readonly<Record<string, string>>) => R;

/**
 * The node:http fast path's responder (fast-path/node-exchange.ts), which also writes a body in pieces:
 * a response around a catalogue page's kept bytes (protocol/json-text.ts responseBody).
 */
export type PiecesResponder = (body: string | JsonPieces | ReadableStream<Uint8Array>, status: number, headers: Readonly<Record<string, string>>) => void;

export function responder(c: Context<AppEnv>): Responder {
  return (body, status, headers) => {
    const added = takeResponseHeaders(c);
    c.set('streamed', typeof body !== 'string');
    return new Response(body, { status, headers: added ? { ...added, ...headers } : { ...headers } });
  };
}

export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });

/**
 * An answer without a body (DELETE's 200, a legacy POST's 202), said with a zero length: without
 * one, node:http frames a bodiless answer as an empty chunked body.
 */
export function noBody(c: Context<AppEnv>, status: 200 | 202): Response {
  return c.body(null, status, { 'content-length': '0' });
}
