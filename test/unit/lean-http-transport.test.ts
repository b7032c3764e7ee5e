// The lean Streamable HTTP transport against a bare node:http server: events delivered as they
// arrive (even when a chunk splits a character), a forgotten session closing the transport, and a
// refusal that names its HTTP status; for a 2026 request, the headers its body implies, a refusal
// that carries its JSON-RPC error, its own stream closed by its signal, and the end of a stream
// that never answered it.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const modernCall = (name: string, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: ENVELOPE } }) as JSONRPCMessage;

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

  it('sends a 2026 request with the headers its body implies, never overridden, and no session', async () => {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const url = await serve((response, headers) => {
      seen.push(headers);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } }));
    });
    const transport = new LeanHttpTransport({ url, headers: { Authorization: 'Bearer upstream' }, sessionId: 'abc', endSessionOnClose: false, modern: true });
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (message) => void received.push(message);
    await transport.send(modernCall('café'), { headers: { 'Mcp-Param-Region': 'eu', 'Mcp-Name': 'other', Authorization: 'Bearer client' } });
    expect(transport.hasPerRequestStream).toBe(true);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } }]);
    expect(seen[0]).toMatchObject({
      authorization: 'Bearer upstream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': `=?base64?${Buffer.from('café').toString('base64')}?=`,
      'mcp-param-region': 'eu',
    });
    expect(seen[0]!['mcp-session-id']).toBeUndefined();
  });

  it("delivers a 2026 refusal's JSON-RPC error as the request's answer, and rejects any other", async () => {
    const url = await serve((response) => {
      response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'Missing required client capability' } }));
    });
    const transport = new LeanHttpTransport({ url, headers: {}, endSessionOnClose: false, modern: true });
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (message) => void received.push(message);
    await transport.send(modernCall('echo', 1));
    expect(received).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'Missing required client capability' } }]);
    // The error of another request is no answer to this one.
    await expect(transport.send(modernCall('echo', 2))).rejects.toThrow(/HTTP 400/);
  });

  it("closes a 2026 request's stream when its signal aborts, and says when a stream ends unanswered", async () => {
    const closedByClient: string[] = [];
    const url = await serve((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 0 } })}\n\n`);
      response.on('close', () => closedByClient.push(response.writableEnded ? 'ended' : 'closed'));
      // The second request's stream ends without an answer.
      if (closedByClient.length > 0) response.end();
    });
    const transport = new LeanHttpTransport({ url, headers: {}, endSessionOnClose: false, modern: true });
    const errors: Error[] = [];
    transport.onerror = (error) => void errors.push(error);
    const progressed = new Promise<void>((resolve) => (transport.onmessage = () => resolve()));
    const stream = new AbortController();
    let ended = 0;
    await transport.send(modernCall('slow', 1), { requestSignal: stream.signal, onRequestStreamEnd: () => (ended += 1) });
    await progressed;
    stream.abort();
    await vi.waitFor(() => expect(closedByClient).toEqual(['closed']));
    expect(ended).toBe(0);

    const unanswered = new Promise<void>((resolve) => transport.send(modernCall('slow', 2), { onRequestStreamEnd: resolve }));
    await unanswered;
    // Neither the client's own abort nor a stream that ended cleanly is an error.
    expect(errors).toEqual([]);
  });

  it('closes the open 2026 streams with the transport', async () => {
    let closed = false;
    const url = await serve((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': open\n\n');
      response.on('close', () => (closed = true));
    });
    const transport = new LeanHttpTransport({ url, headers: {}, endSessionOnClose: false, modern: true });
    const errors: Error[] = [];
    transport.onerror = (error) => void errors.push(error);
    await transport.send(modernCall('listen', 1));
    await transport.close();
    await vi.waitFor(() => expect(closed).toBe(true));
    expect(errors).toEqual([]);
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
