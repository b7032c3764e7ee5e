// One gateway in front of upstreams of both eras at once: server-everything over stdio (2025), the
// modern-server fixture modern-only over stdio and over HTTP, and dual-era over HTTP (which the
// gateway, negotiating, meets as modern). 2025 clients (the official v1 and v2 SDKs, in the 2025
// era) see every upstream alike: the same lists and answers as the upstreams give, progress, log
// messages, list changes and resource updates, whichever era the upstream speaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { exposedUri } from '../support/exposed-uris.js';
import { connect, connectDirect, type SdkGeneration, type TestClient } from '../support/mcp-clients.js';
import { listAll } from '../support/paging.js';
import { connectRecordingClient, firstText, type RecordingClient } from '../support/recording-client.js';
import { everythingStdio, modernServerStdio, startModernServerHttp, type HttpUpstream } from '../support/upstreams.js';

const POLL = { timeout: 30_000, interval: 100 };
const MODERN = ['mstdio', 'mhttp', 'dual'] as const;
const ALL = ['everything', ...MODERN] as const;
type Server = (typeof ALL)[number];

const LISTS = [
  { method: 'tools/list', key: 'tools', id: 'name' },
  { method: 'prompts/list', key: 'prompts', id: 'name' },
  { method: 'resources/list', key: 'resources', id: 'uri' },
  { method: 'resources/templates/list', key: 'resourceTemplates', id: 'uriTemplate' },
] as const;

/** An upstream's list item as the gateway exposes it (README: names prefixed, URIs rewritten). */
function exposed(server: Server, key: (typeof LISTS)[number]['key'], item: Record<string, unknown>): Record<string, unknown> {
  switch (key) {
    case 'tools':
    case 'prompts':
      return { ...item, name: `${server}__${String(item.name)}` };
    case 'resources':
      return { ...item, uri: exposedUri(server, String(item.uri)) };
    case 'resourceTemplates':
      return { ...item, uriTemplate: exposedUri(server, String(item.uriTemplate)) };
  }
}

function belongsTo(server: Server, item: Record<string, unknown>): boolean {
  const name = item.name;
  const uri = item.uri ?? item.uriTemplate;
  if (typeof uri === 'string') return uri.includes(`+${server}:`);
  return typeof name === 'string' && name.startsWith(`${server}__`);
}

/** server-everything lists per-session resources, which two sessions never share. */
function isSameInEverySession(item: Record<string, unknown>): boolean {
  return !String(item.uri ?? '').includes('/resource/session/');
}

function byId(id: string) {
  return (a: Record<string, unknown>, b: Record<string, unknown>) => String(a[id]).localeCompare(String(b[id]));
}

describe('a gateway fronting upstreams of both eras', () => {
  let modernHttp: HttpUpstream;
  let dualHttp: HttpUpstream;
  let gateway: TestGateway;
  const direct = new Map<Server, TestClient>();

  beforeAll(async () => {
    [modernHttp, dualHttp] = await Promise.all([startModernServerHttp('modern'), startModernServerHttp('dual')]);
    const specs = { everything: everythingStdio(), mstdio: modernServerStdio('modern'), mhttp: { url: modernHttp.url }, dual: { url: dualHttp.url } };
    gateway = await startGateway({ mcpServers: specs });
    for (const server of ALL) direct.set(server, await connectDirect(specs[server], { negotiate: server !== 'everything' }));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...direct.values()].map((client) => client.close()));
    await gateway?.close();
    await Promise.all([modernHttp?.stop(), dualHttp?.stop()]);
  });

  it("shows each upstream's negotiated protocol version in /readyz", async () => {
    const readyz = async () => (await (await fetch(new URL('/readyz', gateway.url))).json()) as { upstreams: Record<Server, Record<string, unknown>> };
    // The gateway starts serving once each upstream's first attempt ended; a failed one retries.
    await expect.poll(async () => Object.values((await readyz()).upstreams).map((upstream) => upstream.state), POLL).toEqual(['ready', 'ready', 'ready', 'ready']);
    expect((await readyz()).upstreams).toEqual({
      everything: expect.objectContaining({ state: 'ready', transport: 'stdio', protocolVersion: expect.stringMatching(/^2025-\d\d-\d\d$/) }),
      mstdio: expect.objectContaining({ state: 'ready', transport: 'stdio', protocolVersion: '2026-07-28' }),
      mhttp: expect.objectContaining({ state: 'ready', transport: 'streamable-http', protocolVersion: '2026-07-28' }),
      dual: expect.objectContaining({ state: 'ready', transport: 'streamable-http', protocolVersion: '2026-07-28' }),
    });
    for (const server of ALL) {
      const era = server === 'everything' ? 'legacy' : 'modern';
      expect(gateway.logs).toContainEqual(expect.objectContaining({ server, era, msg: 'upstream connected' }));
    }
  });

  describe.each(['v1', 'v2'] as const)('to a 2025 client of the %s SDK', (generation: SdkGeneration) => {
    let client: TestClient;
    beforeAll(async () => {
      client = await connect(generation, gateway.url);
    });
    afterAll(async () => client?.close());

    it('lists tools, prompts, resources and templates as each upstream does, namespaced', async () => {
      for (const { method, key, id } of LISTS) {
        const viaGateway = (await listAll(client, method, key)).filter(isSameInEverySession);
        for (const server of ALL) {
          const own = (await listAll(direct.get(server)!, method, key)).filter(isSameInEverySession);
          const expected = own.map((item) => exposed(server, key, item)).sort(byId(id));
          expect(expected.length, `${server} ${method} is not empty`).toBeGreaterThan(0);
          expect(viaGateway.filter((item) => belongsTo(server, item)).sort(byId(id)), `${server} ${method}`).toEqual(expected);
        }
      }
    });

    it.each(ALL)('calls echo on %s, reads one of its resources and gets one of its prompts', async (server) => {
      const called = await client.request('tools/call', { name: `${server}__echo`, arguments: { message: `hello ${server}` } });
      expect(JSON.stringify(called.content)).toContain(`hello ${server}`);
      // To a 2025 session the server is the gateway: a 2026 upstream's own name stays behind.
      expect(JSON.stringify(called)).not.toContain('io.modelcontextprotocol/serverInfo');

      const [resource] = await listAll(direct.get(server)!, 'resources/list', 'resources');
      const uri = exposedUri(server, String(resource!.uri));
      const read = await client.request('resources/read', { uri });
      const upstreamRead = await direct.get(server)!.request('resources/read', { uri: resource!.uri });
      expect((read.contents as Record<string, unknown>[])[0]).toMatchObject({ uri });
      expect((read.contents as Record<string, unknown>[]).map(({ uri: _uri, ...rest }) => rest)).toEqual(
        (upstreamRead.contents as Record<string, unknown>[]).map(({ uri: _uri, ...rest }) => rest),
      );

      const prompt = server === 'everything' ? { name: 'simple-prompt', arguments: {} } : { name: 'greet', arguments: { name: 'Ada' } };
      const got = await client.request('prompts/get', { ...prompt, name: `${server}__${prompt.name}` });
      expect(got.messages).toEqual((await direct.get(server)!.request('prompts/get', prompt)).messages);
    });
  });

  describe('to a 2025 client that listens', () => {
    let listener: RecordingClient;
    beforeAll(async () => {
      listener = await connectRecordingClient(gateway.url);
    });
    afterAll(async () => listener?.close());

    it.each(MODERN)('relays progress and log messages of a call to %s', async (server) => {
      await listener.client.setLoggingLevel('info');
      listener.notifications.length = 0;
      const updates: unknown[] = [];
      const progress = await listener.client.callTool({ name: `${server}__progress`, arguments: { steps: 3 } }, { onprogress: (update) => updates.push(update) });
      expect(firstText(progress)).toBe('3 steps done');
      expect(updates).toEqual([1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` })));

      const logged = await listener.client.callTool({ name: `${server}__log_levels`, arguments: {} });
      expect(firstText(logged)).toBe('logged');
      const messages = await listener.waitFor('notifications/message', 4);
      expect(messages.map((message) => message.params)).toEqual(
        ['info', 'notice', 'warning', 'error'].map((level) => expect.objectContaining({ level, data: `a ${level} message` })),
      );
    });

    it.each(MODERN)('hears tools/list_changed after add_tool on %s, and lists the new tool', async (server) => {
      const before = listener.received('notifications/tools/list_changed').length;
      await listener.client.callTool({ name: `${server}__add_tool`, arguments: { name: `added_on_${server}` } });
      await listener.waitFor('notifications/tools/list_changed', before + 1);
      const { tools } = await listener.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain(`${server}__added_on_${server}`);
      const added = await listener.client.callTool({ name: `${server}__added_on_${server}`, arguments: {} });
      expect(firstText(added)).toBe(`added_on_${server} answers`);
    });

    it.each(MODERN)('gets resources/updated for a subscribed resource of %s after it changes', async (server) => {
      const uri = exposedUri(server, 'note://current');
      await listener.client.subscribeResource({ uri });
      const before = listener.received('notifications/resources/updated').length;
      await listener.client.callTool({ name: `${server}__set_note`, arguments: { text: `changed on ${server}` } });
      const updates = await listener.waitFor('notifications/resources/updated', before + 1);
      expect(updates.at(-1)?.params).toEqual({ uri });
      const read = await listener.client.readResource({ uri });
      expect(read.contents).toEqual([{ uri, mimeType: 'text/plain', text: `changed on ${server}` }]);
      await listener.client.unsubscribeResource({ uri });
    });
  });
});
