// What an upstream that adapts its tools to its client's MCP Apps support (as ext-apps' servers may,
// with getUiCapability) is told through the gateway, in front of an SDK server in this process
// (in-memory-upstream.ts): the extension, which the gateway passes on to its clients, and no
// extension it does not carry; and what the gateway announces to its own clients.
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { InMemoryUpstreams } from '../support/in-memory-upstream.js';
import { connectModern } from '../support/modern-client.js';
import { connectRecordingClient, firstText } from '../support/recording-client.js';

const UI = 'io.modelcontextprotocol/ui';
const UI_SETTINGS = { mimeTypes: ['text/html;profile=mcp-app'] };

/** A server whose one tool says which extensions its client declared: per request in 2026, else at initialize. */
function adaptingServer(): McpServer {
  const server = new McpServer({ name: 'adapting', version: '1.0.0' }, { capabilities: { tools: {}, extensions: { [UI]: {} } } });
  server.registerTool('client_extensions', { description: 'The extensions the client declared' }, (ctx) => {
    const envelope = ctx.mcpReq.envelope as { clientCapabilities?: { extensions?: unknown } } | undefined;
    const declared = envelope?.clientCapabilities ?? server.server.getClientCapabilities();
    return { content: [{ type: 'text', text: JSON.stringify(declared?.extensions ?? null) }] };
  });
  return server;
}

describe('the MCP Apps extension through the gateway', () => {
  let gateway: TestGateway;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const upstreams = new InMemoryUpstreams({ adapting: adaptingServer });
    gateway = await startGateway({ mcpServers: upstreams.mcpServers }, { upstreamTransports: upstreams.transports });
  });

  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
    await gateway?.close();
  });

  it('is announced to a 2025 client when an upstream announces it', async () => {
    const { client } = await connectRecordingClient(gateway.url);
    closers.push(() => client.close());
    expect(client.getServerCapabilities()?.extensions).toEqual({ [UI]: {} });
  });

  // This upstream speaks 2025 (initialize): its one connection serves every session, so it is told
  // the gateway's own declaration, whatever each client declared (a 2026 upstream is told each
  // caller's, in test/integration/mcp-apps.test.ts).
  it("reaches a 2025 upstream as the gateway's own declaration, without the extensions it does not carry", async () => {
    const client = await connectModern(gateway.url, { capabilities: { extensions: { [UI]: { ...UI_SETTINGS, from: 'client' }, 'com.example/other': {} } } });
    closers.push(() => client.close());
    const told = JSON.parse(firstText(await client.callTool({ name: 'adapting__client_extensions', arguments: {} }))) as Record<string, unknown>;
    expect(told).toEqual({ [UI]: UI_SETTINGS });
  });
});
