// A client config pasted as it is: servers named "GitHub", "My Notes" and "東京" load, and each
// gets its slug where an alphabet rule applies (tool prefixes, resource URI schemes, metric
// labels, policy patterns), while audit lines, /readyz and errors keep the name as written.
// Through a listening gateway, the official client, and three twin fixtures that answer with
// their own label.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectV2, type TestClient } from '../support/mcp-clients.js';
import { scrapeMetrics } from '../support/metrics-scrape.js';
import { connectModern } from '../support/modern-client.js';
import { stdioFixture } from '../support/upstreams.js';

// The README's rule, written out here rather than imported: a name with nothing left in
// [a-z0-9] after normalization is "server-" and 8 hex digits of SHA-256 of the name.
const TOKYO = '東京';
const TOKYO_SLUG = `server-${createHash('sha256').update(TOKYO, 'utf8').digest('hex').slice(0, 8)}`;

let gateway: TestGateway;
let client: TestClient;

beforeAll(async () => {
  gateway = await startGateway({
    mcpServers: {
      GitHub: stdioFixture('twin-server', { TWIN_LABEL: 'left' }),
      'My Notes': stdioFixture('twin-server', { TWIN_LABEL: 'right' }),
      [TOKYO]: stdioFixture('twin-server', { TWIN_LABEL: 'tokyo' }),
      // Never starts: errors about it must name it as written.
      'Broken Thing': { command: '/nonexistent/switchboard-server-names-test' },
    },
    policy: {
      default: 'allow',
      rules: [
        // One pattern by the config name, one by the slug: both forms name the server.
        { deny: ['GitHub/greet', 'my-notes/link'] },
      ],
    },
  });
  client = await connectV2(gateway.url);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await gateway?.close();
});

const names = (items: unknown) => (items as { name: string }[]).map((item) => item.name).sort();
const text = (result: Record<string, unknown>) => (result.content as { type: string; text?: string }[])[0]?.text;

describe('a config with server names as clients write them', () => {
  it('lists tools and prompts under the normalized prefix, with policy applied by config name and by slug', async () => {
    expect(names((await client.request('tools/list')).tools)).toEqual([
      'github__link',
      'github__whoami',
      'my-notes__whoami',
      `${TOKYO_SLUG}__link`,
      `${TOKYO_SLUG}__whoami`,
    ]);
    expect(names((await client.request('prompts/list')).prompts)).toEqual([
      'github__with_resource',
      'my-notes__greet',
      'my-notes__with_resource',
      `${TOKYO_SLUG}__greet`,
      `${TOKYO_SLUG}__with_resource`,
    ]);
  });

  it('routes a call by the normalized prefix to the upstream it names', async () => {
    expect(text(await client.request('tools/call', { name: 'github__whoami', arguments: {} }))).toBe('left');
    expect(text(await client.request('tools/call', { name: 'my-notes__whoami', arguments: {} }))).toBe('right');
    expect(text(await client.request('tools/call', { name: `${TOKYO_SLUG}__whoami`, arguments: {} }))).toBe('tokyo');
  });

  it('refuses a tool denied by its slug pattern as if it did not exist', async () => {
    await expect(client.request('tools/call', { name: 'my-notes__link', arguments: {} })).rejects.toThrow(/Unknown tool: my-notes__link/);
  });

  it('exposes resource URIs with the slug in the scheme, and reads them back through the gateway', async () => {
    const uris = ((await client.request('resources/list')).resources as { uri: string }[]).map((resource) => resource.uri).sort();
    expect(uris).toEqual(['twin+github://shared/readme', 'twin+my-notes://shared/readme', `twin+${TOKYO_SLUG}://shared/readme`]);
    const templates = ((await client.request('resources/templates/list')).resourceTemplates as { uriTemplate: string }[]).map((t) => t.uriTemplate);
    expect(templates).toContain('twin+my-notes://items/{id}');

    const read = await client.request('resources/read', { uri: 'twin+my-notes://shared/readme' });
    expect(read.contents).toEqual([{ uri: 'twin+my-notes://shared/readme', mimeType: 'text/plain', text: 'readme served by right' }]);
    const item = await client.request('resources/read', { uri: `twin+${TOKYO_SLUG}://items/7` });
    expect(item.contents).toEqual([{ uri: `twin+${TOKYO_SLUG}://items/7`, mimeType: 'text/plain', text: 'item 7 served by tokyo' }]);
  });

  it('hands URIs in tool and prompt results back in the slug form, readable through the gateway', async () => {
    const linked = await client.request('tools/call', { name: 'github__link', arguments: {} });
    const blocks = linked.content as { type: string; uri?: string; resource?: { uri: string } }[];
    expect(blocks.map((block) => block.uri ?? block.resource?.uri)).toEqual(['twin+github://shared/readme', 'twin+github://items/7']);
    const read = await client.request('resources/read', { uri: 'twin+github://items/7' });
    expect((read.contents as { text: string }[])[0]?.text).toBe('item 7 served by left');

    const prompt = await client.request('prompts/get', { name: 'my-notes__with_resource' });
    expect(prompt.messages).toMatchObject([{ content: { type: 'resource', resource: { uri: 'twin+my-notes://shared/readme' } } }]);
  });

  it('labels metrics with the slug, never with the name as written', async () => {
    await client.request('tools/call', { name: 'github__whoami', arguments: {} });
    const scrape = await scrapeMetrics(gateway.url);
    expect(scrape.value('switchboard_rpc_requests_total', { method: 'tools/call', server: 'github', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(scrape.value('switchboard_rpc_requests_total', { method: 'resources/read', server: 'my-notes', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(scrape.value('switchboard_upstream_up', { server: 'github' })).toBe(1);
    expect(scrape.value('switchboard_upstream_up', { server: 'my-notes' })).toBe(1);
    expect(scrape.value('switchboard_upstream_up', { server: TOKYO_SLUG })).toBe(1);
    expect(scrape.value('switchboard_upstream_up', { server: 'broken-thing' })).toBe(0);
    const serverLabels = new Set(scrape.samples.flatMap((sample) => (sample.labels.server === undefined ? [] : [sample.labels.server])));
    expect([...serverLabels].sort()).toEqual(['', 'broken-thing', 'github', 'my-notes', TOKYO_SLUG].sort());
  });

  it('writes audit lines with the server name as written in the config', async () => {
    await client.request('tools/call', { name: 'github__whoami', arguments: {} });
    await client.request('resources/read', { uri: 'twin+my-notes://shared/readme' });
    await client.request('tools/call', { name: `${TOKYO_SLUG}__whoami`, arguments: {} });
    await expect(client.request('tools/call', { name: 'my-notes__link', arguments: {} })).rejects.toThrow();
    const audit = gateway.logs.filter((line) => line.audit === true);
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ method: 'tools/call', server: 'GitHub', name: 'whoami', outcome: 'ok' }),
        expect.objectContaining({ method: 'resources/read', server: 'My Notes', name: 'twin://shared/readme', outcome: 'ok' }),
        expect.objectContaining({ method: 'tools/call', server: TOKYO, name: 'whoami', outcome: 'ok' }),
        expect.objectContaining({ method: 'tools/call', server: 'My Notes', name: 'link', outcome: 'denied' }),
      ]),
    );
    const servers = new Set(audit.map((line) => line.server).filter((server) => server !== undefined));
    expect([...servers].every((server) => ['GitHub', 'My Notes', TOKYO, 'Broken Thing'].includes(String(server)))).toBe(true);
  });

  it('serves the same names to a 2026-07-28 client', async () => {
    const modern = await connectModern(gateway.url);
    try {
      const { tools } = await modern.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['github__whoami', 'my-notes__whoami', `${TOKYO_SLUG}__whoami`]));
      expect(tools.map((tool) => tool.name)).not.toContain('my-notes__link');
      const called = await modern.callTool({ name: 'my-notes__whoami', arguments: {} });
      expect(called.content).toEqual([{ type: 'text', text: 'right' }]);
      const read = await modern.readResource({ uri: 'twin+github://shared/readme' });
      expect(read.contents).toEqual([{ uri: 'twin+github://shared/readme', mimeType: 'text/plain', text: 'readme served by left' }]);
    } finally {
      await modern.close();
    }
  });

  it('reports upstreams in /readyz under the names as written', async () => {
    const response = await fetch(new URL('/readyz', gateway.url));
    const body = (await response.json()) as { upstreams: Record<string, { state: string }> };
    expect(Object.keys(body.upstreams).sort()).toEqual(['Broken Thing', 'GitHub', 'My Notes', TOKYO].sort());
    expect(body.upstreams['My Notes']?.state).toBe('ready');
  });

  it('names an upstream that is down as written, when a call reaches it by its normalized prefix', async () => {
    await expect(client.request('tools/call', { name: 'broken-thing__anything', arguments: {} })).rejects.toThrow(/upstream "Broken Thing"/);
    // And the gateway's own log lines about it carry the same name.
    expect(gateway.logs.some((line) => line.server === 'Broken Thing' && (line.level === 'warn' || line.level === 'error'))).toBe(true);
  });
});
