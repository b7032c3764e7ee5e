// The HTTP side of a graceful shutdown, on a small Hono app: who is refused while draining, and
// what shutdown waits for.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/http/app-env.js';
import { HttpDrain } from '../../src/http/drain.js';
import { SseStream } from '../../src/http/sse/sse-stream.js';

const SESSION = { 'mcp-session-id': 'AAAAAAAAAAAAAAAAAAAAAA' };

function drainingApp(): { app: Hono<AppEnv>; drain: HttpDrain; startDraining(): void; streams: SseStream[] } {
  let draining = false;
  const drain = new HttpDrain({ isDraining: () => draining });
  const streams: SseStream[] = [];
  const app = new Hono<AppEnv>();
  app.use('/mcp', drain.middleware);
  app.post('/mcp', (c) => {
    if (c.req.query('stream') === undefined) return c.json({ jsonrpc: '2.0', id: 1, result: {} });
    const stream = new SseStream();
    streams.push(stream);
    return stream.response;
  });
  app.get('/mcp', () => {
    const stream = new SseStream();
    streams.push(stream);
    return stream.response;
  });
  return { app, drain, streams, startDraining: () => (draining = true) };
}

describe('HttpDrain', () => {
  it('refuses a new session with 503 and a JSON-RPC error while draining', async () => {
    const { app, startDraining } = drainingApp();
    startDraining();
    const response = await app.request('/mcp', { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"initialize"}' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32014, message: expect.stringMatching(/shutting down and takes no new sessions/) },
    });
  });

  it('refuses a new GET stream while draining', async () => {
    const { app, startDraining } = drainingApp();
    startDraining();
    expect((await app.request('/mcp', { headers: SESSION })).status).toBe(503);
  });

  it('still serves the requests of existing sessions while draining', async () => {
    const { app, startDraining } = drainingApp();
    startDraining();
    const response = await app.request('/mcp', { method: 'POST', headers: SESSION, body: '{}' });
    expect(response.status).toBe(200);
  });

  it('still serves a 2024-11-05 POST, whose session is named in the query, while draining', async () => {
    const { app, startDraining } = drainingApp();
    startDraining();
    const response = await app.request('/mcp?sessionId=AAAAAAAAAAAAAAAAAAAAAA', { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
  });

  it('waits for tracked work, an answer queued after its 202, until it settles', async () => {
    const { drain } = drainingApp();
    let settle: (value: unknown) => void = () => {};
    drain.track(new Promise((resolve) => (settle = resolve)));
    expect(drain.inFlight).toBe(1);
    expect(await drain.whenIdle(20)).toBe(false);
    const waited = drain.whenIdle(10_000);
    settle(undefined);
    expect(await waited).toBe(true);
    expect(drain.inFlight).toBe(0);
  });

  it('waits for a POST answered as a stream until its stream has ended', async () => {
    const { app, drain, streams } = drainingApp();
    const response = await app.request('/mcp?stream', { method: 'POST', headers: SESSION, body: '{}' });
    const body = response.text();
    let idle: boolean | undefined;
    const waited = drain.whenIdle(10_000).then((result) => (idle = result));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(idle).toBeUndefined();
    expect(drain.inFlight).toBe(1);
    streams[0]!.send('1', '{"jsonrpc":"2.0","id":1,"result":{}}');
    streams[0]!.close();
    expect(await body).toContain('"result":{}');
    expect(await waited).toBe(true);
    expect(drain.inFlight).toBe(0);
  });

  it('closes GET streams at once when asked, without waiting for them', async () => {
    const { app, drain, streams } = drainingApp();
    const response = await app.request('/mcp', { headers: SESSION });
    expect(await drain.whenIdle(0)).toBe(true);
    drain.closeStandaloneStreams();
    expect(await response.text()).toBe('');
    expect(streams[0]!.closed).toBe(true);
  });

  it('gives up waiting after the timeout', async () => {
    const { app, drain } = drainingApp();
    const response = await app.request('/mcp?stream', { method: 'POST', headers: SESSION, body: '{}' });
    expect(await drain.whenIdle(20)).toBe(false);
    await response.body?.cancel();
    expect(drain.inFlight).toBe(0);
  });
});
