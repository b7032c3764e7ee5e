// The HTTP face of the gateway: middleware in the order design.md gives, then the routes.
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Gateway } from '../gateway/gateway.js';
import type { Logger } from '../observe/logger.js';
import type { SessionStore } from '../session/store.js';
import type { Upstream } from '../upstream/types.js';
import type { AppEnv } from './app-env.js';
import { requestId } from './middleware/request-id.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { TransportCode, transportError } from './transport-errors.js';

export interface AppOptions {
  readonly mcpPath: string;
  readonly maxBodyBytes: number;
  readonly gateway: Gateway;
  readonly store: SessionStore;
  readonly upstreams: readonly Upstream[];
  readonly logger: Logger;
  isDraining(): boolean;
}

export function createApp(options: AppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requestId());
  app.use(options.mcpPath, async (c, next) => {
    c.set('principal', undefined);
    await next();
  });
  app.use(
    options.mcpPath,
    bodyLimit({
      maxSize: options.maxBodyBytes,
      onError: (c) =>
        transportError(c, 413, TransportCode.InvalidRequest, `Payload Too Large: the body exceeds ${options.maxBodyBytes} bytes`),
    }),
  );

  registerHealthRoutes(app, options);
  registerMcpRoutes(app, { path: options.mcpPath, gateway: options.gateway, store: options.store });

  app.notFound((c) => c.json({ error: 'not found' }, 404));
  app.onError((error, c) => {
    options.logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error in HTTP handler');
    return transportError(c, 500, -32603, 'Internal error');
  });
  return app;
}
