// Exposed names fit namespace.maxNameLength (default 48), so that a client that puts its own server
// key in front (Mastra, LangChain) stays within the 64 characters function-calling APIs accept. A
// name that does not fit is cut and given a hash of (server, upstream name): the same on every
// replica and every restart, and calls through it reach the upstream's tool. Real gateways over
// loopback HTTP, the official v2 client, upstreams in this process (in-memory-upstream.ts).
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { serverSlug } from '../../src/config/server-names.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { InMemoryUpstreams } from '../support/in-memory-upstream.js';
import { connectModern } from '../support/modern-client.js';
import { connectRecordingClient, firstText } from '../support/recording-client.js';

const LONG_SERVER = 'Customer Relationship Management (production)';
const LONG_SLUG = serverSlug(LONG_SERVER);
const TOOLS = [
  'ping',
  'search_customer_accounts_by_region_and_status',
  // Two names alike for longer than any cut keeps: only their hashes tell them apart.
  'export_quarterly_revenue_report_for_every_region_north',
  'export_quarterly_revenue_report_for_every_region_south',
];
/** On server "crm": 51 characters prefixed, so a name 64 allowed that 48 does not. */
const MIDDLING_TOOL = 'summarize_the_latest_interactions_with_a_contact';
const LONG_PROMPT = 'draft_a_follow_up_email_after_a_customer_support_call';

// Each tool answers with its own upstream name, so a call shows which tool it reached.
function crmServer(name: string, tools: readonly string[]): () => McpServer {
  return () => {
    const server = new McpServer({ name, version: '1.0.0' });
    for (const tool of tools) server.registerTool(tool, { description: `The ${tool} tool` }, () => ({ content: [{ type: 'text', text: tool }] }));
    server.registerPrompt(LONG_PROMPT, { description: 'A prompt with a long name' }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: LONG_PROMPT } }],
    }));
    return server;
  };
}

const upstreams = new InMemoryUpstreams({ [LONG_SERVER]: crmServer('long', TOOLS), crm: crmServer('crm', [MIDDLING_TOOL]) });

async function namesOf(gateway: TestGateway): Promise<{ tools: string[]; prompts: string[] }> {
  const { client } = await connectRecordingClient(gateway.url);
  try {
    return { tools: (await client.listTools()).tools.map((tool) => tool.name), prompts: (await client.listPrompts()).prompts.map((prompt) => prompt.name) };
  } finally {
    await client.close();
  }
}

/** The rule as the guide writes it (docs/guides/adding-servers.md), written out rather than imported. */
function shortened(server: string, prefix: string, name: string, max: number): string {
  const hash = createHash('sha256').update(`${server}\u0000${name}`).digest('hex').slice(0, 8);
  return `${`${prefix}__${name}`.slice(0, max - 9)}_${hash}`;
}

describe('exposed names with the default maximum of 48', () => {
  const config: ConfigInput = { mcpServers: upstreams.mcpServers };
  let replicas: TestGateway[];

  beforeAll(async () => {
    replicas = await Promise.all([startGateway(config, { upstreamTransports: upstreams.transports }), startGateway(config, { upstreamTransports: upstreams.transports })]);
  });
  afterAll(async () => {
    await Promise.allSettled(replicas.map((gateway) => gateway.close()));
  });

  it('are never longer than 48, tools within the function-name alphabet, and all different', async () => {
    const { tools, prompts } = await namesOf(replicas[0]!);
    expect(tools).toHaveLength(TOOLS.length + 1);
    for (const name of [...tools, ...prompts]) expect(name.length).toBeLessThanOrEqual(48);
    for (const name of tools) expect(name).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(new Set(tools).size).toBe(tools.length);
    expect(new Set(prompts).size).toBe(prompts.length);
  });

  it('keep a name that fits, and cut one that does not to 39 characters, "_" and 8 of its hash', async () => {
    const { tools, prompts } = await namesOf(replicas[0]!);
    expect(tools).toContain(`${LONG_SLUG}__ping`);
    for (const tool of TOOLS.slice(1)) expect(tools).toContain(shortened(LONG_SERVER, LONG_SLUG, tool, 48));
    // Fitted 64, not 48: rewritten now.
    expect(tools).toContain(shortened('crm', 'crm', MIDDLING_TOOL, 48));
    expect(prompts).toContain(shortened('crm', 'crm', LONG_PROMPT, 48));
  });

  it('are the same on every replica of the same config', async () => {
    const [first, second] = await Promise.all(replicas.map(namesOf));
    expect(second).toEqual(first);
  });

  it('reach the upstream tool and prompt they stand for, on either replica, in both eras', async () => {
    for (const gateway of replicas) {
      const { client } = await connectRecordingClient(gateway.url);
      const modern: Client = await connectModern(gateway.url);
      try {
        for (const tool of TOOLS.slice(1)) {
          const name = shortened(LONG_SERVER, LONG_SLUG, tool, 48);
          expect(firstText(await client.callTool({ name, arguments: {} }))).toBe(tool);
          expect(firstText(await modern.callTool({ name, arguments: {} }))).toBe(tool);
        }
        const prompt = await client.getPrompt({ name: shortened('crm', 'crm', LONG_PROMPT, 48) });
        expect(prompt.messages[0]?.content).toMatchObject({ text: LONG_PROMPT });
      } finally {
        await Promise.allSettled([client.close(), modern.close()]);
      }
    }
  });
});

describe('exposed names with namespace.maxNameLength set', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway({ namespace: { maxNameLength: 30 }, mcpServers: upstreams.mcpServers }, { upstreamTransports: upstreams.transports });
  });
  afterAll(async () => gateway?.close());

  it('are never longer than the maximum, and a call through a cut name still works', async () => {
    const { tools, prompts } = await namesOf(gateway);
    for (const name of [...tools, ...prompts]) expect(name.length).toBeLessThanOrEqual(30);
    const name = shortened('crm', 'crm', MIDDLING_TOOL, 30);
    expect(tools).toContain(name);
    const { client } = await connectRecordingClient(gateway.url);
    try {
      expect(firstText(await client.callTool({ name, arguments: {} }))).toBe(MIDDLING_TOOL);
    } finally {
      await client.close();
    }
  });
});
