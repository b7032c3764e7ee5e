// Every cell of the eras matrix through one gateway: clients of both eras (the v2 client pinned to
// 2026-07-28 and negotiating with `auto`, the v2 client in its default 2025 mode, the v1 SDK
// client) against upstreams of both eras at once (server-everything over stdio and our interactive
// fixture over HTTP, both 2025; the 2026 fixture dual-era over HTTP, and 2026-only over HTTP and
// over stdio). Lists and calls equal the upstreams' own answers; sampling, elicitation and roots
// are answered by each client's own handlers across each bridge; progress, per-request logging and
// cancellation reach the right request; list changes and resource updates reach 2026 listens and
// 2025 GET streams alike.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectDirect, type TestClient } from '../support/mcp-clients.js';
import { connectModern } from '../support/modern-client.js';
import { everythingStdio, modernServerStdio, startHttpFixture, startModernServerHttp, type HttpUpstream } from '../support/upstreams.js';

const SAMPLED = 'sampled by this client';
const ELICITED = 'elicited from this client';
const ROOT = 'file:///matrix/root';
const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';

/** What a test needs of a client, whichever SDK and era. */
interface EraClient {
  readonly era: '2025' | '2026';
  callTool(name: string, args: Record<string, unknown>, options?: { onprogress?: () => void; signal?: AbortSignal; logLevel?: string }): Promise<string>;
  listTools(): Promise<{ name: string; description?: string }[]>;
  readonly logs: string[];
  readonly toolChanges: number[];
  readonly updates: string[];
  /** Subscribes to list changes (and to `uris`' updates): a listen for 2026, the GET stream and resources/subscribe for 2025. */
  watch(uris: string[]): Promise<void>;
  close(): Promise<void>;
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join(' ');
}

async function modernClient(url: string, negotiation: 'pin' | 'auto'): Promise<EraClient> {
  const client = await connectModern(url, { negotiation });
  // The handlers of connectModern answer with their own texts; these tests want this file's.
  client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant' as const, content: { type: 'text' as const, text: SAMPLED }, model: 'm' }));
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept' as const, content: { answer: ELICITED } }));
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: ROOT, name: 'root' }] }));
  const logs: string[] = [];
  const toolChanges: number[] = [];
  const updates: string[] = [];
  client.setNotificationHandler('notifications/message', (notification) => void logs.push(String(notification.params.level)));
  client.setNotificationHandler('notifications/tools/list_changed', () => void toolChanges.push(Date.now()));
  client.setNotificationHandler('notifications/resources/updated', (notification) => void updates.push(notification.params.uri));
  const subscriptions: { close(): Promise<void> }[] = [];
  return {
    era: client.getProtocolEra() === 'modern' ? '2026' : '2025',
    async callTool(name, args, options = {}) {
      const result = await client.callTool(
        { name, arguments: args, ...(options.logLevel && { _meta: { [LOG_LEVEL_META]: options.logLevel } }) },
        { ...(options.onprogress && { onprogress: options.onprogress }), ...(options.signal && { signal: options.signal }) },
      );
      return textOf(result);
    },
    listTools: async () => (await client.listTools(undefined, { cacheMode: 'bypass' })).tools,
    logs,
    toolChanges,
    updates,
    async watch(uris) {
      subscriptions.push(await client.listen({ toolsListChanged: true, resourceSubscriptions: uris }));
    },
    async close() {
      await Promise.all(subscriptions.map((subscription) => subscription.close()));
      await client.close();
    },
  };
}

async function legacyV2Client(url: string): Promise<EraClient> {
  const client = new ClientV2({ name: 'matrix-2025-v2', version: '1' }, { capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} } });
  client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant' as const, content: { type: 'text' as const, text: SAMPLED }, model: 'm' }));
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept' as const, content: { answer: ELICITED } }));
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: ROOT, name: 'root' }] }));
  const logs: string[] = [];
  const toolChanges: number[] = [];
  const updates: string[] = [];
  client.setNotificationHandler('notifications/message', (notification) => void logs.push(String(notification.params.level)));
  client.setNotificationHandler('notifications/tools/list_changed', () => void toolChanges.push(Date.now()));
  client.setNotificationHandler('notifications/resources/updated', (notification) => void updates.push(notification.params.uri));
  const transport = new HttpV2(new URL(url));
  await client.connect(transport);
  await client.setLoggingLevel('warning');
  return {
    era: '2025',
    async callTool(name, args, options = {}) {
      return textOf(
        await client.callTool({ name, arguments: args }, { ...(options.onprogress && { onprogress: options.onprogress }), ...(options.signal && { signal: options.signal }) }),
      );
    },
    listTools: async () => (await client.listTools()).tools,
    logs,
    toolChanges,
    updates,
    async watch(uris) {
      // The client opens its GET stream by itself after initialize; subscriptions go through the session.
      for (const uri of uris) await client.subscribeResource({ uri });
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

async function legacyV1Client(url: string): Promise<EraClient> {
  const client = new ClientV1({ name: 'matrix-2025-v1', version: '1' }, { capabilities: { sampling: {}, elicitation: {}, roots: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: SAMPLED }, model: 'm' }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { answer: ELICITED } }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: ROOT, name: 'root' }] }));
  const logs: string[] = [];
  const toolChanges: number[] = [];
  const updates: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(String(notification.params.level)));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolChanges.push(Date.now()));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
  const transport = new HttpV1(new URL(url));
  await client.connect(transport);
  await client.setLoggingLevel('warning');
  return {
    era: '2025',
    async callTool(name, args, options = {}) {
      return textOf(
        await client.callTool({ name, arguments: args }, undefined, {
          ...(options.onprogress && { onprogress: options.onprogress }),
          ...(options.signal && { signal: options.signal }),
        }),
      );
    },
    listTools: async () => (await client.listTools()).tools,
    logs,
    toolChanges,
    updates,
    async watch(uris) {
      for (const uri of uris) await client.subscribeResource({ uri });
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

const CLIENTS = {
  '2026 client (v2, pinned)': (url: string) => modernClient(url, 'pin'),
  '2026 client (v2, auto)': (url: string) => modernClient(url, 'auto'),
  '2025 client (v2)': legacyV2Client,
  '2025 client (v1)': legacyV1Client,
} as const;
type ClientKind = keyof typeof CLIENTS;

/** The interactive upstreams: a 2025 one (the interactive fixture) and the 2026 fixture in each form. */
const INTERACTIVE = ['legacy', 'dual', 'modern', 'modernio'] as const;
type Interactive = (typeof INTERACTIVE)[number];
const WATCHED: Record<Interactive, { change: [string, Record<string, unknown>]; uri: string }> = {
  legacy: { change: ['touch', {}], uri: 'watch+legacy://item/1' },
  dual: { change: ['set_note', { text: 'dual changed' }], uri: 'note+dual://current' },
  modern: { change: ['set_note', { text: 'modern changed' }], uri: 'note+modern://current' },
  modernio: { change: ['set_note', { text: 'stdio changed' }], uri: 'note+modernio://current' },
};

let legacyHttp: HttpUpstream;
let dualHttp: HttpUpstream;
let modernHttp: HttpUpstream;
let gateway: TestGateway;
const clients = new Map<ClientKind, EraClient>();

beforeAll(async () => {
  [legacyHttp, dualHttp, modernHttp] = await Promise.all([startHttpFixture('interactive-server'), startModernServerHttp('dual'), startModernServerHttp('modern')]);
  gateway = await startGateway({
    mcpServers: {
      everything: everythingStdio(),
      legacy: { url: legacyHttp.url },
      dual: { url: dualHttp.url },
      modern: { url: modernHttp.url },
      modernio: modernServerStdio('modern'),
    },
  });
  // The gateway serves once each upstream's first attempt has ended; a fixture that started slowly
  // (a cold tsx cache on a fresh checkout) is on its second attempt then. The matrix wants them all.
  await vi.waitFor(
    async () => {
      const ready = (await (await fetch(new URL('/readyz', gateway.url))).json()) as { upstreams: Record<string, { state: string }> };
      expect(Object.values(ready.upstreams).map((upstream) => upstream.state)).toEqual(['ready', 'ready', 'ready', 'ready', 'ready']);
    },
    { timeout: 60_000, interval: 250 },
  );
  for (const [kind, connect] of Object.entries(CLIENTS) as [ClientKind, (url: string) => Promise<EraClient>][]) clients.set(kind, await connect(gateway.url));
}, 120_000);

afterAll(async () => {
  await Promise.allSettled([...clients.values()].map((client) => client.close()));
  await gateway?.close();
  await Promise.allSettled([legacyHttp?.stop(), dualHttp?.stop(), modernHttp?.stop()]);
});

it('each upstream is spoken to in its own era, as /readyz shows', async () => {
  const ready = (await (await fetch(new URL('/readyz', gateway.url))).json()) as { upstreams: Record<string, { protocolVersion?: string }> };
  expect(ready.upstreams.everything?.protocolVersion).toMatch(/^2025-/);
  expect(ready.upstreams.legacy?.protocolVersion).toMatch(/^2025-/);
  for (const modern of ['dual', 'modern', 'modernio']) expect(ready.upstreams[modern]?.protocolVersion).toBe('2026-07-28');
});

it('the negotiating 2026 client finds the 2026 era at the gateway', () => {
  expect(clients.get('2026 client (v2, auto)')?.era).toBe('2026');
});

describe.each(Object.keys(CLIENTS) as ClientKind[])('%s', (kind) => {
  const client = () => clients.get(kind)!;

  it('lists every upstream tool, namespaced, as the upstream itself lists it', async () => {
    const listed = await client().listTools();
    for (const [server, upstream] of [
      ['everything', everythingStdio()],
      ['legacy', { url: legacyHttp.url }],
      ['dual', { url: dualHttp.url }],
      ['modern', { url: modernHttp.url }],
      ['modernio', modernServerStdio('modern')],
    ] as const) {
      const direct: TestClient = await connectDirect(upstream, { negotiate: true });
      try {
        const own = ((await direct.request('tools/list')).tools as { name: string; description?: string }[]).map((tool) => [`${server}__${tool.name}`, tool.description]);
        const exposed = listed.filter((tool) => tool.name.startsWith(`${server}__`)).map((tool) => [tool.name, tool.description]);
        expect(exposed, server).toEqual(expect.arrayContaining(own));
      } finally {
        await direct.close();
      }
    }
  });

  it('calls echo on a 2025 and on a 2026 upstream', async () => {
    expect(await client().callTool('everything__echo', { message: 'm' })).toBe('Echo: m');
    expect(await client().callTool('modern__echo', { message: 'm' })).toBe('m');
    expect(await client().callTool('modernio__echo', { message: 'm' })).toBe('m');
  });

  it.each(INTERACTIVE)('answers sampling, elicitation and roots of the %s upstream with its own handlers', async (server) => {
    expect(await client().callTool(`${server}__ask_sampling`, { prompt: 'p' })).toContain(SAMPLED);
    expect(await client().callTool(`${server}__ask_elicitation`, { message: 'q' })).toContain(ELICITED);
    expect(await client().callTool(`${server}__ask_roots`, {})).toContain(ROOT);
  });

  it.each(INTERACTIVE)('gets the progress of the %s upstream on its request', async (server) => {
    let updates = 0;
    expect(await client().callTool(`${server}__progress`, { steps: 3 }, { onprogress: () => (updates += 1) })).toBe('3 steps done');
    expect(updates).toBe(3);
  });

  it.each(INTERACTIVE)('gets log messages of the %s upstream at or above its level only', async (server) => {
    const before = client().logs.length;
    await client().callTool(`${server}__log_levels`, {}, { logLevel: 'warning' });
    await expect.poll(() => client().logs.slice(before)).toEqual(['warning', 'error']);
  });

  it.each(INTERACTIVE)('cancels its call on the %s upstream', async (server) => {
    const tag = `${kind}-${server}`.replace(/[^a-z0-9]+/gi, '-');
    const abort = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const call = client().callTool(`${server}__slow`, { ms: 30_000, tag }, { signal: abort.signal, onprogress: () => started() });
    await running;
    abort.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(async () => client().callTool(`${server}__cancellations`, {}), { timeout: 10_000 }).toContain(tag);
  });
});

describe.each(INTERACTIVE)('news from the %s upstream', (server) => {
  it('reaches every client: a list change, and the update of a resource it watches', async () => {
    const all = [...clients.values()];
    await Promise.all(all.map((client) => client.watch([WATCHED[server].uri])));
    const changesBefore = all.map((client) => client.toolChanges.length);
    const updatesBefore = all.map((client) => client.updates.length);

    const caller = clients.get('2025 client (v2)')!;
    await caller.callTool(`${server}__add_tool`, { name: `added_${server}` });
    for (const [index, client] of all.entries()) {
      await expect.poll(() => client.toolChanges.length, { timeout: 10_000, message: `${[...clients.keys()][index]} list change` }).toBeGreaterThan(changesBefore[index]!);
    }
    const [tool, args] = WATCHED[server].change;
    await caller.callTool(`${server}__${tool}`, args);
    for (const [index, client] of all.entries()) {
      await expect
        .poll(() => client.updates.slice(updatesBefore[index]!), { timeout: 10_000, message: `${[...clients.keys()][index]} update` })
        .toContain(WATCHED[server].uri);
    }
  });
});
