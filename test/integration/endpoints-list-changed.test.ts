// list_changed per endpoint: an upstream's tool list changes (our interactive fixture adds a tool),
// and only the sessions and 2026 listens of endpoints whose view changed hear of it.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectModern } from '../support/modern-client.js';
import { connectRecordingClient, type RecordingClient } from '../support/recording-client.js';
import { everythingStdio, stdioFixture } from '../support/upstreams.js';

const CHANGED = 'notifications/tools/list_changed';

let gateway: TestGateway;
const legacy: Record<string, RecordingClient> = {};
const modern: Record<string, { client: Client; changes: number }> = {};
const at = (path: string) => new URL(path, gateway.url).toString();

beforeAll(async () => {
  gateway = await startGateway({
    mcpServers: { everything: everythingStdio(), interactive: stdioFixture('interactive-server') },
    endpoints: {
      echoes: { path: '/mcp/echoes', include: ['everything/echo'] },
      steps: { path: '/mcp/steps', include: ['interactive/*'] },
    },
  });
  for (const [name, path] of [
    ['default', '/mcp'],
    ['echoes', '/mcp/echoes'],
    ['steps', '/mcp/steps'],
  ] as const) {
    legacy[name] = await connectRecordingClient(at(path));
    if (name === 'default') continue;
    const client = await connectModern(at(path));
    const entry = { client, changes: 0 };
    client.setNotificationHandler(CHANGED, () => void (entry.changes += 1));
    await client.listen({ toolsListChanged: true });
    modern[name] = entry;
  }
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([...Object.values(legacy).map((client) => client.close()), ...Object.values(modern).map(({ client }) => client.close())]);
  await gateway?.close();
});

it('is announced on the endpoints whose view changed, and not on one that does not select the changed server', async () => {
  await legacy.default!.client.callTool({ name: 'interactive__add_tool', arguments: { name: 'arrived_here' } });
  await legacy.default!.waitFor(CHANGED, 1, 20_000);
  await legacy.steps!.waitFor(CHANGED, 1, 20_000);
  await expect.poll(() => modern.steps!.changes, { timeout: 20_000 }).toBeGreaterThan(0);
  expect((await modern.steps!.client.listTools(undefined, { cacheMode: 'bypass' })).tools.map((tool) => tool.name)).toContain('interactive__arrived_here');

  // The same announcement reached the others already; a round trip on each makes sure it would have arrived.
  await legacy.echoes!.client.listTools();
  await modern.echoes!.client.listTools(undefined, { cacheMode: 'bypass' });
  expect(legacy.echoes!.received(CHANGED)).toEqual([]);
  expect(modern.echoes!.changes).toBe(0);
});
