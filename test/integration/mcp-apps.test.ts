// MCP Apps through the gateway, with the published example servers behind it (server-basic-vanillajs,
// server-system-monitor, and a second basic one as "clock"), for hosts of both eras that declare the
// extension: a tool names its UI by a ui:// URI the host can read through the gateway, which reaches
// the upstream with its own URI; the app's calls of its server's tools by that server's names work
// when one server in the caller's view has the tool, under policy and the endpoint's selection; and
// tool _meta is the upstream's, through a tool override and in search mode.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAppStdio, systemMonitorStdio } from '../support/app-servers.js';
import { exposedUri } from '../support/exposed-uris.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectDirect, type TestClient } from '../support/mcp-clients.js';
import { connectModern } from '../support/modern-client.js';
import { modernServerStdio } from '../support/upstreams.js';
import { rpcFailure } from '../support/rpc-failure.js';

const UI = 'io.modelcontextprotocol/ui';
const HOST_CAPABILITIES = { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } };
const BASIC_APP = 'ui://get-time/mcp-app.html';
const MONITOR_APP = 'ui://system-monitor/mcp-app.html';

let gateway: TestGateway;
type Era = '2025' | '2026';
const hosts = new Map<string, Client>();

beforeAll(async () => {
  gateway = await startGateway({
    mcpServers: {
      basic: basicAppStdio(),
      // A tool override renames the app-only tool: its _meta must stay, and the app's own name work.
      monitor: { ...systemMonitorStdio(), tools: { 'poll-system-stats': { name: 'monitor_poll', title: 'Poll system stats' } } },
      clock: basicAppStdio(),
      modern: modernServerStdio('dual'),
    },
    policy: { default: 'allow', rules: [{ deny: ['modern/echo'] }] },
    endpoints: {
      apps: { path: '/mcp/apps', include: ['basic/*', 'monitor/*'] },
      clocks: { path: '/mcp/clocks', include: ['basic/*', 'clock/*'] },
      find: { path: '/mcp/find', include: ['basic/*', 'monitor/*'], discovery: 'search' },
    },
  });
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([...hosts.values()].map((host) => host.close()));
  await gateway?.close();
});

/** A host of `era` that renders apps, on the endpoint at `path` (one per era and path, kept for the file). */
async function host(era: Era, path = '/mcp'): Promise<Client> {
  const key = `${era} ${path}`;
  let client = hosts.get(key);
  if (!client) {
    const url = new URL(path, gateway.url).toString();
    if (era === '2026') {
      client = await connectModern(url, { capabilities: { ...HOST_CAPABILITIES, extensions: { ...HOST_CAPABILITIES.extensions, 'com.example/not-carried': {} } } });
    } else {
      client = new Client({ name: 'apps-host', version: '1.0.0' }, { capabilities: HOST_CAPABILITIES });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    }
    hosts.set(key, client);
  }
  return client;
}

interface Tool {
  name: string;
  _meta?: Record<string, unknown>;
}

async function toolsOf(client: Client): Promise<Tool[]> {
  return (await client.listTools(undefined, { cacheMode: 'bypass' })).tools as Tool[];
}

/** The upstream's tool _meta with its app URIs exposed under `slug`, as the README says. */
function exposedMeta(meta: Record<string, unknown> | undefined, slug: string): Record<string, unknown> | undefined {
  if (!meta) return meta;
  const copy = structuredClone(meta);
  const ui = copy.ui as { resourceUri?: string } | undefined;
  if (typeof ui?.resourceUri === 'string') ui.resourceUri = exposedUri(slug, ui.resourceUri);
  if (typeof copy['ui/resourceUri'] === 'string') copy['ui/resourceUri'] = exposedUri(slug, copy['ui/resourceUri']);
  return copy;
}

let direct: { basic: TestClient; monitor: TestClient };

beforeAll(async () => {
  direct = { basic: await connectDirect(basicAppStdio()), monitor: await connectDirect(systemMonitorStdio()) };
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([direct?.basic.close(), direct?.monitor.close()]);
});

describe.each(['2025', '2026'] as const)('a %s host that renders apps', (era) => {
  it("sees each tool's _meta as its server gives it, with the UI named by a ui:// URI it can read", async () => {
    const tools = await toolsOf(await host(era));
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const [server, client] of Object.entries(direct)) {
      const own = (await client.request('tools/list')).tools as Tool[];
      for (const tool of own) {
        const exposedName = server === 'monitor' && tool.name === 'poll-system-stats' ? 'monitor_poll' : `${server}__${tool.name}`;
        expect(byName.get(exposedName)?._meta, exposedName).toEqual(exposedMeta(tool._meta, server));
      }
    }
    expect(byName.get('basic__get-time')?._meta).toEqual({ ui: { resourceUri: 'ui://basic/get-time/mcp-app.html' }, 'ui/resourceUri': 'ui://basic/get-time/mcp-app.html' });
    expect(byName.get('clock__get-time')?._meta?.ui).toEqual({ resourceUri: 'ui://clock/get-time/mcp-app.html' });
    // Renamed by an override, the app-only tool keeps its visibility.
    expect(byName.get('monitor_poll')?._meta).toEqual({ ui: { visibility: ['app'] } });
  });

  it('lists the apps under those URIs and reads each from its upstream, by its own URI', async () => {
    const client = await host(era);
    const { resources } = await client.listResources(undefined, { cacheMode: 'bypass' });
    expect(resources.map((resource) => resource.uri)).toEqual(
      expect.arrayContaining(['ui://basic/get-time/mcp-app.html', 'ui://monitor/system-monitor/mcp-app.html', 'ui://clock/get-time/mcp-app.html']),
    );
    for (const [slug, app, upstream] of [['basic', BASIC_APP, direct.basic], ['monitor', MONITOR_APP, direct.monitor]] as const) {
      const tools = await toolsOf(client);
      const named = tools.map((tool) => (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri).find((uri) => uri === exposedUri(slug, app));
      expect(named).toBe(`ui://${slug}/${app.slice('ui://'.length)}`);
      const read = await client.readResource({ uri: named! });
      const own = (await upstream.request('resources/read', { uri: app })) as { contents: Record<string, unknown>[] };
      expect(read.contents).toEqual(own.contents.map((contents) => ({ ...contents, uri: named })));
      expect(read.contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
    }
  });

  it("accepts the app's call of its server's tool by that server's name, audited under the real server and tool", async () => {
    const result = await (await host(era)).callTool({ name: 'poll-system-stats', arguments: {} });
    expect(result.structuredContent).toMatchObject({ cpu: { cores: expect.any(Array) }, memory: { usedPercent: expect.any(Number) } });
    expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, method: 'tools/call', server: 'monitor', name: 'poll-system-stats', outcome: 'ok' }));
  });

  it('refuses a name two servers in its view have, naming both exposed names', async () => {
    const refused = await rpcFailure((await host(era)).callTool({ name: 'get-time', arguments: {} }));
    expect(refused.code).toBe(-32602);
    expect(refused.message).toContain('Ambiguous tool: get-time is a tool of more than one server; call it as basic__get-time or clock__get-time');
  });

  it('answers a call by the name of a tool policy denies as an unknown tool, audited as denied', async () => {
    const refused = await rpcFailure((await host(era)).callTool({ name: 'echo', arguments: { message: 'hi' } }));
    expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: echo') });
    expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, method: 'tools/call', server: 'modern', name: 'echo', outcome: 'denied' }));
  });

  it("cuts names to the endpoint's selection: one server's there is unique, another endpoint's tool unknown", async () => {
    const time = await (await host(era, '/mcp/apps')).callTool({ name: 'get-time', arguments: {} });
    expect(time.structuredContent).toMatchObject({ time: expect.any(String) });
    expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, endpoint: 'apps', server: 'basic', name: 'get-time', outcome: 'ok' }));
    const refused = await rpcFailure((await host(era, '/mcp/clocks')).callTool({ name: 'poll-system-stats', arguments: {} }));
    expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: poll-system-stats') });
  });

  it('in search mode, finds the tool with its app and lets the app call its server tools', async () => {
    const client = await host(era, '/mcp/find');
    const found = await client.callTool({ name: 'find_tools', arguments: { query: 'system information' } });
    const tools = (found.structuredContent as { tools: Tool[] }).tools;
    expect(tools.find((tool) => tool.name === 'monitor__get-system-info')?._meta).toEqual({ ui: { resourceUri: 'ui://monitor/system-monitor/mcp-app.html' }, 'ui/resourceUri': 'ui://monitor/system-monitor/mcp-app.html' });
    const read = await client.readResource({ uri: 'ui://monitor/system-monitor/mcp-app.html' });
    expect(read.contents[0]).toMatchObject({ uri: 'ui://monitor/system-monitor/mcp-app.html', mimeType: 'text/html;profile=mcp-app' });
    const polled = await client.callTool({ name: 'poll-system-stats', arguments: {} });
    expect(polled.structuredContent).toMatchObject({ uptime: { seconds: expect.any(Number) } });
  });
});

it("tells a 2026 upstream each caller's MCP Apps declaration, and no extension the gateway does not carry", async () => {
  const envelopeOf = async (client: Client) => {
    const result = await client.callTool({ name: 'modern__show_envelope', arguments: {} });
    const envelope = JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, { extensions?: unknown } | undefined>;
    return envelope['io.modelcontextprotocol/clientCapabilities'];
  };
  for (const era of ['2025', '2026'] as const) {
    expect((await envelopeOf(await host(era)))?.extensions, era).toEqual(HOST_CAPABILITIES.extensions);
  }
  const plain = new Client({ name: 'plain-client', version: '1.0.0' });
  await plain.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
  try {
    expect((await envelopeOf(plain))?.extensions).toBeUndefined();
  } finally {
    await plain.close();
  }
});

it("reaches a session-isolated server's tool by its own name on a session's first call, before any list", async () => {
  const isolated = await startGateway({ mcpServers: { basic: basicAppStdio(), monitor: { ...systemMonitorStdio(), isolation: 'session' } } });
  const client = new Client({ name: 'apps-host', version: '1.0.0' }, { capabilities: HOST_CAPABILITIES });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(isolated.url)));
    const polled = await client.callTool({ name: 'poll-system-stats', arguments: {} });
    expect(polled.structuredContent).toMatchObject({ memory: { usedPercent: expect.any(Number) } });
    expect(isolated.logs).toContainEqual(expect.objectContaining({ audit: true, server: 'monitor', name: 'poll-system-stats', outcome: 'ok' }));
  } finally {
    await client.close();
    await isolated.close();
  }
}, 60_000);
