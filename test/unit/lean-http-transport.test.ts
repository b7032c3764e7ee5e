// The lean Streamable HTTP transport against a bare node:http server: events delivered as they
// arrive (even when a chunk splits a character), a forgotten session closing the transport, and a
// refusal that names its HTTP status.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { LeanHttpTransport } from '../../src/upstream/http-transport.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(answer: (response: ServerResponse, headers: Record<string, string | string[] | undefined>) => void): Promise<URL> {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(response, request.headers));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
}

const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } } as JSONRPCMessage;

describe('LeanHttpTransport', () => {
  it('delivers each event of a POST stream as it arrives, a character split across chunks whole', async () => {
    const url = await serve((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const progress = Buffer.from(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}\n\n`);
      const answer = Buffer.from(`id: 7\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'héllo' } })}\n\n`);
      const split = answer.indexOf(Buffer.from('é')) + 1;
      response.write(Buffer.concat([Buffer.from(': comment\n\n'), progress, answer.subarray(0, split)]));
      setTimeout(() => response.end(answer.subarray(split)), 20);
    });
    const transport = new LeanHttpTransport({ url, headers: {}, endSessionOnClose: false });
    const received: JSONRPCMessage[] = [];
    const answered = new Promise<void>((resolve) => {
      transport.onmessage = (message) => {
        received.push(message);
        if ('id' in message) resolve();
      };
    });
    await transport.send(call);
    await answered;
    expect(received).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { jsonrpc: '2.0', id: 1, result: { text: 'héllo' } },
    ]);
  });

  it('sends the configured headers and the session id, and closes when the upstream forgot the session', async () => {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const url = await serve((response, headers) => {
      seen.push(headers);
      response.writeHead(404).end('no such session');
    });
    const transport = new LeanHttpTransport({ url, headers: { Authorization: 'Bearer upstream' }, sessionId: 'abc', endSessionOnClose: false });
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    transport.onerror = () => {};
    await expect(transport.send(call)).rejects.toThrow(/HTTP 404/);
    await closed;
    expect(seen[0]).toMatchObject({ authorization: 'Bearer upstream', 'mcp-session-id': 'abc' });
  });

  it('rejects a refused message with its HTTP status and stays open', async () => {
    const url = await serve((response) => response.writeHead(503).end('busy'));
    const transport = new LeanHttpTransport({ url, headers: {}, endSessionOnClose: false });
    let closed = false;
    transport.onclose = () => (closed = true);
    await expect(transport.send(call)).rejects.toThrow(/HTTP 503/);
    expect(closed).toBe(false);
  });
});
