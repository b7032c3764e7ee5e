// The peer address of the TCP connection, for rate limits and audit lines when there is no token.
// Headers such as X-Forwarded-For are not read: any client can write them.
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // No socket: app.request() in tests, or another runtime.
    return 'unknown';
  }
}
