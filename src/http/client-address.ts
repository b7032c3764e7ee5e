// The client's address, for rate limits and audit lines when there is no token: the TCP peer's,
// or, behind proxies the config trusts (server.trustedProxies), the address they forwarded
// (trusted-proxies.ts). Forwarding headers from anyone else are never read: any client can write them.
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { TrustedProxies } from './trusted-proxies.js';

export function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  // No socket: app.request() in tests, or another runtime.
  if (incoming === undefined) return 'unknown';
  const proxies = (c as Context<AppEnv>).get('trustedProxies') ?? TrustedProxies.none;
  return clientAddressOf(incoming, proxies);
}

/** The same for a request outside Hono (the fast path, the sign-in listener). */
export function clientAddressOf(request: IncomingMessage, proxies: TrustedProxies): string {
  return proxies.clientOf(request.socket.remoteAddress, request.headers['x-forwarded-for']);
}

/** Lets clientAddress() believe these proxies; registered only when some are configured. */
export function trustProxies<E extends AppEnv>(proxies: TrustedProxies): MiddlewareHandler<E> {
  return async function trustProxiesMiddleware(c, next) {
    c.set('trustedProxies', proxies);
    await next();
  };
}
