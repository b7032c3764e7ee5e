// Upstreams that die, hang or become unreachable: the gateway notices, answers at once with an error
// naming the server, and brings them back by itself. Real upstream processes, killed and frozen
// with real signals; an HTTP upstream behind a proxy that a test takes down.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import type { ConfigInput, UpstreamConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/observe/logger.js';
import { SupervisedUpstream, type SupervisionOptions } from '../../src/upstream/supervised-upstream.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { isRunning, pidsWithArgument, pidWithArgument } from '../support/processes.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { connectRecordingClient } from '../support/recording-client.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startHttpFixture, stdioFixture, type HttpUpstream } from '../support/upstreams.js';

const POLL = { timeout: 20_000, interval: 50 };

type UpstreamInput = NonNullable<ConfigInput['mcpServers']>[string];

function markedInteractive(marker: string): { command: string; args: string[]; env: Record<string, string> } {
  const fixture = stdioFixture('interactive-server');
  return { ...fixture, args: [...fixture.args, 'stdio', marker] };
}

function firstText(body: unknown): string | undefined {
  return (body as { result?: { content?: { text?: string }[] } }).result?.content?.[0]?.text;
}

describe('a gateway whose stdio upstream dies', () => {
  const revivedMarker = `--revived-${randomUUID()}`;
  const doomedMarker = `--doomed-${randomUUID()}`;
  const returningMarker = `--returning-${randomUUID()}`;
  let gateway: TestGateway;
  let sessionId: string;
  let nextId = 1;

  beforeAll(async () => {
    gateway = await startGateway({
      mcpServers: {
        revived: markedInteractive(revivedMarker),
        doomed: markedInteractive(doomedMarker),
        returning: markedInteractive(returningMarker),
      },
    });
    ({ sessionId } = await openSession(gateway.url));
  }, 60_000);

  afterAll(async () => gateway?.close());

  function callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    nextId += 1;
    const body = { jsonrpc: '2.0', id: nextId, method: 'tools/call', params: { name, arguments: args } };
    return rawPost(gateway.url, body, { sessionId }).then((response) => response.body as Record<string, unknown>);
  }

  it('restarts it by itself, and calls to it succeed again', async () => {
    expect(firstText(await callTool('revived__slow', { ms: 0, tag: 'before' }))).toBe('slept 0 ms');
    const killed = pidWithArgument(revivedMarker);
    process.kill(killed, 'SIGKILL');
    await expect.poll(async () => firstText(await callTool('revived__slow', { ms: 0, tag: 'after' })), POLL).toBe('slept 0 ms');
    const [revived] = pidsWithArgument(revivedMarker);
    expect(revived).toBeDefined();
    expect(revived).not.toBe(killed);
  });

  it('leaves the catalog while it is down and is back after each restart, and sessions are told every time', async () => {
    const client = await connectRecordingClient(gateway.url);
    const listed = async () => (await client.client.listTools()).tools.map((tool) => tool.name);
    try {
      expect(await listed()).toContain('returning__slow');
      // Twice: a server that crashes again soon after coming back (it flaps) must be announced again too.
      for (let restart = 1; restart <= 2; restart++) {
        const killed = pidWithArgument(returningMarker);
        process.kill(killed, 'SIGKILL');
        await expect.poll(() => pidsWithArgument(returningMarker).filter((pid) => pid !== killed).length, POLL).toBe(1);
        await client.waitFor('notifications/tools/list_changed', 2 * restart, 20_000);
        expect(await listed()).toContain('returning__slow');
      }
    } finally {
      await client.close();
    }
  });

  it('answers a call in flight to it at once with an error naming the server', async () => {
    const call = callTool('doomed__slow', { ms: 30_000, tag: 'in-flight' });
    // The call must have reached the upstream; nothing observable says so, short of its own effects.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const killedAt = performance.now();
    process.kill(pidWithArgument(doomedMarker), 'SIGKILL');
    const answer = await call;
    expect(performance.now() - killedAt).toBeLessThan(3_000);
    expect(answer.error).toMatchObject({ message: expect.stringMatching(/"doomed"/) });
  });
});

describe('a supervised upstream', () => {
  const upstreams: SupervisedUpstream[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
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

  afterEach(async () => {
    await Promise.all(upstreams.splice(0).map((upstream) => upstream.stop()));
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  function upstreamConfig(server: UpstreamInput): UpstreamConfig {
    return parseConfigText(JSON.stringify({ mcpServers: { s: server } }), 'json', {}).mcpServers.s!;
  }

  async function supervise(name: string, server: UpstreamInput, options: SupervisionOptions): Promise<SupervisedUpstream> {
    const upstream = new SupervisedUpstream(name, upstreamConfig(server), logger, options);
    upstreams.push(upstream);
    upstream.start();
    await upstream.whenSettled();
    expect(upstream.state).toBe('ready');
    return upstream;
  }

  it('that stops answering pings is dropped and started anew', async () => {
    const marker = `--frozen-${randomUUID()}`;
    const upstream = await supervise('frozen', markedInteractive(marker), {
      ping: { intervalMs: 100, timeoutMs: 500 },
      backoff: { initialMs: 100, maxMs: 400 },
    });
    const frozen = pidWithArgument(marker);
    cleanups.push(() => {
      if (isRunning(frozen)) process.kill(frozen, 'SIGKILL');
    });
    process.kill(frozen, 'SIGSTOP');
    await expect.poll(() => upstream.state, POLL).not.toBe('ready');
    await expect.poll(() => pidsWithArgument(marker).filter((pid) => pid !== frozen).length, POLL).toBe(1);
    await expect.poll(() => upstream.state, POLL).toBe('ready');
    expect(logs).toContainEqual(expect.objectContaining({ server: 'frozen', msg: 'upstream connection lost; reconnecting', reason: expect.stringMatching(/^ping failed/) }));
  });

  describe('over HTTP', () => {
    let fixture: HttpUpstream;
    let proxy: TcpProxy;

    beforeAll(async () => {
      fixture = await startHttpFixture('interactive-server');
    }, 60_000);

    afterAll(async () => fixture?.stop());

    it('opens its circuit after consecutive failures, failing fast with an error naming it, until it reconnects', async () => {
      proxy = await startTcpProxy(fixture.url);
      cleanups.push(() => proxy.close());
      const upstream = await supervise('flaky', { url: proxy.url, transport: 'streamable-http' }, {
        ping: false,
        circuitThreshold: 3,
        backoff: { initialMs: 200, maxMs: 400 },
      });
      const call = () => upstream.request('tools/call', { name: 'slow', arguments: { ms: 0, tag: 'circuit' } });
      await expect(call()).resolves.toMatchObject({ content: [{ text: 'slept 0 ms' }] });

      proxy.down();
      for (let failure = 1; failure <= 3; failure++) await expect(call()).rejects.toThrow(/"flaky" is unavailable/);
      // Refused by the open circuit itself, without a try on the network (how fast is the bench's business).
      await expect(call()).rejects.toThrow(/"flaky" is unavailable: circuit open after 3 consecutive failures/);

      proxy.up();
      await expect.poll(() => upstream.state, POLL).toBe('ready');
      await expect(call()).resolves.toMatchObject({ content: [{ text: 'slept 0 ms' }] });
    });
  });
});
