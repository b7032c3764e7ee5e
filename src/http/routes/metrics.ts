// GET /metrics: the Prometheus text exposition of this replica (observe/metrics.ts).
import type { Hono } from 'hono';
import type { GatewayMetrics } from '../../observe/metrics.js';
import type { AppEnv } from '../app-env.js';

export function registerMetricsRoute(app: Hono<AppEnv>, metrics: GatewayMetrics, path = '/metrics'): void {
  app.get(path, async (c) => {
    const { contentType, body } = await metrics.exposition();
    return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
  });
}
