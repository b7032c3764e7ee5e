// Tracing switched off, and tracing exported as OTLP JSON: what reaches the collector and the
// upstreams then (tracing.test.ts has the spans themselves).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { envelope, modernPost, modernRequest } from '../support/modern-http.js';
import { SPAN_KIND } from '../support/otlp-decode.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { startHttpFixture, stdioFixture, type HttpUpstream } from '../support/upstreams.js';

let web: HttpUpstream;
beforeAll(async () => {
  web = await startHttpFixture('trace-echo-server');
}, 60_000);
afterAll(async () => {
  await web?.stop();
});

const upstreams = () => ({ web: { url: web.url }, pipe: stdioFixture('trace-echo-server') });
const traceparent = (): string => `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;

function seenIn(body: unknown): { meta: Record<string, string>; headers: Record<string, string> } {
  const text = (body as { result: { content: { text: string }[] } }).result.content[0]!.text;
  return JSON.parse(text) as { meta: Record<string, string>; headers: Record<string, string> };
}

describe('with tracing off', () => {
  let receiver: OtlpReceiver;
  let gateway: TestGateway;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    gateway = await startGateway({ telemetry: { enabled: false, endpoint: receiver.url }, mcpServers: upstreams() }, { traceExportDelayMs: 10, logLevel: 'debug' });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await receiver?.stop();
  });

  it('adds no trace context, and drops the one of a traceparent header (headers are never passed on)', async () => {
    const { sessionId } = await openSession(gateway.url);
    for (const server of ['web', 'pipe']) {
      const answer = await rawPost(gateway.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: `${server}__trace_context`, arguments: {} } }, { sessionId, headers: { traceparent: traceparent() } });
      expect(seenIn(answer.body)).toEqual({ meta: {}, headers: {} });
    }
  });

  it("passes a client's _meta trace context through untouched, to HTTP upstreams as headers too", async () => {
    const [context, state] = [traceparent(), 'client=1'];
    for (const server of ['web', 'pipe']) {
      const request = modernRequest('tools/call', { name: `${server}__trace_context`, arguments: {} }, envelope({}, { traceparent: context, tracestate: state }));
      const answer = await modernPost(gateway.url, request);
      const seen = { traceparent: context, tracestate: state };
      expect(seenIn(answer.body)).toEqual({ meta: seen, headers: server === 'web' ? seen : {} });
    }
  });

  it('sends nothing to the collector and names no trace in the log', async () => {
    await gateway.close();
    expect(receiver.requests).toEqual([]);
    expect(gateway.logs.some((line) => 'traceId' in line)).toBe(false);
    expect(gateway.logs.some((line) => line.msg === 'http request')).toBe(true);
  });
});

describe('with OTEL protocol http/json', () => {
  let receiver: OtlpReceiver;
  let gateway: TestGateway;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    gateway = await startGateway({ telemetry: { endpoint: receiver.url, protocol: 'http/json', serviceName: 'switchboard-json' }, mcpServers: upstreams() }, { traceExportDelayMs: 10 });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await receiver?.stop();
  });

  it('exports the same three spans of a tools/call as JSON', async () => {
    const { sessionId } = await openSession(gateway.url);
    const context = traceparent();
    const traceId = context.split('-')[1]!;
    await rawPost(gateway.url, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'pipe__trace_context', arguments: {} } }, { sessionId, headers: { traceparent: context } });
    const spans = (await receiver.waitFor((all) => all.filter((span) => span.traceId === traceId).length >= 3)).filter((span) => span.traceId === traceId);
    const [http, method, upstream] = ['POST /mcp', 'tools/call pipe__trace_context', 'tools/call trace_context'].map((name) => spans.find((span) => span.name === name)!);
    expect(http!.parentSpanId).toBe(context.split('-')[2]);
    expect(method).toMatchObject({ parentSpanId: http!.spanId, kind: SPAN_KIND.server });
    expect(upstream).toMatchObject({ parentSpanId: method!.spanId, kind: SPAN_KIND.client });
    expect(upstream!.resource['service.name']).toBe('switchboard-json');
    expect(receiver.requests.every((request) => request.contentType.startsWith('application/json'))).toBe(true);
  });
});
