// The contract's metrics move as real traffic goes through a listening gateway: real stdio
// upstreams, real sessions, /metrics read as Prometheus reads it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { metricValue, scrapeMetrics } from '../support/metrics-scrape.js';
import { openSession, rawPost, rawRequest } from '../support/raw-http.js';
import { pidWithArgument } from '../support/processes.js';
import { stdioFixture } from '../support/upstreams.js';

const QUICK_TIMEOUT_MS = 300;
const POLL = { timeout: 15_000, interval: 50 };

describe('metrics', () => {
  const victimMarker = `--victim-${randomUUID()}`;
  let gateway: TestGateway;
  let sessionId: string;
  let nextId = 1;

  beforeAll(async () => {
    const interactive = stdioFixture('interactive-server');
    gateway = await startGateway({
      mcpServers: {
        interactive,
        quick: { ...interactive, timeoutMs: QUICK_TIMEOUT_MS },
        victim: { ...interactive, args: [...interactive.args, 'stdio', victimMarker] },
      },
    });
    ({ sessionId } = await openSession(gateway.url));
  }, 60_000);

  afterAll(async () => gateway?.close());

  async function call(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    nextId += 1;
    const response = await rawPost(gateway.url, { jsonrpc: '2.0', id: nextId, method, ...(params && { params }) }, { sessionId });
    return response.body as Record<string, unknown>;
  }

  it('serves the Prometheus text format, with the default process metrics', async () => {
    const scrape = await scrapeMetrics(gateway.url);
    expect(scrape.status).toBe(200);
    expect(scrape.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scrape.value('process_start_time_seconds')).toBeGreaterThan(0);
    expect(scrape.text).toContain('# TYPE switchboard_rpc_duration_seconds histogram');
  });

  it('counts a tools/call that succeeds and one that fails under their method, server and outcome', async () => {
    const ok = { method: 'tools/call', server: 'interactive', outcome: 'ok' };
    const failed = { method: 'tools/call', server: 'quick', outcome: 'error' };
    const before = await scrapeMetrics(gateway.url);
    expect(await call('tools/call', { name: 'interactive__slow', arguments: { ms: 0, tag: 'metrics-ok' } })).toHaveProperty('result');
    expect(await call('tools/call', { name: 'quick__slow', arguments: { ms: 5_000, tag: 'metrics-timeout' } })).toHaveProperty('error');
    const after = await scrapeMetrics(gateway.url);
    expect(after.value('switchboard_rpc_requests_total', ok) - before.value('switchboard_rpc_requests_total', ok)).toBe(1);
    expect(after.value('switchboard_rpc_requests_total', failed) - before.value('switchboard_rpc_requests_total', failed)).toBe(1);
  });

  it('adds each request to the duration histogram of its method and server', async () => {
    const labels = { method: 'tools/call', server: 'interactive' };
    const before = await scrapeMetrics(gateway.url);
    await call('tools/call', { name: 'interactive__slow', arguments: { ms: 120, tag: 'metrics-duration' } });
    const after = await scrapeMetrics(gateway.url);
    expect(after.value('switchboard_rpc_duration_seconds_count', labels) - before.value('switchboard_rpc_duration_seconds_count', labels)).toBe(1);
    expect(after.value('switchboard_rpc_duration_seconds_sum', labels) - before.value('switchboard_rpc_duration_seconds_sum', labels)).toBeGreaterThanOrEqual(0.1);
    const fast = { ...labels, le: '0.05' };
    expect(after.value('switchboard_rpc_duration_seconds_bucket', fast)).toBe(before.value('switchboard_rpc_duration_seconds_bucket', fast));
  });

  it('labels requests the gateway answers alone with an empty server, and unknown methods as other', async () => {
    const before = await scrapeMetrics(gateway.url);
    await call('tools/list');
    await call(`made/up/${randomUUID()}`);
    const after = await scrapeMetrics(gateway.url);
    const list = { method: 'tools/list', server: '', outcome: 'ok' };
    const unknown = { method: 'other', server: '', outcome: 'error' };
    expect(after.value('switchboard_rpc_requests_total', list) - before.value('switchboard_rpc_requests_total', list)).toBe(1);
    expect(after.value('switchboard_rpc_requests_total', unknown) - before.value('switchboard_rpc_requests_total', unknown)).toBe(1);
  });

  it('leaves the mcp_endpoint label out when no endpoints are configured', async () => {
    await call('tools/list');
    const { text } = await scrapeMetrics(gateway.url);
    expect(text).toMatch(/^switchboard_rpc_requests_total\{/m);
    expect(text).not.toContain('mcp_endpoint');
  });

  it('never puts session ids, arguments or tool names into labels', async () => {
    await call('tools/call', { name: 'interactive__slow', arguments: { ms: 0, tag: 'secret-argument-value' } });
    await call('tools/call', { name: 'interactive__no_such_tool_xyz', arguments: {} });
    const { text } = await scrapeMetrics(gateway.url);
    expect(text).not.toContain(sessionId);
    expect(text).not.toContain('secret-argument-value');
    expect(text).not.toContain('no_such_tool_xyz');
  });

  it('reports an upstream down when its process is killed, and up again once it is back', async () => {
    await expect.poll(() => metricValue(gateway.url, 'switchboard_upstream_up', { server: 'victim' }), POLL).toBe(1);
    const restarts = await metricValue(gateway.url, 'switchboard_upstream_restarts_total', { server: 'victim' });
    process.kill(pidWithArgument(victimMarker), 'SIGKILL');
    await expect.poll(() => metricValue(gateway.url, 'switchboard_upstream_up', { server: 'victim' }), POLL).toBe(0);
    await expect.poll(() => metricValue(gateway.url, 'switchboard_upstream_up', { server: 'victim' }), POLL).toBe(1);
    expect(await metricValue(gateway.url, 'switchboard_upstream_restarts_total', { server: 'victim' })).toBe(restarts + 1);
    expect(await metricValue(gateway.url, 'switchboard_upstream_up', { server: 'interactive' })).toBe(1);
  });

  it('follows the live sessions as they are initialized and deleted', async () => {
    const before = await metricValue(gateway.url, 'switchboard_sessions_active');
    const first = await openSession(gateway.url);
    await openSession(gateway.url);
    await expect.poll(() => metricValue(gateway.url, 'switchboard_sessions_active'), POLL).toBe(before + 2);
    expect((await rawRequest(gateway.url, 'DELETE', { 'mcp-session-id': first.sessionId })).status).toBe(200);
    await expect.poll(() => metricValue(gateway.url, 'switchboard_sessions_active'), POLL).toBe(before + 1);
    expect(await metricValue(gateway.url, 'switchboard_session_store_up')).toBe(1);
  });

  it('counts a list_changed once per session it is sent to', async () => {
    const labels = { method: 'notifications/tools/list_changed' };
    const before = await metricValue(gateway.url, 'switchboard_notifications_forwarded_total', labels);
    const sessions = await metricValue(gateway.url, 'switchboard_sessions_active');
    await call('tools/call', { name: 'interactive__add_tool', arguments: { name: 'counted_tool' } });
    await expect.poll(() => metricValue(gateway.url, 'switchboard_notifications_forwarded_total', labels), POLL).toBeGreaterThanOrEqual(before + sessions);
  });

  it('counts HTTP requests by route, method and status', async () => {
    const labels = { route: '/healthz', method: 'GET', status: '200' };
    const before = await metricValue(gateway.url, 'switchboard_http_requests_total', labels);
    await fetch(new URL('/healthz', gateway.url));
    await fetch(new URL('/healthz', gateway.url));
    expect(await metricValue(gateway.url, 'switchboard_http_requests_total', labels)).toBe(before + 2);
    await fetch(new URL(`/no/such/${randomUUID()}`, gateway.url));
    const { text } = await scrapeMetrics(gateway.url);
    expect(text).toMatch(/switchboard_http_requests_total\{route="other",method="GET",status="404"\} \d/);
  });
});
