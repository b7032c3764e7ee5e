// One upstream connection, either era, seen from the gateway's side of the Upstream interface: a
// 2026-07-28 upstream (the modern-server fixture, a real process) hands input_required back raw,
// takes the gateway's `_meta`, and says list changes and resource updates as a 2025 one does; a
// 2025 upstream (server-everything) is told apart quickly and its stderr still reaches the log.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import type { ConfigInput, UpstreamConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/observe/logger.js';
import { openConnection } from '../../src/upstream/connection.js';
import { STDIO_PROBE_TIMEOUT_MS } from '../../src/upstream/negotiation.js';
import { SupervisedUpstream } from '../../src/upstream/supervised-upstream.js';
import type { UpstreamNotification } from '../../src/upstream/types.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { everythingStdio, modernServerStdio, startModernServerHttp } from '../support/upstreams.js';

type UpstreamInput = NonNullable<ConfigInput['mcpServers']>[string];

const POLL = { timeout: 20_000, interval: 50 };

const logs: Record<string, unknown>[] = [];
const logger = createLogger({
  level: 'debug',
  destination: new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  }),
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function upstreamConfig(server: UpstreamInput): UpstreamConfig {
  return parseConfigText(JSON.stringify({ mcpServers: { s: server } }), 'json', {}).mcpServers.s!;
}

/** A started upstream whose notifications are kept, once its first connection attempt ended. */
async function supervise(name: string, server: UpstreamInput): Promise<{ upstream: SupervisedUpstream; notifications: UpstreamNotification[] }> {
  const upstream = new SupervisedUpstream(name, upstreamConfig(server), logger, { ping: false, backoff: { initialMs: 50, maxMs: 200 } });
  cleanups.push(() => upstream.stop());
  const notifications: UpstreamNotification[] = [];
  upstream.onNotification((notification) => notifications.push(notification));
  upstream.start();
  await upstream.whenSettled();
  expect(upstream.status()).toMatchObject({ state: 'ready' });
  return { upstream, notifications };
}

/** The modern-only fixture over HTTP behind a TCP proxy that a test can take down; both stopped after the test. */
async function modernServerBehindProxy(): Promise<TcpProxy> {
  const server = await startModernServerHttp('modern');
  cleanups.push(() => server.stop());
  const proxy = await startTcpProxy(server.url);
  cleanups.push(() => proxy.close());
  return proxy;
}

/** Resolves when the upstream has been down and is ready again. */
function reconnection(upstream: SupervisedUpstream): Promise<void> {
  return new Promise((resolve) => {
    let down = false;
    const off = upstream.onStateChange((state) => {
      if (state !== 'ready') down = true;
      else if (down) {
        off();
        resolve();
      }
    });
  });
}

function firstText(result: Record<string, unknown>): string {
  return (result.content as { text: string }[])[0]!.text;
}

describe('a connection to a modern-only stdio upstream', () => {
  it('knows the era, and takes capabilities and instructions from server/discover', async () => {
    const { upstream } = await supervise('modern', modernServerStdio('modern'));
    expect(upstream.info).toMatchObject({
      era: 'modern',
      protocolVersion: '2026-07-28',
      transport: 'stdio',
      serverInfo: { name: 'modern-fixture', version: '1.0.0' },
      capabilities: { tools: { listChanged: true }, logging: {}, resources: { subscribe: true } },
      instructions: 'A test fixture of the 2026-07-28 era.',
    });
    expect(upstream.status()).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    expect(logs).toContainEqual(expect.objectContaining({ server: 'modern', era: 'modern', protocolVersion: '2026-07-28', msg: 'upstream connected' }));
  });

  it('returns an input_required result raw, and passes the retry with inputResponses and requestState through', async () => {
    const { upstream } = await supervise('modern', modernServerStdio('modern'));
    const params = { name: 'ask_elicitation', arguments: { message: 'Your name?' } };
    const first = await upstream.request('tools/call', params);
    expect(first).toEqual({
      resultType: 'input_required',
      inputRequests: {
        answer: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
          },
        },
      },
      requestState: expect.any(String),
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-fixture', version: '1.0.0' } },
    });

    const retried = await upstream.request('tools/call', {
      ...params,
      inputResponses: { answer: { action: 'accept', content: { answer: 'Ada' } } },
      requestState: first.requestState,
    });
    expect(retried.resultType).toBeUndefined();
    expect(JSON.parse(firstText(retried))).toEqual({ action: 'accept', content: { answer: 'Ada' } });
  });

  it("sends the gateway's own _meta keys over the SDK's envelope, and the level set by logging/setLevel, also after a reconnect", async () => {
    const { upstream } = await supervise('modern', modernServerStdio('modern'));
    const envelope = async (meta?: Record<string, unknown>) =>
      JSON.parse(firstText(await upstream.request('tools/call', { name: 'show_envelope', arguments: {}, ...(meta && { _meta: meta }) }))) as Record<string, unknown>;

    expect(await envelope()).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } },
    });
    expect(await envelope()).not.toHaveProperty(['io.modelcontextprotocol/logLevel']);

    const callerCapabilities = { elicitation: { form: {} } };
    expect(await envelope({ 'io.modelcontextprotocol/clientCapabilities': callerCapabilities })).toMatchObject({
      'io.modelcontextprotocol/clientCapabilities': callerCapabilities,
    });

    expect(await upstream.request('logging/setLevel', { level: 'warning' })).toEqual({});
    expect(await envelope()).toMatchObject({ 'io.modelcontextprotocol/logLevel': 'warning' });
    expect(await envelope({ 'io.modelcontextprotocol/logLevel': 'debug' })).toMatchObject({ 'io.modelcontextprotocol/logLevel': 'debug' });

    // The level is the gateway's clients' wish, not the process's: a reconnect keeps it.
    await Promise.all([reconnection(upstream), upstream.request('tools/call', { name: 'crash', arguments: {} }).catch(() => {})]);
    expect(await envelope()).toMatchObject({ 'io.modelcontextprotocol/logLevel': 'warning' });
  });

  it('refuses an elicitation the caller cannot answer, by the capabilities the gateway names', async () => {
    const { upstream } = await supervise('modern', modernServerStdio('modern'));
    await expect(
      upstream.request('tools/call', { name: 'ask_elicitation', arguments: { message: 'x' }, _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }),
    ).rejects.toMatchObject({ name: 'UpstreamRpcError', code: -32021 });
  });

  it('says list changes and updates of subscribed resources as a 2025 upstream does, also after a reconnect', async () => {
    const { upstream, notifications } = await supervise('modern', modernServerStdio('modern'));
    expect(await upstream.request('resources/subscribe', { uri: 'note://current' })).toEqual({});

    await upstream.request('tools/call', { name: 'set_note', arguments: { text: 'second note' } });
    await upstream.request('tools/call', { name: 'add_tool', arguments: { name: 'late_tool' } });
    await expect.poll(() => notifications, POLL).toEqual([
      { method: 'notifications/resources/updated', params: { uri: 'note://current' } },
      { method: 'notifications/tools/list_changed' },
    ]);

    // A new process knows nothing of the old one's listens: the connection listens again.
    await Promise.all([reconnection(upstream), upstream.request('tools/call', { name: 'crash', arguments: {} }).catch(() => {})]);
    notifications.length = 0;
    await upstream.request('tools/call', { name: 'set_note', arguments: { text: 'third note' } });
    await upstream.request('tools/call', { name: 'add_tool', arguments: { name: 'later_tool' } });
    await expect.poll(() => notifications, POLL).toEqual([
      { method: 'notifications/resources/updated', params: { uri: 'note://current' } },
      { method: 'notifications/tools/list_changed' },
    ]);

    expect(await upstream.request('resources/unsubscribe', { uri: 'note://current' })).toEqual({});
    await upstream.request('tools/call', { name: 'set_note', arguments: { text: 'unheard note' } });
    await upstream.request('tools/call', { name: 'add_tool', arguments: { name: 'last_tool' } });
    await expect.poll(() => notifications.length, POLL).toBe(3);
    // An update for the set_note would have come before this list change, which came after it.
    expect(notifications[2]).toEqual({ method: 'notifications/tools/list_changed' });
  });

  it('is health-pinged with server/discover, since its era has no ping', async () => {
    const connection = await openConnection({
      name: 'modern',
      config: upstreamConfig(modernServerStdio('modern')),
      logger,
      handlers: { onNotification: () => {}, onServerRequest: async () => ({}), onClosed: () => {} },
    });
    cleanups.push(() => connection.close());
    await expect(connection.ping(10_000)).resolves.toBeUndefined();
  });

  it('answers a method its era lacks with "method not found", and drops such a notification', async () => {
    const { upstream } = await supervise('modern', modernServerStdio('modern'));
    await expect(upstream.request('ping', undefined)).rejects.toMatchObject({ name: 'UpstreamRpcError', code: -32601 });
    await expect(upstream.notify('notifications/roots/list_changed')).resolves.toBeUndefined();
    expect(upstream.state).toBe('ready');
  });
});

describe('a connection to a modern upstream over HTTP', () => {
  it('negotiates the modern era with the modern-only and the dual-era server', async () => {
    for (const eras of ['modern', 'dual'] as const) {
      const server = await startModernServerHttp(eras);
      cleanups.push(() => server.stop());
      const { upstream } = await supervise(`http-${eras}`, { url: server.url });
      expect(upstream.info).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28', transport: 'streamable-http' });
    }
  });
});

describe('a connection to a modern upstream whose listen streams drop', () => {
  it('listens again, stays ready, and says what may have changed meanwhile', async () => {
    const proxy = await modernServerBehindProxy();
    const { upstream, notifications } = await supervise('dropped', { url: proxy.url });
    await upstream.request('resources/subscribe', { uri: 'note://current' });

    const states: string[] = [];
    upstream.onStateChange((state) => states.push(state));
    // Every connection through the proxy ends, the two listen streams with them.
    proxy.down();
    proxy.up();
    const missed = [
      { method: 'notifications/prompts/list_changed' },
      { method: 'notifications/resources/list_changed' },
      { method: 'notifications/resources/updated', params: { uri: 'note://current' } },
      { method: 'notifications/tools/list_changed' },
    ];
    await expect.poll(() => [...notifications].sort((a, b) => a.method.localeCompare(b.method)), POLL).toEqual(missed);
    expect(logs).toContainEqual(expect.objectContaining({ server: 'dropped', msg: 'the upstream ended a subscriptions/listen; listening again' }));

    await upstream.request('tools/call', { name: 'set_note', arguments: { text: 'after the drop' } });
    await expect.poll(() => notifications.length, POLL).toBe(missed.length + 1);
    expect(notifications.at(-1)).toEqual({ method: 'notifications/resources/updated', params: { uri: 'note://current' } });
    expect(states).toEqual([]);
  });
});

describe('a request to a modern HTTP upstream whose stream breaks before it is answered', () => {
  it('fails at once, naming the upstream, instead of waiting for its timeout', async () => {
    const proxy = await modernServerBehindProxy();
    // A call and a timeout longer than the test: only the broken stream can end the request in time.
    const { upstream } = await supervise('broken', { url: proxy.url, timeoutMs: 600_000 });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const call = upstream.request('tools/call', { name: 'slow', arguments: { ms: 60_000, tag: 'broken-stream' } }, { onProgress: () => started() });
    call.catch(() => {});
    // The request's SSE stream is open (its first progress came through it); then the connection drops.
    await running;
    proxy.down();
    await expect(call).rejects.toThrow(/upstream "broken" is unavailable: .*stream/);
    proxy.up();
  }, 30_000);
});

describe('a connection to a 2025 stdio upstream', () => {
  it('falls back to initialize without waiting for the probe timeout, and still logs its stderr', async () => {
    const started = Date.now();
    const { upstream } = await supervise('everything', everythingStdio());
    expect(Date.now() - started).toBeLessThan(STDIO_PROBE_TIMEOUT_MS);
    expect(upstream.info).toMatchObject({ era: 'legacy', protocolVersion: expect.stringMatching(/^2025-/), transport: 'stdio' });
    // The probe ran on a sibling process whose stderr is discarded: the line comes once, from the
    // process that serves.
    await expect
      .poll(() => logs.filter((line) => line.server === 'everything' && line.stream === 'stderr' && /Starting/.test(String(line.msg))), POLL)
      .toHaveLength(1);
    expect(await upstream.request('ping', undefined)).toEqual({});
  });
});
