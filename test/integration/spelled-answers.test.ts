// The gateway relays an upstream's result from the text it came in, when it can tell that text for
// certain (src/protocol/result-text.ts), and serializes the parsed result otherwise. Either way a
// client must get what the answer means: here a hand-written stdio server (spelled-answers-server)
// answers in the SDKs' member orders, with whitespace, with members repeated plainly or behind a
// \u escape, with a member JSON-RPC does not have, with numbers spelled unusually and with a large
// result, over stdio and over HTTP (as a JSON body and as an event); 2025 sessions (the official v2
// client) and 2026 requests (the v2 client pinned to 2026-07-28) call each tool through one
// gateway, and raw HTTP shows the responses' own text.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectV2, type TestClient } from '../support/mcp-clients.js';
import { connectModern } from '../support/modern-client.js';
import { modernPost, modernRequest } from '../support/modern-http.js';
import { MCP_ACCEPT, openSession } from '../support/raw-http.js';
import { startHttpFixture, stdioFixture, type HttpUpstream } from '../support/upstreams.js';

let gateway: TestGateway;
let overJson: HttpUpstream;
let overEvents: HttpUpstream;
let legacy: TestClient;
let modern: Client;

beforeAll(async () => {
  overJson = await startHttpFixture('spelled-answers-server');
  overEvents = await startHttpFixture('spelled-answers-server', { ANSWER_AS: 'sse' });
  gateway = await startGateway({
    mcpServers: { stdio: stdioFixture('spelled-answers-server'), json: { url: overJson.url }, events: { url: overEvents.url } },
  });
  legacy = await connectV2(gateway.url);
  modern = await connectModern(gateway.url);
}, 60_000);

afterAll(async () => {
  await legacy?.close();
  await modern?.close();
  await gateway?.close();
  await overJson?.stop();
  await overEvents?.stop();
});

const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;

/** What each tool's answer means, whatever its spelling. */
const MEANT: Record<string, (result: Record<string, unknown>) => void> = {
  ts_order: (result) => expect(textOf(result)).toBe('ts order: hi'),
  python_order: (result) => expect(textOf(result)).toBe('python order: hi'),
  spaced: (result) => expect(textOf(result)).toBe('spaced'),
  // A repeated member means its last value (as JSON.parse reads it), whether or not its name is escaped.
  repeated_result: (result) => expect(textOf(result)).toBe('last'),
  escaped_result: (result) => expect(textOf(result)).toBe('last'),
  repeated_id: (result) => expect(textOf(result)).toBe('answered'),
  repeated_version: (result) => expect(textOf(result)).toBe('answered'),
  extra_member: (result) => expect(textOf(result)).toBe('answered'),
  numbers: (result) => expect(result.structuredContent).toEqual({ price: 1.5, count: 2000 }),
  nested_names: (result) => expect(result.structuredContent).toEqual({ id: 7, result: { jsonrpc: '2.0' } }),
  large: (result) => expect(textOf(result)).toBe('large '.repeat(40_000)),
};

type Era = '2025' | '2026';
/** The same server over stdio, and over HTTP answering with a JSON body or with an event. */
type Server = 'stdio' | 'json' | 'events';
const CASES: readonly [Era, Server][] = (['2025', '2026'] as const).flatMap((era) => (['stdio', 'json', 'events'] as const).map((server): [Era, Server] => [era, server]));

function call(era: Era, server: Server, tool: string, message = 'hi'): Promise<Record<string, unknown>> {
  const params = { name: `${server}__${tool}`, arguments: { message } };
  return era === '2025' ? legacy.request('tools/call', params) : (modern.callTool(params) as Promise<Record<string, unknown>>);
}

/** A tools/call's HTTP response as text, in the era's own way. */
async function responseText(era: Era, server: Server, tool: string, id: number): Promise<string> {
  const params = { name: `${server}__${tool}`, arguments: { message: 'hi' } };
  if (era === '2026') {
    const request = { ...modernRequest('tools/call', params), id };
    const response = await modernPost(gateway.url, request);
    expect(response.status).toBe(200);
    return response.text;
  }
  const { sessionId } = await openSession(gateway.url);
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return response.text();
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe.each(CASES)('answers as spelled by the upstream, to a %s client, from a server over %s', (era, server) => {
  it.each(Object.keys(MEANT))('%s: the client gets what the answer means', async (tool) => {
    MEANT[tool]!(await call(era, server, tool));
  });

  it('a response carries the client\'s id once, and nothing of the answer but its result', async () => {
    for (const tool of ['repeated_id', 'repeated_version', 'extra_member', 'repeated_result', 'escaped_result']) {
      const text = await responseText(era, server, tool, 4242);
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['id', 'jsonrpc', 'result']);
      expect(body.id).toBe(4242);
      expect(body.jsonrpc).toBe('2.0');
      expect(occurrences(text, '"id":')).toBe(1);
      expect(occurrences(text, '"jsonrpc":')).toBe(1);
      expect(occurrences(text, '"result":')).toBe(1);
      expect(text).not.toContain('"note"');
      expect(text).not.toContain('first');
    }
  });

  it('a result relayed from its text is the upstream\'s own, numbers as it spelled them', async () => {
    const text = await responseText(era, server, 'numbers', 7);
    expect(text).toContain('"price":1.50,"count":2E3');
  });

  it('fifty calls at once each get their own result', async () => {
    const messages = Array.from({ length: 50 }, (_, index) => `call ${index}`);
    const results = await Promise.all(messages.map((message, index) => call(era, server, index % 2 === 0 ? 'ts_order' : 'python_order', message)));
    expect(results.map(textOf)).toEqual(messages.map((message, index) => `${index % 2 === 0 ? 'ts' : 'python'} order: ${message}`));
  });
});
