// A 2026-07-28 client (the official v2 client, pinned to the revision) against a gateway fronting
// 2025 upstreams: server-everything and our interactive fixture over stdio. Everything a 2025
// session gets, a stateless request gets too, shaped for 2026; the interactive parts cross the era
// bridge (an upstream's server-to-client request becomes input_required, answered by the client's
// own handlers on the retry).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectV2, type TestClient } from '../support/mcp-clients.js';
import { CLIENT_ROOTS, connectModern, ELICITED_ANSWER, SAMPLED_TEXT } from '../support/modern-client.js';
import { envelope, modernPost, modernRequest } from '../support/modern-http.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { everythingStdio, stdioFixture } from '../support/upstreams.js';

const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

let gateway: TestGateway;
let modern: Client;
let legacy: TestClient;

beforeAll(async () => {
  gateway = await startGateway({ mcpServers: { everything: everythingStdio(), interactive: stdioFixture('interactive-server') } });
  [modern, legacy] = await Promise.all([connectModern(gateway.url), connectV2(gateway.url)]);
});
afterAll(async () => {
  await Promise.allSettled([modern?.close(), legacy?.close()]);
  await gateway?.close();
});

/** One raw 2026 request, for what a client library hides (cache hints, serverInfo, status codes). */
async function post(
  method: string,
  params: Record<string, unknown> = {},
  _name?: string,
  capabilities: Record<string, unknown> = {},
  url = gateway.url,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { status, body } = await modernPost(url, modernRequest(method, params, envelope(capabilities)));
  return { status, body: body as Record<string, unknown> };
}

describe('discovery and lists', () => {
  it('server/discover lists every revision the endpoint serves, with the merged capabilities', async () => {
    const { status, body } = await post('server/discover');
    expect(status).toBe(200);
    const result = body.result as Record<string, unknown>;
    expect(result.resultType).toBe('complete');
    expect(result.supportedVersions).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    expect(result.capabilities).toMatchObject({ tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true } });
    expect((result._meta as Record<string, unknown>)[META_SERVER_INFO]).toMatchObject({ name: 'switchboard' });
    expect(result.cacheScope).toBe('public');
    expect(typeof result.ttlMs).toBe('number');
  });

  it('a 2026 request sees the same tools, prompts, resources and templates as a 2025 session', async () => {
    // Raw answers: the v2 client drops fields of 2025 tool definitions that 2026 has no room for.
    for (const [method, key] of [
      ['tools/list', 'tools'],
      ['prompts/list', 'prompts'],
      ['resources/list', 'resources'],
      ['resources/templates/list', 'resourceTemplates'],
    ] as const) {
      const modernPage = (await post(method)).body.result as Record<string, unknown>;
      const legacyPage = await legacy.request(method);
      expect(modernPage[key], method).toEqual(legacyPage[key]);
      expect(modernPage.nextCursor, method).toEqual(legacyPage.nextCursor);
    }
    expect((await modern.listTools()).tools.map((tool) => tool.name)).toContain('everything__echo');
  });

  it('a page of tools goes out whole in both eras, its length counted in bytes, around an id that is not ASCII', async () => {
    // The page is written from its kept bytes between a head and a tail of strings (json-text.ts responseBody).
    const id = 'liste-\u00e9t\u00e9-\u{1F527}';
    const { sessionId } = await openSession(gateway.url);
    const answers = [
      await rawPost(gateway.url, { jsonrpc: '2.0', id, method: 'tools/list', params: {} }, { sessionId, headers: { 'mcp-protocol-version': '2025-11-25' } }),
      await rawPost(gateway.url, { jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: envelope() } }, { headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' } }),
    ];
    for (const { status, headers, body } of answers) {
      expect(status).toBe(200);
      expect(Number(headers.get('content-length'))).toBe(Buffer.byteLength(JSON.stringify(body)));
      expect((body as { id: unknown }).id).toBe(id);
    }
    const [legacyPage, modernPage] = answers.map(({ body }) => (body as { result: Record<string, unknown> }).result);
    expect(modernPage!.tools).toEqual(legacyPage!.tools);
    expect((modernPage!.tools as unknown[]).length).toBeGreaterThan(5);
    expect(modernPage).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
  });

  it('every result carries resultType and the gateway as serverInfo; lists carry public cache hints without a policy', async () => {
    const { body } = await post('tools/list');
    const result = body.result as Record<string, unknown>;
    expect(result.resultType).toBe('complete');
    expect((result._meta as Record<string, unknown>)[META_SERVER_INFO]).toMatchObject({ name: 'switchboard' });
    expect(result.cacheScope).toBe('public');
    expect(result.ttlMs).toBeGreaterThanOrEqual(0);
    const call = await post('tools/call', { name: 'everything__echo', arguments: { message: 'x' } }, 'everything__echo');
    expect((call.body.result as Record<string, unknown>).resultType).toBe('complete');
    expect((call.body.result as Record<string, unknown>).ttlMs).toBeUndefined();
  });
});

describe('calls', () => {
  it('a tool call answers as it does for a 2025 session', async () => {
    const result = await modern.callTool({ name: 'everything__echo', arguments: { message: 'hello 2026' } });
    expect(result.content).toEqual((await legacy.request('tools/call', { name: 'everything__echo', arguments: { message: 'hello 2026' } })).content);
  });

  it('an unknown resource is -32602 for a 2026 client (never -32002)', async () => {
    const { status, body } = await post('resources/read', { uri: 'nowhere+everything://missing' }, 'nowhere+everything://missing');
    expect(status).toBe(200);
    expect((body.error as { code: number }).code).toBe(-32602);
  });

  it('progress of a 2025 upstream reaches the 2026 request on its own stream', async () => {
    const updates: number[] = [];
    const result = await modern.callTool({ name: 'interactive__progress', arguments: { steps: 3 } }, { onprogress: (update) => updates.push(update.progress) });
    expect(result.content).toEqual([{ type: 'text', text: '3 steps done' }]);
    expect(updates).toEqual([1, 2, 3]);
  });

  it('log messages come only at or above the level the request asked for, and none without one', async () => {
    const levels: string[] = [];
    modern.setNotificationHandler('notifications/message', (notification) => {
      levels.push(String(notification.params.level));
    });
    await modern.callTool({ name: 'interactive__log_levels', arguments: {}, _meta: { [META_LOG_LEVEL]: 'warning' } });
    expect(levels).toEqual(['warning', 'error']);
    levels.length = 0;
    await modern.callTool({ name: 'interactive__log_levels', arguments: {} });
    expect(levels).toEqual([]);
  });

  it('closing the request stream cancels the call upstream', async () => {
    const abort = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const call = modern.callTool({ name: 'interactive__slow', arguments: { ms: 30_000, tag: 'modern-close' } }, { signal: abort.signal, onprogress: () => started() });
    await running;
    abort.abort();
    await expect(call).rejects.toThrow();
    await expect
      .poll(async () => JSON.stringify((await modern.callTool({ name: 'interactive__cancellations', arguments: {} })).content), { timeout: 10_000 })
      .toContain('modern-close');
  });
});

describe('input from the client across eras (2025 upstream, 2026 client)', () => {
  it('sampling asked by the upstream is answered by the client handler through input_required', async () => {
    const result = await modern.callTool({ name: 'interactive__ask_sampling', arguments: { prompt: 'capital of France?' } });
    expect(JSON.stringify(result.content)).toContain(SAMPLED_TEXT);
  });

  it('elicitation asked by the upstream is answered by the client handler', async () => {
    const result = await modern.callTool({ name: 'interactive__ask_elicitation', arguments: { message: 'your name?' } });
    expect(JSON.stringify(result.content)).toContain(ELICITED_ANSWER);
  });

  it('roots asked by the upstream are the client handler roots', async () => {
    const result = await modern.callTool({ name: 'interactive__ask_roots', arguments: {} });
    expect(JSON.stringify(result.content)).toContain(CLIENT_ROOTS[0]!.uri);
  });

  it('a roots/list the upstream sends on its own, while a call of a client without roots is the only one in flight, is refused upstream; the call goes on', async () => {
    // On a shared connection the gateway can only tie a server's request to the one call in
    // flight. Servers ask for roots as they start (server-everything does, 350 ms after
    // initialize): a call that happened to be in flight then must not fail for want of roots.
    const scheduled = await post('tools/call', { name: 'interactive__roots_unasked', arguments: { ms: 300 } }, 'interactive__roots_unasked');
    expect(scheduled.status).toBe(200);
    const slow = await post('tools/call', { name: 'interactive__slow', arguments: { ms: 1_000, tag: 'roots-unasked' } }, 'interactive__slow');
    expect(slow.status).toBe(200);
    expect(JSON.stringify(slow.body.result)).toContain('slept 1000 ms');
    const outcome = await post('tools/call', { name: 'interactive__roots_unasked_outcome', arguments: {} }, 'interactive__roots_unasked_outcome');
    const [{ text }] = (outcome.body.result as { content: [{ text: string }] }).content;
    expect(JSON.parse(text)).toEqual([expect.stringContaining('the client does not support roots/list (it did not declare the "roots" capability)')]);
  });

  it('a client that did not declare the capability the upstream asks for gets 400 -32021', async () => {
    const { status, body } = await post('tools/call', { name: 'interactive__ask_elicitation', arguments: { message: 'raw?' } }, 'interactive__ask_elicitation');
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  it('the raw answer is input_required with sealed state, and a retry with the answers completes', async () => {
    const params = { name: 'interactive__ask_elicitation', arguments: { message: 'raw?' } };
    const capabilities = { elicitation: { form: {} } };
    const first = await post('tools/call', params, params.name, capabilities);
    const result = first.body.result as { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string };
    expect(result.resultType).toBe('input_required');
    const [[key, request]] = Object.entries(result.inputRequests) as [[string, { method: string }]];
    expect(request.method).toBe('elicitation/create');
    expect(typeof result.requestState).toBe('string');
    expect(result.requestState).not.toContain('interactive');

    const retry = await post(
      'tools/call',
      { ...params, inputResponses: { [key]: { action: 'accept', content: { answer: 'typed by hand' } } }, requestState: result.requestState },
      params.name,
      capabilities,
    );
    expect(retry.status).toBe(200);
    const final = retry.body.result as { resultType: string; content: unknown };
    expect(final.resultType).toBe('complete');
    expect(JSON.stringify(final.content)).toContain('typed by hand');
  });
});

describe('subscriptions/listen', () => {
  it('acknowledges the honoured filter and delivers tool list changes and resource updates tagged with its id', async () => {
    const toolChanges: unknown[] = [];
    const updates: string[] = [];
    modern.setNotificationHandler('notifications/tools/list_changed', (notification) => void toolChanges.push(notification.params?._meta));
    modern.setNotificationHandler('notifications/resources/updated', (notification) => void updates.push(notification.params.uri));
    const watched = 'watch+interactive://item/1';
    const subscription = await modern.listen({ toolsListChanged: true, resourceSubscriptions: [watched, 'untagged://x'] });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: [watched] });

    await modern.callTool({ name: 'interactive__add_tool', arguments: { name: 'added_for_listen' } });
    await expect.poll(() => toolChanges.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await modern.listTools()).tools.map((tool) => tool.name)).toContain('interactive__added_for_listen');

    await modern.callTool({ name: 'interactive__touch', arguments: {} });
    await expect.poll(() => updates, { timeout: 10_000 }).toContain(watched);
    await subscription.close();
  });
});

describe('subscriptions/listen limits', () => {
  it('takes at most 100 resource subscriptions per listen, and says which', async () => {
    const uris = Array.from({ length: 150 }, (_, index) => `demo+everything://resource/${index}`);
    const subscription = await modern.listen({ resourceSubscriptions: uris });
    expect(subscription.honoredFilter.resourceSubscriptions).toEqual(uris.slice(0, 100));
    await subscription.close();
  });
});

describe('a gateway with a policy, and one shutting down', () => {
  it('lists are private to the principal when a policy filters them, and denied tools are absent', async () => {
    const filtered = await startGateway({
      mcpServers: { everything: everythingStdio() },
      policy: { default: 'deny', rules: [{ allow: ['everything/echo'] }] },
    });
    try {
      const { body } = await post('tools/list', {}, undefined, {}, filtered.url);
      const result = body.result as { tools: { name: string }[]; cacheScope: string };
      expect(result.tools.map((tool) => tool.name)).toEqual(['everything__echo']);
      expect(result.cacheScope).toBe('private');
      const denied = await post('tools/call', { name: 'everything__get-env', arguments: {} }, 'everything__get-env', {}, filtered.url);
      expect(denied.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: everything__get-env' });
    } finally {
      await filtered.close();
    }
  });

  it('a listen ends gracefully when the gateway shuts down', async () => {
    const stopping = await startGateway({ mcpServers: { everything: everythingStdio() } });
    const client = await connectModern(stopping.url);
    const subscription = await client.listen({ toolsListChanged: true });
    await stopping.close();
    await expect(subscription.closed).resolves.toBe('graceful');
    await client.close();
  });
});
