// The gateway as a client meets it (the official v2 client over loopback HTTP), in front of an SDK
// server that lives in this process (in-memory-upstream.ts): the quick tier's check that a request
// still travels the whole way, front to upstream and back, in both eras.
import type { Client } from '@modelcontextprotocol/client';
import { McpServer, ProtocolError } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { InMemoryUpstreams } from '../support/in-memory-upstream.js';
import { connectModern } from '../support/modern-client.js';
import { connectRecordingClient, firstText, type RecordingClient } from '../support/recording-client.js';

/** An application-defined code (JSON-RPC leaves -32000..-32099 to servers): the gateway must not swap it. */
const LOCKED_CODE = -32042;

function notesServer(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.registerTool('echo', { description: 'Echoes the message', inputSchema: z.object({ message: z.string() }) }, ({ message }) => ({
    content: [{ type: 'text', text: message }],
  }));
  server.registerPrompt('locked', { description: 'Always refused' }, () => {
    throw new ProtocolError(LOCKED_CODE, 'the notes are locked', { until: 'tomorrow' });
  });
  return server;
}

describe('the gateway in front of an in-memory upstream', () => {
  let upstreams: InMemoryUpstreams;
  let gateway: TestGateway;
  const clients: (RecordingClient | Client)[] = [];

  beforeEach(async () => {
    upstreams = new InMemoryUpstreams({ notes: notesServer });
    gateway = await startGateway({ mcpServers: upstreams.mcpServers }, { upstreamTransports: upstreams.transports });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await gateway?.close();
  });

  async function connect(): Promise<RecordingClient> {
    const client = await connectRecordingClient(gateway.url);
    clients.push(client);
    return client;
  }

  it('lists the upstream tools under the server prefix after initialize', async () => {
    const { client } = await connect();
    expect(client.getServerVersion()?.name).toBe('switchboard');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['notes__echo']);
  });

  it('forwards a tools/call to the upstream and hands back its result', async () => {
    const { client } = await connect();
    expect(firstText(await client.callTool({ name: 'notes__echo', arguments: { message: 'hello' } }))).toBe('hello');
  });

  it("passes an upstream's JSON-RPC error on with its code and data, naming the server", async () => {
    const { client } = await connect();
    const refused = await client.getPrompt({ name: 'notes__locked' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: LOCKED_CODE, data: { until: 'tomorrow' } });
    expect((refused as Error).message).toMatch(/the notes are locked \(from upstream "notes"\)/);
  });

  it('tells the client when the upstream tool list changes', async () => {
    const recording = await connect();
    upstreams.live('notes').registerTool('added', { description: 'Arrived later' }, () => ({ content: [{ type: 'text', text: 'here' }] }));
    await recording.waitFor('notifications/tools/list_changed');
    expect((await recording.client.listTools()).tools.map((tool) => tool.name)).toEqual(['notes__echo', 'notes__added']);
  });

  it('answers a 2026-07-28 tools/call, which carries no session', async () => {
    const client = await connectModern(gateway.url);
    clients.push(client);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(firstText(await client.callTool({ name: 'notes__echo', arguments: { message: 'from the future' } }))).toBe('from the future');
  });
});
