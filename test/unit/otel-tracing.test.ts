// The OpenTelemetry side of tracing, with the SDK's in-memory exporter: explicit parents, a
// client's traceparent continued, the context handed on in W3C form.
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observe/logger.js';
import { createOtelTracing } from '../../src/observe/tracing/otel-tracing.js';
import type { TracingSettings } from '../../src/observe/tracing/settings.js';

const SETTINGS: TracingSettings = {
  endpoint: 'http://127.0.0.1:1/v1/traces',
  protocol: 'http/protobuf',
  headers: {},
  serviceName: 'switchboard-test',
  sampler: { parentBased: true, ratio: 1 },
};
const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';

function tracingInMemory(settings: TracingSettings = SETTINGS) {
  const exporter = new InMemorySpanExporter();
  return { exporter, tracing: createOtelTracing(settings, { logger: createLogger({ level: 'silent' }), exporter }) };
}

describe('OpenTelemetry tracing', () => {
  it('continues a client traceparent, with its tracestate, and hands on its own', () => {
    const { exporter, tracing } = tracingInMemory();
    const client = tracing.continued(`00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, 'vendor=abc');
    expect(client?.traceId).toBe(CLIENT_TRACE);
    const server = client!.startChild('tools/call', 'server', { 'mcp.method.name': 'tools/call', absent: undefined });
    const upstream = server.startChild('tools/call echo', 'client', {});
    expect(upstream.traceparent).toBe(`00-${CLIENT_TRACE}-${upstream.spanId}-01`);
    expect(upstream.tracestate).toBe('vendor=abc');
    upstream.end();
    server.end('-32602');

    const [first, second] = exporter.getFinishedSpans();
    expect(first!.parentSpanContext?.spanId).toBe(server.spanId);
    expect(second!.parentSpanContext).toMatchObject({ traceId: CLIENT_TRACE, spanId: CLIENT_SPAN, isRemote: true });
    expect(second!.attributes).toEqual({ 'mcp.method.name': 'tools/call', 'error.type': '-32602' });
    expect(second!.status.code).toBe(2);
    expect(second!.resource.attributes['service.name']).toBe('switchboard-test');
  });

  it('refuses a malformed traceparent and starts a trace of its own instead', () => {
    const { tracing } = tracingInMemory();
    for (const bad of [undefined, 42, '', 'not-a-traceparent', `00-${'0'.repeat(32)}-${CLIENT_SPAN}-01`]) expect(tracing.continued(bad, undefined)).toBeUndefined();
    const span = tracing.startSpan('POST /mcp', 'server', {});
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.traceId).not.toBe(CLIENT_TRACE);
  });

  it("keeps a client's unsampled trace unrecorded, and says so downstream", () => {
    const { exporter, tracing } = tracingInMemory();
    const span = tracing.continued(`00-${CLIENT_TRACE}-${CLIENT_SPAN}-00`, undefined)!.startChild('ping', 'server', {});
    expect(span.traceparent).toBe(`00-${CLIENT_TRACE}-${span.spanId}-00`);
    span.end();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it('links a span to another trace and starts it when asked', () => {
    const { exporter, tracing } = tracingInMemory();
    const http = tracing.startSpan('POST /mcp', 'server', {}, { startTime: performance.now() - 50 });
    const method = tracing.startSpan('tools/call', 'server', {}, { parent: tracing.continued(`00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, undefined)!, links: [http] });
    method.end();
    http.end();
    const [methodSpan, httpSpan] = exporter.getFinishedSpans();
    expect(methodSpan!.links.map((link) => link.context.spanId)).toEqual([http.spanId]);
    expect(httpSpan!.duration[0] * 1e3 + httpSpan!.duration[1] / 1e6).toBeGreaterThanOrEqual(49);
  });
});

describe('span times', () => {
  it('keep the sub-millisecond length of a span started at a given time', () => {
    const { exporter, tracing } = tracingInMemory();
    const bounds: [number, number][] = [];
    for (let i = 0; i < 20; i += 1) {
      const started = performance.now();
      const span = tracing.startSpan('POST /mcp', 'server', {}, { startTime: started });
      while (performance.now() - started < 0.5) {
        // Busy for half a millisecond: a span that crosses a millisecond boundary about every other time.
      }
      const before = performance.now();
      span.end();
      bounds.push([before - started, performance.now() - started]);
    }
    const lengths = exporter.getFinishedSpans().map((span) => span.duration[0] * 1e3 + span.duration[1] / 1e6);
    // The span ends while end() runs: its length lies between the readings around that call.
    lengths.forEach((length, i) => {
      expect(length).toBeGreaterThanOrEqual(bounds[i]![0] - 0.001);
      expect(length).toBeLessThanOrEqual(bounds[i]![1] + 0.001);
    });
  });
});
