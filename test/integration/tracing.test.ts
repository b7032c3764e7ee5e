// Traces, end to end: a real gateway exports to an OTLP/HTTP receiver of ours (decoding what the
// exporter sends), in front of real upstreams of both eras over stdio and HTTP that show the trace
// context each request reached them with (trace-echo-server.ts).
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { envelope, modernPost, modernRequest } from '../support/modern-http.js';
import { SPAN_KIND, type ReceivedSpan } from '../support/otlp-decode.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { rawPost } from '../support/raw-http.js';
import { modernServerStdio, startHttpFixture, stdioFixture, type HttpUpstream } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const SECRET = `argument-${randomBytes(8).toString('hex')}`;

let issuer: LocalIssuer;
let receiver: OtlpReceiver;
let web: HttpUpstream;
let modernWeb: HttpUpstream;
let gateway: TestGateway;
let token: string;

beforeAll(async () => {
  [issuer, receiver, web, modernWeb] = await Promise.all([
    startLocalIssuer(PUBLIC_URL),
    startOtlpReceiver(),
    startHttpFixture('trace-echo-server'),
    startHttpFixture('trace-echo-server', { ERAS: 'dual' }),
  ]);
  token = await issuer.token({});
  gateway = await startGateway(
    {
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
      telemetry: { endpoint: receiver.url },
      mcpServers: {
        web: { url: web.url },
        'modern-web': { url: modernWeb.url },
        pipe: stdioFixture('trace-echo-server'),
        'modern-pipe': stdioFixture('trace-echo-server', { ERAS: 'dual' }),
        steps: modernServerStdio('dual'),
      },
    },
    { traceExportDelayMs: 20, logLevel: 'debug' },
  );
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([web?.stop(), modernWeb?.stop(), receiver?.stop(), issuer?.stop()]);
});

const newTraceId = (): string => randomBytes(16).toString('hex');
const newSpanId = (): string => randomBytes(8).toString('hex');
const auth = (): Record<string, string> => ({ authorization: `Bearer ${token}` });

interface Seen {
  meta: { traceparent?: string; tracestate?: string };
  headers: { traceparent?: string; tracestate?: string };
}

function seenIn(body: unknown): Seen {
  const result = (body as { result?: { content?: { text: string }[] } }).result;
  if (!result?.content?.[0]) throw new Error(`not a tool result: ${JSON.stringify(body)}`);
  return JSON.parse(result.content[0].text) as Seen;
}

async function openSession(): Promise<string> {
  const init = await rawPost(
    gateway.url,
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'tracing-test', version: '1' } } },
    { headers: auth() },
  );
  const sessionId = init.headers.get('mcp-session-id');
  if (!sessionId) throw new Error(`initialize failed: ${JSON.stringify(init.body)}`);
  await rawPost(gateway.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId, headers: auth() });
  return sessionId;
}

/** The HTTP, method and upstream spans of the one tools/call in `traceId`, once all have arrived. */
async function callSpans(traceId: string): Promise<{ http: ReceivedSpan; method: ReceivedSpan; upstream: ReceivedSpan }> {
  const inTrace = (spans: readonly ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);
  const spans = inTrace(await receiver.waitFor((all) => inTrace(all).length >= 3));
  const http = spans.find((span) => span.kind === SPAN_KIND.server && span.name.startsWith('POST '));
  const method = spans.find((span) => span.kind === SPAN_KIND.server && span.attributes['mcp.method.name'] === 'tools/call');
  const upstream = spans.find((span) => span.kind === SPAN_KIND.client);
  if (!http || !method || !upstream) throw new Error(`missing spans in ${traceId}: ${spans.map((span) => span.name).join(', ')}`);
  return { http, method, upstream };
}

describe('traces of a tools/call', () => {
  it("continue the client's traceparent header: an HTTP span, its method span, and the upstream call under it", async () => {
    const sessionId = await openSession();
    const [traceId, clientSpan] = [newTraceId(), newSpanId()];
    const answer = await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'web__trace_context', arguments: { secret: SECRET } } },
      { sessionId, headers: { ...auth(), traceparent: `00-${traceId}-${clientSpan}-01`, tracestate: 'client=1' } },
    );
    const { http, method, upstream } = await callSpans(traceId);

    expect(http).toMatchObject({ parentSpanId: clientSpan, name: 'POST /mcp' });
    expect(http.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/mcp', 'http.response.status_code': 200 });
    expect(method).toMatchObject({ parentSpanId: http.spanId, name: 'tools/call web__trace_context', status: { code: 0 } });
    expect(method.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '7',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': sessionId.slice(0, 8),
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'web__trace_context',
      'switchboard.era': '2025',
      'switchboard.server': 'web',
      'switchboard.outcome': 'ok',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
    expect(upstream).toMatchObject({ parentSpanId: method.spanId, name: 'tools/call trace_context', traceState: 'client=1' });
    expect(upstream.attributes).toMatchObject({ 'gen_ai.tool.name': 'trace_context', 'switchboard.server': 'web', 'switchboard.era': '2025', 'network.transport': 'tcp' });
    expect(upstream.resource['service.name']).toBe('switchboard');

    // The upstream continues the upstream span, in _meta and (over HTTP) as headers.
    const context = `00-${traceId}-${upstream.spanId}-01`;
    expect(seenIn(answer.body)).toEqual({ meta: { traceparent: context, tracestate: 'client=1' }, headers: { traceparent: context, tracestate: 'client=1' } });
  });

  it("continue a 2026 request's _meta traceparent when there is no header", async () => {
    const [traceId, clientSpan] = [newTraceId(), newSpanId()];
    const request = modernRequest('tools/call', { name: 'pipe__trace_context', arguments: {} }, envelope({}, { traceparent: `00-${traceId}-${clientSpan}-01` }));
    const answer = await modernPost(gateway.url, request, { token });
    const { http, method, upstream } = await callSpans(traceId);

    expect(http.parentSpanId).toBe(clientSpan);
    expect(method.parentSpanId).toBe(http.spanId);
    expect(method.attributes).toMatchObject({ 'switchboard.era': '2026', 'mcp.protocol.version': '2026-07-28', 'switchboard.server': 'pipe' });
    expect(method.attributes['mcp.session.id']).toBeUndefined();
    expect(upstream.parentSpanId).toBe(method.spanId);
    expect(upstream.attributes).toMatchObject({ 'network.transport': 'pipe', 'switchboard.era': '2025' });
    // Over stdio the context travels in _meta only.
    expect(seenIn(answer.body)).toEqual({ meta: { traceparent: `00-${traceId}-${upstream.spanId}-01` }, headers: {} });
  });

  it('reach 2026 upstreams in _meta, and over HTTP as headers too', async () => {
    const sessionId = await openSession();
    for (const server of ['modern-pipe', 'modern-web']) {
      const traceId = newTraceId();
      const answer = await rawPost(
        gateway.url,
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: `${server}__trace_context`, arguments: {} } },
        { sessionId, headers: { ...auth(), traceparent: `00-${traceId}-${newSpanId()}-01` } },
      );
      const { upstream } = await callSpans(traceId);
      expect(upstream.attributes).toMatchObject({ 'switchboard.server': server, 'switchboard.era': '2026', 'mcp.protocol.version': '2026-07-28' });
      const context = `00-${traceId}-${upstream.spanId}-01`;
      expect(seenIn(answer.body)).toEqual({ meta: { traceparent: context }, headers: server === 'modern-web' ? { traceparent: context } : {} });
    }
  });

  it("put a message whose _meta continues another trace than its HTTP request's there, linked to the request's span", async () => {
    const [headerTrace, metaTrace, metaSpan] = [newTraceId(), newTraceId(), newSpanId()];
    const request = modernRequest('tools/call', { name: 'pipe__trace_context', arguments: {} }, envelope({}, { traceparent: `00-${metaTrace}-${metaSpan}-01` }));
    await modernPost(gateway.url, request, { token, headers: { traceparent: `00-${headerTrace}-${newSpanId()}-01` } });
    const [httpSpans, { method, upstream }] = await Promise.all([
      receiver.waitFor((spans) => spans.some((span) => span.traceId === headerTrace)),
      callSpans2(metaTrace),
    ]);
    const http = httpSpans.find((span) => span.traceId === headerTrace)!;
    expect(method.parentSpanId).toBe(metaSpan);
    expect(method.links).toEqual([{ traceId: headerTrace, spanId: http.spanId }]);
    expect(upstream.parentSpanId).toBe(method.spanId);
  });

  it("give initialize a span that names the session it made by the id's first 8 characters", async () => {
    const traceId = newTraceId();
    const init = await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'tracing-test', version: '1' } } },
      { headers: { ...auth(), traceparent: `00-${traceId}-${newSpanId()}-01` } },
    );
    const sessionId = init.headers.get('mcp-session-id')!;
    const spans = (await receiver.waitFor((all) => all.filter((span) => span.traceId === traceId).length >= 2)).filter((span) => span.traceId === traceId);
    const method = spans.find((span) => span.name === 'initialize')!;
    expect(method.parentSpanId).toBe(spans.find((span) => span.name === 'POST /mcp')!.spanId);
    expect(method.attributes).toMatchObject({ 'mcp.method.name': 'initialize', 'mcp.protocol.version': '2025-06-18', 'mcp.session.id': sessionId.slice(0, 8), 'switchboard.outcome': 'ok' });
  });

  it('give a request refused before any MCP message is read its HTTP span, in the trace of its header', async () => {
    const [traceId, clientSpan] = [newTraceId(), newSpanId()];
    const refused = await rawPost(gateway.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { headers: { traceparent: `00-${traceId}-${clientSpan}-01` } });
    expect(refused.status).toBe(401);
    const [http] = (await receiver.waitFor((spans) => spans.some((span) => span.traceId === traceId))).filter((span) => span.traceId === traceId);
    expect(http).toMatchObject({ name: 'POST /mcp', parentSpanId: clientSpan, kind: SPAN_KIND.server, status: { code: 0 } });
    expect(http!.attributes['http.response.status_code']).toBe(401);
  });

  it('end the HTTP span of a request whose client left in the middle of its body, as an error of its own', async () => {
    const [traceId, clientSpan] = [newTraceId(), newSpanId()];
    await new Promise<void>((resolve) => {
      const sent = httpRequest(gateway.url, {
        method: 'POST',
        headers: { ...auth(), accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'content-length': '1000', traceparent: `00-${traceId}-${clientSpan}-01` },
      });
      sent.on('error', () => resolve());
      sent.on('close', () => resolve());
      sent.write('{"jsonrpc":"2.0","id":1,', () => setTimeout(() => sent.destroy(), 100));
    });
    const [http] = (await receiver.waitFor((spans) => spans.some((span) => span.traceId === traceId))).filter((span) => span.traceId === traceId);
    expect(http).toMatchObject({ name: 'POST /mcp', parentSpanId: clientSpan, kind: SPAN_KIND.server, status: { code: 2 } });
    expect(http!.attributes['error.type']).toBe('client_closed');
    expect(http!.attributes['http.response.status_code']).toBeUndefined();
  });

  it('end the HTTP span of a streamed answer with its response, after the method span', async () => {
    const sessionId = await openSession();
    const traceId = newTraceId();
    const answer = await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 14, method: 'tools/call', params: { name: 'steps__progress', arguments: { steps: 3 }, _meta: { progressToken: 'p' } } },
      { sessionId, headers: { ...auth(), traceparent: `00-${traceId}-${newSpanId()}-01` } },
    );
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const { http, method, upstream } = await callSpans(traceId);
    expect(method.parentSpanId).toBe(http.spanId);
    expect(upstream.parentSpanId).toBe(method.spanId);
    expect(http.endTimeUnixNano).toBeGreaterThanOrEqual(method.endTimeUnixNano);
    expect(method.endTimeUnixNano).toBeGreaterThanOrEqual(upstream.endTimeUnixNano);
  });

  it('name the trace in the audit line and the access line of the request', async () => {
    const sessionId = await openSession();
    const traceId = newTraceId();
    const answer = await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'pipe__trace_context', arguments: {} } },
      { sessionId, headers: { ...auth(), traceparent: `00-${traceId}-${newSpanId()}-01` } },
    );
    const { http, method } = await callSpans(traceId);
    const requestId = answer.headers.get('x-request-id');
    const lines = gateway.logs.filter((line) => line.requestId === requestId);
    expect(lines.find((line) => line.audit === true)).toMatchObject({ traceId, spanId: method.spanId });
    expect(lines.find((line) => line.msg === 'http request')).toMatchObject({ traceId, spanId: http.spanId });
  });

  it('carry no argument, result, token or whole session id in any attribute', async () => {
    const sessionId = await openSession();
    const traceId = newTraceId();
    const answer = await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'web__trace_context', arguments: { secret: SECRET } } },
      { sessionId, headers: { ...auth(), traceparent: `00-${traceId}-${newSpanId()}-01` } },
    );
    await callSpans(traceId);
    const resultText = (answer.body as { result: { content: { text: string }[] } }).result.content[0]!.text;
    const forbidden = [SECRET, token, token.split('.')[2]!, sessionId, resultText];
    const values = receiver.spans.flatMap((span) => [span.name, ...Object.values(span.attributes).map(String), ...Object.values(span.resource).map(String)]);
    for (const value of values) for (const secret of forbidden) expect(value).not.toContain(secret);
    expect(receiver.requests.every((request) => request.contentType === 'application/x-protobuf' && request.path === '/v1/traces')).toBe(true);
  });

  it("mark a tool's error result as tool_error on both spans", async () => {
    const sessionId = await openSession();
    const traceId = newTraceId();
    // Not a string: the upstream's own input check fails, and answers with an error result.
    await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'web__trace_context', arguments: { secret: 42 } } },
      { sessionId, headers: { ...auth(), traceparent: `00-${traceId}-${newSpanId()}-01` } },
    );
    const { method, upstream } = await callSpans(traceId);
    for (const span of [method, upstream]) {
      expect(span.attributes['error.type']).toBe('tool_error');
      expect(span.status.code).toBe(2);
    }
    expect(method.attributes['switchboard.outcome']).toBe('ok');
  });

  it('mark an unknown tool with its JSON-RPC code, under the bare method name, with no upstream span', async () => {
    const sessionId = await openSession();
    const traceId = newTraceId();
    await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'web__no_such_tool', arguments: {} } },
      { sessionId, headers: { ...auth(), traceparent: `00-${traceId}-${newSpanId()}-01` } },
    );
    const spans = (await receiver.waitFor((all) => all.filter((span) => span.traceId === traceId).length >= 2)).filter((span) => span.traceId === traceId);
    const method = spans.find((span) => span.attributes['mcp.method.name'] === 'tools/call')!;
    expect(method).toMatchObject({ name: 'tools/call', status: { code: 2, message: '' } });
    expect(method.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602', 'switchboard.outcome': 'error' });
    expect(method.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(spans.some((span) => span.kind === SPAN_KIND.client)).toBe(false);
  });
});

/** Like callSpans, for a trace that holds no HTTP span (its request's span is in another trace). */
async function callSpans2(traceId: string): Promise<{ method: ReceivedSpan; upstream: ReceivedSpan }> {
  const inTrace = (spans: readonly ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);
  const spans = inTrace(await receiver.waitFor((all) => inTrace(all).length >= 2));
  return { method: spans.find((span) => span.kind === SPAN_KIND.server)!, upstream: spans.find((span) => span.kind === SPAN_KIND.client)! };
}
