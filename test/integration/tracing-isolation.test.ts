// The time a first call spends starting the caller's own upstream (`isolation: session`) is a span
// of its own under the method's span, so a trace shows where a slow first call went.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { SPAN_KIND, type ReceivedSpan } from '../support/otlp-decode.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { rawPost } from '../support/raw-http.js';
import { stdioFixture } from '../support/upstreams.js';

let receiver: OtlpReceiver;
let gateway: TestGateway;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  gateway = await startGateway(
    {
      telemetry: { endpoint: receiver.url },
      mcpServers: { own: { ...stdioFixture('trace-echo-server'), isolation: 'session' } },
    },
    { traceExportDelayMs: 20 },
  );
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await receiver?.stop();
});

async function openSession(): Promise<string> {
  const init = await rawPost(gateway.url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'tracing-isolation-test', version: '1' } },
  });
  const sessionId = init.headers.get('mcp-session-id');
  if (!sessionId) throw new Error(`initialize failed: ${JSON.stringify(init.body)}`);
  await rawPost(gateway.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId });
  return sessionId;
}

describe('a first call to a session-isolated server', () => {
  it('has a span for starting its upstream, under the method span and beside the call', async () => {
    const sessionId = await openSession();
    const traceId = randomBytes(16).toString('hex');
    const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
    const call = (id: number) =>
      rawPost(gateway.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'own__trace_context', arguments: {} } }, { sessionId, headers: { traceparent } });
    expect((await call(2)).body).toHaveProperty('result');

    const inTrace = (spans: readonly ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);
    const spans = inTrace(await receiver.waitFor((all) => inTrace(all).some((span) => span.name === 'tools/call trace_context')));
    const method = spans.find((span) => span.kind === SPAN_KIND.server && span.attributes['mcp.method.name'] === 'tools/call');
    const start = spans.find((span) => span.name === 'start own');
    const upstream = spans.find((span) => span.name === 'tools/call trace_context');
    expect(method).toBeDefined();
    expect(start).toMatchObject({ kind: SPAN_KIND.client, parentSpanId: method!.spanId, status: { code: 0 } });
    expect(start!.attributes).toMatchObject({ 'switchboard.server': 'own', 'network.transport': 'pipe' });
    expect(upstream).toMatchObject({ parentSpanId: method!.spanId });

    // The session's next call finds its upstream started: no such span.
    const again = randomBytes(16).toString('hex');
    await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'own__trace_context', arguments: {} } },
      { sessionId, headers: { traceparent: `00-${again}-${randomBytes(8).toString('hex')}-01` } },
    );
    const second = (await receiver.waitFor((all) => all.some((span) => span.traceId === again && span.name === 'tools/call trace_context'))).filter((span) => span.traceId === again);
    expect(second.map((span) => span.name)).not.toContain('start own');
  });
});
