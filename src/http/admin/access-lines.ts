// One access line per request to the admin listener, like the MCP port's (middleware/observe-
// requests.ts) but its own: `listener: "admin"` tells the two apart in one log, and the client's
// address is on it, since who asked matters more here than anywhere. No metrics: the request
// counter is the MCP traffic's. Levels: info for what an operator reads this log for (actions,
// refusals, errors), debug for the reads that say nothing new (the status page polls every few
// seconds while it is open).
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../observe/logger.js';
import type { AppEnv } from '../app-env.js';
import { clientAddress } from '../client-address.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Paths are a client's free text: logged, but not at any length. */
const MAX_LOGGED_PATH_CHARS = 200;

export function adminAccessLines(logger: Logger): MiddlewareHandler<AppEnv> {
  return async function adminAccessLinesMiddleware(c, next) {
    const startedAt = performance.now();
    await next();
    const { status } = c.res;
    const level = READS.has(c.req.method) && status < 400 ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const { path } = c.req;
    logger[level](
      {
        listener: 'admin',
        requestId: c.get('requestId'),
        method: c.req.method,
        path: path.length > MAX_LOGGED_PATH_CHARS ? `${path.slice(0, MAX_LOGGED_PATH_CHARS)}…` : path,
        status,
        client: clientAddress(c),
        durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
      },
      'http request',
    );
  };
}
