// What an on-call engineer reads: one access line per HTTP request, every line written while serving
// a request tagged with its request id and short session, and upstream stderr under the server's name.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { createLogger } from '../../src/observe/logger.js';
import { SupervisedUpstream } from '../../src/upstream/supervised-upstream.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { stdioFixture } from '../support/upstreams.js';

describe('the gateway log', () => {
  let gateway: TestGateway;
  let sessionId: string;

  beforeAll(async () => {
    gateway = await startGateway({ mcpServers: { interactive: stdioFixture('interactive-server') } }, { logLevel: 'debug' });
    ({ sessionId } = await openSession(gateway.url));
  }, 60_000);

  afterAll(async () => gateway?.close());

  function tagged(requestId: string): Record<string, unknown>[] {
    return gateway.logs.filter((line) => line.requestId === requestId);
  }

  it('has one access line per HTTP request, with its request id, status and duration, and no headers', async () => {
    const requestId = `access-${randomUUID()}`;
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    await rawPost(gateway.url, body, { sessionId, headers: { 'x-request-id': requestId, authorization: 'Bearer not-for-logs' } });
    const access = tagged(requestId).filter((line) => line.msg === 'http request');
    // A POST answered with plain JSON says nothing the metrics do not: debug (this gateway logs at debug).
    expect(access).toEqual([
      expect.objectContaining({ level: 'debug', method: 'POST', path: '/mcp', status: 200, durationMs: expect.any(Number), session: sessionId.slice(0, 8) }),
    ]);
    expect(JSON.stringify(gateway.logs)).not.toContain('not-for-logs');
    expect(JSON.stringify(gateway.logs)).not.toContain(sessionId);
  });

  it('logs a refused request at info', async () => {
    const requestId = `refused-${randomUUID()}`;
    const unknownSession = 'A'.repeat(22);
    const response = await rawPost(gateway.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { sessionId: unknownSession, headers: { 'x-request-id': requestId } });
    expect(response.status).toBe(404);
    expect(tagged(requestId).filter((line) => line.msg === 'http request')).toEqual([
      expect.objectContaining({ level: 'info', method: 'POST', path: '/mcp', status: 404 }),
    ]);
  });

  it('gives a request without a usable X-Request-Id a fresh UUID, in its answer and its lines', async () => {
    const body = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'interactive__slow', arguments: { ms: 0, tag: 'fresh-id' } } };
    const answers = [await rawPost(gateway.url, body, { sessionId }), await rawPost(gateway.url, body, { sessionId, headers: { 'x-request-id': 'not "loggable"' } })];
    const ids = answers.map((answer) => answer.headers.get('x-request-id') ?? '');
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(tagged(id)).toContainEqual(expect.objectContaining({ audit: true, method: 'tools/call', name: 'slow', outcome: 'ok' }));
    }
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('tags every line written while serving a request with its request id and short session', async () => {
    const requestId = `call-${randomUUID()}`;
    const body = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'interactive__slow', arguments: { ms: 0, tag: 'logged' } } };
    await rawPost(gateway.url, body, { sessionId, headers: { 'x-request-id': requestId } });
    const lines = tagged(requestId);
    expect(lines).toContainEqual(expect.objectContaining({ audit: true, method: 'tools/call', server: 'interactive', session: sessionId.slice(0, 8) }));
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'http request', status: 200 }));
  });
});

describe('an upstream stderr', () => {
  it('is logged line by line under the server name, named once', async () => {
    let text = '';
    const logger = createLogger({
      destination: new Writable({
        write(chunk: Buffer, _encoding, callback) {
          text += chunk.toString('utf8');
          callback();
        },
      }),
    });
    const script = "console.error('first words'); console.error('last words'); process.exit(1)";
    const config = parseConfigText(JSON.stringify({ mcpServers: { noisy: { command: process.execPath, args: ['-e', script] } } }), 'json', {});
    const upstream = new SupervisedUpstream('noisy', config.mcpServers.noisy!, logger, { ping: false });
    upstream.start();
    try {
      await expect.poll(() => text.includes('last words'), { timeout: 20_000 }).toBe(true);
    } finally {
      await upstream.stop();
    }
    const stderrLines = text.split('\n').filter((line) => line.includes('"stream":"stderr"'));
    expect(stderrLines.slice(0, 2).map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ server: 'noisy', stream: 'stderr', msg: 'first words' }),
      expect.objectContaining({ server: 'noisy', stream: 'stderr', msg: 'last words' }),
    ]);
    for (const line of stderrLines) expect(line.match(/"server":/g)).toHaveLength(1);
  });
});
