// Bodies built to hurt, at the default 4 MiB body limit: each gets a 4xx or a JSON-RPC error, fast,
// and the gateway goes on serving. (The fuzz test sends many more, against a smaller limit.)
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { MCP_ACCEPT, openSession, rawPost } from '../support/raw-http.js';
import { stdioFixture } from '../support/upstreams.js';

let gateway: TestGateway;
let sessionId: string;

beforeAll(async () => {
  gateway = await startGateway({ mcpServers: { paged: stdioFixture('paged-server') } });
  ({ sessionId } = await openSession(gateway.url));
}, 60_000);

afterAll(async () => gateway?.close());

async function post(body: string | Uint8Array): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown), ms: performance.now() - started };
}

describe('hostile input', () => {
  it('refuses a million nested arrays (2 MB) with a parse error, without parsing them', async () => {
    const answer = await post('['.repeat(1_000_000) + ']'.repeat(1_000_000));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: -32700, message: expect.stringMatching(/nested deeper than 64/) } });
    expect(answer.ms).toBeLessThan(2_000);
  });

  it('refuses deep nesting inside otherwise valid params', async () => {
    const deep = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
    const answer = await post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"paged__x","arguments":${deep}}}`);
    expect(answer.status).toBe(400);
  });

  it('answers a body over the limit with 413 and closes the connection', async () => {
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId },
      body: 'x'.repeat(4 * 1024 * 1024 + 1),
    });
    expect(response.status).toBe(413);
    await response.text();
  });

  it('answers a chunked body (no Content-Length) that passes the limit with 413, having read no more than the limit', async () => {
    const { status, connection } = await new Promise<{ status: number | undefined; connection: string | undefined }>((resolve, reject) => {
      const sent = httpRequest(gateway.url, {
        method: 'POST',
        headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId, 'transfer-encoding': 'chunked' },
      });
      sent.on('response', (response) => {
        response.resume();
        resolve({ status: response.statusCode, connection: response.headers.connection });
      });
      // The gateway closes the connection with its answer: the rest of the body goes nowhere.
      sent.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
      const chunk = 'x'.repeat(256 * 1024);
      let written = 0;
      const writeMore = (): void => {
        while (written < 6 * 1024 * 1024 && !sent.destroyed) {
          written += chunk.length;
          if (!sent.write(chunk)) return void sent.once('drain', writeMore);
        }
        sent.end();
      };
      writeMore();
    });
    expect(status).toBe(413);
    expect(connection).toBe('close');
    const ping = await rawPost(gateway.url, { jsonrpc: '2.0', id: 10, method: 'ping' }, { sessionId });
    expect(ping.status).toBe(200);
  });

  it('goes on serving when a client leaves in the middle of its body', async () => {
    await new Promise<void>((resolve) => {
      const sent = httpRequest(gateway.url, {
        method: 'POST',
        headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId, 'content-length': '1000' },
      });
      sent.on('error', () => resolve());
      sent.write('{"jsonrpc":"2.0","id":11,', () => setTimeout(() => sent.destroy(), 50));
      sent.on('close', () => resolve());
    });
    const ping = await rawPost(gateway.url, { jsonrpc: '2.0', id: 12, method: 'ping' }, { sessionId });
    expect(ping.status).toBe(200);
  });

  it('takes a percent-encoded MCP path, or one with a query, for the MCP path, as Hono does for GET and DELETE', async () => {
    const url = new URL(gateway.url);
    for (const path of [url.pathname.replace('p', '%70'), `${url.pathname}?x=1`]) {
      const ping = await rawPost(new URL(path, url).toString(), { jsonrpc: '2.0', id: 13, method: 'ping' }, { sessionId });
      expect(ping, path).toMatchObject({ status: 200, body: { id: 13, result: {} } });
    }
    const broken = await rawPost(new URL(`${url.pathname}%`, url).toString(), { jsonrpc: '2.0', id: 14, method: 'ping' }, { sessionId });
    expect(broken.status).toBe(404);
  });

  it('answers invalid UTF-8 with a parse error', async () => {
    const answer = await post(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}}')]));
    expect(answer).toMatchObject({ status: 400, body: { error: { code: -32700 } } });
  });

  it('answers a wrong parameter type with -32602', async () => {
    const answer = await rawPost(gateway.url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 5 } }, { sessionId });
    expect(JSON.stringify(answer.body)).toContain('-32602');
  });

  it('refuses a batch in a 2025-11-25 session clearly', async () => {
    const answer = await post(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }]));
    expect(answer).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/batches/) } } });
  });

  it('carries a 3 MB string to the upstream and still serves afterwards', async () => {
    const big = await rawPost(gateway.url, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'paged__nope', arguments: { s: 'x'.repeat(3_000_000) } } }, { sessionId });
    expect(big.status).toBe(200);
    const ping = await rawPost(gateway.url, { jsonrpc: '2.0', id: 9, method: 'ping' }, { sessionId });
    expect(ping.status).toBe(200);
  });
});
