// What access control reads of a request and how it says no, whichever way it came in: Hono's
// context (GET and DELETE on the MCP paths, the legacy transport, health and metadata routes) or
// the node:http fast path (POSTs to the MCP paths, fast-path/post-listener.ts). One rule, one
// implementation: each check is written against these (middleware/access-checks.ts).
import type { Context } from 'hono';
import type { AppEnv } from './app-env.js';
import { clientAddress } from './client-address.js';
import { transportError } from './transport-errors.js';

export interface RequestHead {
  readonly method: string;
  /** The path, without the query string. */
  readonly path: string;
  /** A request header by its lower-case name. */
  header(name: string): string | undefined;
  readonly requestId: string | undefined;
  /** The client's address: the connection's peer, or what a trusted proxy forwarded (trusted-proxies.ts). */
  clientAddress(): string;
  /** Whether the body is still unread: a refusal then closes the connection (refusal.ts). */
  bodyUnread(): boolean;
}

/**
 * A request refused before it reached the gateway: an HTTP status with a JSON-RPC error body (id
 * null), as transport-errors.ts writes it.
 */
export interface Refusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export function honoHead(c: Context<AppEnv>): RequestHead {
  return {
    method: c.req.method,
    path: c.req.path,
    header: (name) => c.req.header(name),
    requestId: c.get('requestId') as string | undefined,
    clientAddress: () => clientAddress(c),
    bodyUnread: () => c.req.raw.body !== null && !c.req.raw.bodyUsed,
  };
}

/** A refusal as Hono's answer. */
export function refuseWithHono(c: Context, refusal: Refusal): Response {
  return transportError(c, refusal, { ...refusal.headers });
}
