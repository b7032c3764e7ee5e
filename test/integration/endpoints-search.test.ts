// Search mode (`discovery: search`): an endpoint in front of 500 tools of one upstream and
// server-everything's tools lists only find_tools and call_tool; clients of both eras find the
// right tool by a query and call it, under policy, with the audit line and metrics of a direct call;
// a direct call of a tool of the view works too (MCP Apps call their server's tools so).
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { metricValue } from '../support/metrics-scrape.js';
import { connectModern } from '../support/modern-client.js';
import { everythingStdio } from '../support/upstreams.js';

const MANY_TOOLS = fileURLToPath(new URL('../fixtures/many-tools.mjs', import.meta.url));
const SEARCH = '/mcp/find';

let gateway: TestGateway;
const clients: Record<'2025' | '2026', Client> = {} as Record<'2025' | '2026', Client>;

beforeAll(async () => {
  gateway = await startGateway({
    mcpServers: {
      everything: everythingStdio(),
      many: { command: process.execPath, args: [MANY_TOOLS], env: { TOOL_COUNT: '500' } },
    },
    // No `when`: applies to every caller (auth is off here).
    policy: { default: 'allow', rules: [{ deny: ['everything/get-env'] }] },
    endpoints: { finder: { path: SEARCH, discovery: 'search' } },
  });
  const url = new URL(SEARCH, gateway.url);
  const legacy = new Client({ name: 'search-test', version: '1.0.0' });
  await legacy.connect(new StreamableHTTPClientTransport(url));
  clients['2025'] = legacy;
  clients['2026'] = await connectModern(url.toString());
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(Object.values(clients).map((client) => client.close()));
  await gateway?.close();
});

interface Found {
  name: string;
  description?: string;
  inputSchema: { properties?: Record<string, unknown> };
}

async function find(client: Client, query: string, limit?: number): Promise<Found[]> {
  const result = await client.callTool({ name: 'find_tools', arguments: { query, ...(limit !== undefined && { limit }) } });
  return (result.structuredContent as { tools: Found[] }).tools;
}

const textOf = (result: unknown) => ((result as { content: { text?: string }[] }).content ?? []).map((block) => block.text ?? '').join(' ');

describe.each(['2025', '2026'] as const)('a %s client on an endpoint in search mode', (era) => {
  it('is offered only find_tools and call_tool', async () => {
    const { tools } = await clients[era].listTools(undefined, { cacheMode: 'bypass' });
    expect(tools.map((tool) => tool.name).sort()).toEqual(['call_tool', 'find_tools']);
  });

  it('finds the right tool among 500, with its description and input schema', async () => {
    const found = await find(clients[era], 'sum of two numbers', 5);
    expect(found.length).toBeLessThanOrEqual(5);
    expect(found[0]).toMatchObject({ name: 'everything__get-sum', description: 'Returns the sum of two numbers' });
    expect(Object.keys(found[0]!.inputSchema.properties ?? {})).toEqual(['a', 'b']);
    expect((await find(clients[era], 'filler tool number 321'))[0]?.name).toBe('many__tool_321');
  });

  it('calls a found tool by name, audited and counted as a direct call on this endpoint', async () => {
    const before = await metricValue(gateway.url, 'switchboard_rpc_requests_total', { method: 'tools/call', server: 'everything', outcome: 'ok', mcp_endpoint: 'finder' });
    const result = await clients[era].callTool({ name: 'call_tool', arguments: { name: 'everything__get-sum', arguments: { a: 2, b: 3 } } });
    expect(textOf(result)).toContain('5');
    const after = await metricValue(gateway.url, 'switchboard_rpc_requests_total', { method: 'tools/call', server: 'everything', outcome: 'ok', mcp_endpoint: 'finder' });
    expect(after).toBe(before + 1);
    expect(gateway.logs).toContainEqual(
      expect.objectContaining({ audit: true, endpoint: 'finder', method: 'tools/call', server: 'everything', name: 'get-sum', outcome: 'ok', ...(era === '2026' && { era: '2026' }) }),
    );
  });

  it('neither finds nor calls a tool that policy denies, answering the call as an unknown tool and auditing it as denied', async () => {
    const found = await find(clients[era], 'environment variables', 50);
    expect(found.map((tool) => tool.name)).not.toContain('everything__get-env');
    await expect(clients[era].callTool({ name: 'call_tool', arguments: { name: 'everything__get-env', arguments: {} } })).rejects.toThrow(
      /Unknown tool: everything__get-env/,
    );
    expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, endpoint: 'finder', method: 'tools/call', server: 'everything', name: 'get-env', outcome: 'denied' }));
  });

  it('accepts a direct call of a tool of its view, as an MCP App calls its server tools, and answers one policy denies as unknown', async () => {
    expect(textOf(await clients[era].callTool({ name: 'everything__get-sum', arguments: { a: 1, b: 1 } }))).toContain('2');
    expect(textOf(await clients[era].callTool({ name: 'get-sum', arguments: { a: 2, b: 2 } }))).toContain('4');
    await expect(clients[era].callTool({ name: 'everything__get-env', arguments: {} })).rejects.toThrow(/Unknown tool: everything__get-env/);
    await expect(clients[era].callTool({ name: 'get-env', arguments: {} })).rejects.toThrow(/Unknown tool: get-env/);
  });
});

it('leaves server.path listing the tools themselves', async () => {
  const client = new Client({ name: 'search-test-default', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('everything__get-sum');
    expect(tools.map((tool) => tool.name)).not.toContain('find_tools');
  } finally {
    await client.close();
  }
});
