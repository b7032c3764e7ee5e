// Every message an upstream sends reaches the right client session, once, and nowhere else:
// progress, log messages, list changes, resource updates, and server-to-client requests; and
// cancellations travel the other way. Real upstreams, the official v2 client, both session stores,
// and two replicas sharing Redis with the client's requests alternating between them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { connectRecordingClient, firstText, type RecordingClient } from '../support/recording-client.js';
import { redisUrl } from '../support/redis.js';
import { openSse } from '../support/sse-reader.js';
import { roundRobinFetch } from '../support/round-robin.js';
import { startHttpFixture, stdioFixture, type HttpUpstream } from '../support/upstreams.js';

const CALL_TIMEOUT_MS = 2_000;

describe.each(['memory', 'redis', 'two replicas'] as const)('streams and notifications (%s)', (mode) => {
  /** Names this mode's tools and tags, so modes never see each other's. */
  const store = mode.replace(' ', '_');
  let gateway: TestGateway;
  /** The second replica, in the two-replica mode. */
  let other: TestGateway | undefined;
  let shared: HttpUpstream | undefined;
  let sharedQuick: HttpUpstream | undefined;
  const clients: RecordingClient[] = [];
  /** Where a client reconnects: the other replica when there is one. */
  const resumeUrl = () => other?.url ?? gateway.url;

  beforeAll(async () => {
    if (mode === 'two replicas') {
      // One remote upstream that both replicas reach, as in production: its state is one.
      [shared, sharedQuick] = await Promise.all([startHttpFixture('interactive-server'), startHttpFixture('interactive-server')]);
    }
    const config = {
      sessions: mode === 'memory' ? { store: 'memory' as const } : { store: 'redis' as const, redisUrl: redisUrl() },
      mcpServers: shared && sharedQuick
        ? { interactive: { url: shared.url }, quick: { url: sharedQuick.url, timeoutMs: CALL_TIMEOUT_MS } }
        : { interactive: stdioFixture('interactive-server'), quick: { ...stdioFixture('interactive-server'), timeoutMs: CALL_TIMEOUT_MS } },
    };
    gateway = await startGateway(config);
    if (mode === 'two replicas') other = await startGateway(config);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all([gateway?.close(), other?.close()]);
    await Promise.all([shared?.stop(), sharedQuick?.stop()]);
  });

  async function client(options: Parameters<typeof connectRecordingClient>[1] = {}): Promise<RecordingClient> {
    const balanced = other ? { fetch: roundRobinFetch(() => [gateway, other as TestGateway]) } : {};
    const connected = await connectRecordingClient(gateway.url, { ...balanced, ...options });
    clients.push(connected);
    return connected;
  }

  async function callText(who: RecordingClient, name: string, args: Record<string, unknown> = {}): Promise<string> {
    return firstText(await who.client.callTool({ name, arguments: args }));
  }

  describe('on the request stream', () => {
    it('delivers progress with the client own token, then the result', async () => {
      const alice = await client();
      const updates: { progress: number; total?: number; message?: string }[] = [];
      const result = await alice.client.callTool({ name: 'interactive__progress', arguments: { steps: 3 } }, { onprogress: (update) => updates.push(update) });
      expect(firstText(result)).toBe('3 steps done');
      expect(updates).toEqual([
        { progress: 1, total: 3, message: 'step 1' },
        { progress: 2, total: 3, message: 'step 2' },
        { progress: 3, total: 3, message: 'step 3' },
      ]);
    });

    it('answers as SSE, with a priming event and ids, when related messages come, and as JSON otherwise', async () => {
      const { sessionId } = await openSession(gateway.url);
      const streamed = await openSse(gateway.url, {
        method: 'POST',
        sessionId,
        body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'interactive__progress', arguments: { steps: 2 }, _meta: { progressToken: 'tok-1' } } },
      });
      expect(streamed.contentType).toMatch(/^text\/event-stream/);
      const priming = await streamed.next();
      expect(priming?.data).toBe('');
      expect(priming?.id).toMatch(/^p[A-Za-z0-9_-]+\.0$/);
      const first = await streamed.next();
      expect(first?.message).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 1 } });
      const second = await streamed.next();
      expect(second?.message).toMatchObject({ params: { progressToken: 'tok-1', progress: 2 } });
      const response = await streamed.next();
      expect(response?.message).toMatchObject({ id: 7, result: { content: [{ text: '2 steps done' }] } });
      for (const event of [first, second, response]) expect(event?.id?.split('.')[0]).toBe(priming?.id?.split('.')[0]);
      expect(await streamed.next()).toBeUndefined();

      const plain = await rawPost(gateway.url, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'interactive__progress', arguments: { steps: 2 } } }, { sessionId });
      expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
      expect(plain.body).toMatchObject({ id: 8, result: { content: [{ text: '2 steps done' }] } });
    });

    it('delivers log messages of a call at the level the session asked for', async () => {
      const alice = await client();
      await alice.client.setLoggingLevel('warning');
      await callText(alice, 'interactive__log_levels');
      const levels = alice.received('notifications/message').map((message) => message.params?.level);
      expect(levels).toEqual(['warning', 'error']);
    });

    it('relays sampling, elicitation and roots requests to the session that made the call', async () => {
      const alice = await client();
      const bystander = await client();
      expect(await callText(alice, 'interactive__ask_sampling', { prompt: 'hello' })).toContain('sampled: hello');
      expect(JSON.parse(await callText(alice, 'interactive__ask_elicitation', { message: 'the answer?' }))).toMatchObject({ action: 'accept', content: { answer: 'forty-two' } });
      expect(JSON.parse(await callText(alice, 'interactive__ask_roots'))).toMatchObject({ roots: [{ uri: 'file:///work/project' }] });
      expect(alice.requests.map((request) => request.method)).toEqual(['sampling/createMessage', 'elicitation/create', 'roots/list']);
      expect(bystander.requests).toEqual([]);
    });

    it('refuses the upstream a request the client did not declare the capability for', async () => {
      const plain = await client({ capabilities: [] });
      const result = await plain.client.callTool({ name: 'interactive__ask_sampling', arguments: { prompt: 'hi' } });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/does not support sampling/);
      expect(plain.requests).toEqual([]);
    });
  });

  describe('on the standalone stream', () => {
    it('sends tools/list_changed once to every session when an upstream list changes, and the list has the new tool', async () => {
      const alice = await client();
      const bob = await client();
      await callText(alice, 'interactive__add_tool', { name: `new_tool_${store}` });
      await alice.waitFor('notifications/tools/list_changed');
      await bob.waitFor('notifications/tools/list_changed');
      const tools = await bob.client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toContain(`interactive__new_tool_${store}`);
      // Two upstreams share nothing here, so exactly one change happened: one notification each.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(alice.received('notifications/tools/list_changed')).toHaveLength(1);
      expect(bob.received('notifications/tools/list_changed')).toHaveLength(1);
    });

    it('sends resources/updated only to the sessions subscribed to that URI, with the URI they know', async () => {
      const subscriber = await client();
      const other = await client();
      await subscriber.client.subscribeResource({ uri: 'watch+interactive://item/1' });
      await callText(other, 'interactive__touch');
      const [update] = await subscriber.waitFor('notifications/resources/updated');
      expect(update?.params).toEqual({ uri: 'watch+interactive://item/1' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(other.received('notifications/resources/updated')).toEqual([]);
      expect(subscriber.received('notifications/resources/updated')).toHaveLength(1);

      await subscriber.client.unsubscribeResource({ uri: 'watch+interactive://item/1' });
      await callText(other, 'interactive__touch');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(subscriber.received('notifications/resources/updated')).toHaveLength(1);
    });

    it('delivers a log message that belongs to no request to the sessions, filtered by their level', async () => {
      const loud = await client();
      const quiet = await client();
      await quiet.client.setLoggingLevel('error');
      await callText(loud, 'interactive__log_later', { delayMs: 100, tag: `later-${store}` });
      const [message] = await loud.waitFor('notifications/message');
      expect(message?.params).toMatchObject({ level: 'warning', data: `later: later-${store}` });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(quiet.received('notifications/message').filter((m) => String(m.params?.data).includes(`later-${store}`))).toEqual([]);
    });

    it('sends each queued message on exactly one of the session streams, and replays only what that stream missed', async () => {
      const { sessionId } = await openSession(gateway.url);
      const first = await openSse(gateway.url, { sessionId });
      const second = await openSse(resumeUrl(), { sessionId });
      expect(first.contentType).toMatch(/^text\/event-stream/);
      const firstPriming = await first.next();
      await second.next();

      // Three unsolicited messages for this session: list changes from three new tools, each one
      // seen before the next tool is added. (Added back to back, two changes may reach the gateway
      // before it has listed the first, and then rightly make one announcement.)
      const trigger = await client();
      const seen: { stream: 'first' | 'second'; id: string }[] = [];
      let allAdded = false;
      const collect = async (connection: typeof first, stream: 'first' | 'second') => {
        for (;;) {
          // Once every tool is added, until the stream has had nothing for a while (a loaded
          // machine may take over a second to fan a change out); a duplicate arriving meanwhile
          // would be seen.
          const event = await connection.next(3_000).catch(() => undefined);
          if (!event) {
            if (allAdded) return;
            continue;
          }
          if (event.message?.method === 'notifications/tools/list_changed') seen.push({ stream, id: event.id ?? '' });
        }
      };
      const collecting = Promise.all([collect(first, 'first'), collect(second, 'second')]);
      for (const name of ['stream_a', 'stream_b', 'stream_c']) {
        const before = seen.length;
        await callText(trigger, 'interactive__add_tool', { name: `${name}_${store}` });
        await expect.poll(() => seen.length, { message: `the list change for ${name}`, timeout: 10_000 }).toBeGreaterThan(before);
      }
      allAdded = true;
      await collecting;
      expect(seen).toHaveLength(3);
      expect(new Set(seen.map((event) => event.id)).size).toBe(3);

      // The first stream drops; a list change arrives while it is away; it reconnects with its last id.
      const firstIds = seen.filter((event) => event.stream === 'first').map((event) => event.id);
      const lastOfFirst = firstIds.at(-1) ?? firstPriming?.id ?? '';
      first.abort();
      second.abort();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await callText(trigger, 'interactive__add_tool', { name: `stream_d_${store}` });
      const resumed = await openSse(resumeUrl(), { sessionId, lastEventId: lastOfFirst });
      const replayed = await resumed.next();
      expect(replayed?.message).toMatchObject({ method: 'notifications/tools/list_changed' });
      expect(replayed?.id?.split('.')[0]).toBe(lastOfFirst.split('.')[0]);
      expect(seen.map((event) => event.id)).not.toContain(replayed?.id);
      expect(await resumed.next(500).catch(() => 'nothing more')).toBe('nothing more');
      resumed.abort();
    });
  });

  describe('cancellation', () => {
    it('passes the client cancellation to the upstream', async () => {
      const alice = await client();
      const abort = new AbortController();
      const call = alice.client.callTool({ name: 'interactive__slow', arguments: { ms: 20_000, tag: `client-${store}` } }, { signal: abort.signal });
      await new Promise((resolve) => setTimeout(resolve, 300));
      abort.abort('changed my mind');
      await expect(call).rejects.toThrow();
      await expect.poll(async () => JSON.parse(await callText(alice, 'interactive__cancellations'))).toContain(`client-${store}`);
    });

    it('cancels the upstream request when the gateway times it out', async () => {
      const alice = await client();
      const result = await alice.client.callTool({ name: 'quick__slow', arguments: { ms: 20_000, tag: `timeout-${store}` } }).catch((error: Error) => error);
      expect(String(result)).toMatch(/"quick" did not answer/);
      await expect.poll(async () => JSON.parse(await callText(alice, 'quick__cancellations'))).toContain(`timeout-${store}`);
    });

    it('does not cancel when the client connection drops, and the response is there on resume', async () => {
      const { sessionId } = await openSession(gateway.url);
      const streamed = await openSse(gateway.url, {
        method: 'POST',
        sessionId,
        body: { jsonrpc: '2.0', id: 'drop-1', method: 'tools/call', params: { name: 'interactive__progress', arguments: { steps: 1 }, _meta: { progressToken: 1 } } },
      });
      const priming = await streamed.next();
      streamed.abort();
      const resumed = await openSse(resumeUrl(), { sessionId, lastEventId: priming?.id ?? '' });
      const events = [];
      for (let event = await resumed.next(); event; event = await resumed.next()) events.push(event.message);
      expect(events.at(-1)).toMatchObject({ id: 'drop-1', result: { content: [{ text: '1 steps done' }] } });

      const slow = await openSse(gateway.url, {
        method: 'POST',
        sessionId,
        body: { jsonrpc: '2.0', id: 'drop-2', method: 'tools/call', params: { name: 'interactive__slow', arguments: { ms: 500, tag: `dropped-${store}` }, _meta: { progressToken: 2 } } },
      });
      slow.abort();
      await new Promise((resolve) => setTimeout(resolve, 800));
      const alice = await client();
      expect(JSON.parse(await callText(alice, 'interactive__cancellations'))).not.toContain(`dropped-${store}`);
    });
  });

  it('tells the upstreams when the client roots change', async () => {
    const alice = await client();
    const before = Number(await callText(alice, 'interactive__roots_changes'));
    await alice.client.sendRootsListChanged();
    await expect.poll(async () => Number(await callText(alice, 'interactive__roots_changes'))).toBe(before + 1);
  });
});
