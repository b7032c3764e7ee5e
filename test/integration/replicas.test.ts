// Two gateway processes sharing one real Redis, a client whose requests land on either: no sticky
// load balancing needed, every message still reaches its session once, and a replica killed with
// SIGKILL loses nothing a client cannot carry on from on the other one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, writeConfigFile, type GatewayProcess } from '../support/gateway-process.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { connectRecordingClient, firstText, type RecordingClient } from '../support/recording-client.js';
import { redisUrl, uniqueKeyPrefix } from '../support/redis.js';
import { roundRobinFetch } from '../support/round-robin.js';
import { openSse } from '../support/sse-reader.js';
import { startHttpFixture, stdioFixture, type HttpUpstream } from '../support/upstreams.js';

describe('two replicas sharing Redis', () => {
  let shared: HttpUpstream;
  let replicas: GatewayProcess[] = [];
  let config: string;
  const clients: RecordingClient[] = [];

  beforeAll(async () => {
    // Over HTTP the fixture's tool list is one for all its sessions, like a real remote server's:
    // both replicas see the same change, each on its own connection.
    shared = await startHttpFixture('interactive-server');
    config = writeConfigFile({
      sessions: { store: 'redis', redisUrl: redisUrl(), keyPrefix: uniqueKeyPrefix('replicas') },
      mcpServers: { shared: { url: shared.url }, local: stdioFixture('interactive-server') },
    });
    replicas = await Promise.all([startGatewayProcess(config), startGatewayProcess(config)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await Promise.all(replicas.map((replica) => replica.stop()));
    await shared?.stop();
  });

  const [first, second] = [() => replicas[0] as GatewayProcess, () => replicas[1] as GatewayProcess];
  async function client(): Promise<RecordingClient> {
    const connected = await connectRecordingClient(first().url, { fetch: roundRobinFetch(() => replicas) });
    clients.push(connected);
    return connected;
  }

  it('serves a session on either replica, whichever initialized it', async () => {
    const { sessionId } = await openSession(first().url);
    const viaSecond = await rawPost(second().url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'local__roots_changes', arguments: {} } }, { sessionId });
    expect(viaSecond.status).toBe(200);
    const alice = await client();
    for (let call = 0; call < 4; call += 1) {
      expect(firstText(await alice.client.callTool({ name: 'shared__progress', arguments: { steps: 1 } }))).toBe('1 steps done');
    }
  });

  it('serves a session on a replica that is still starting, once that replica has its upstreams', async () => {
    const { sessionId } = await openSession(first().url);
    // Listening, but its stdio upstream still starting: the session's call waits for it, not "unknown tool".
    const starting = await startGatewayProcess(config);
    try {
      const call = await rawPost(starting.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'local__roots_changes', arguments: {} } }, { sessionId });
      expect(call.status).toBe(200);
      expect(JSON.stringify(call.body)).not.toContain('error');
    } finally {
      await starting.stop();
    }
  });

  it('tells every session about a list change once, although both replicas see it', async () => {
    const alice = await client();
    const bob = await client();
    await alice.client.callTool({ name: 'shared__add_tool', arguments: { name: 'replicated_tool' } });
    await alice.waitFor('notifications/tools/list_changed');
    await bob.waitFor('notifications/tools/list_changed');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(alice.received('notifications/tools/list_changed')).toHaveLength(1);
    expect(bob.received('notifications/tools/list_changed')).toHaveLength(1);
    for (const replica of replicas) {
      const { sessionId } = await openSession(replica.url);
      const tools = await rawPost(replica.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { sessionId });
      expect(JSON.stringify(tools.body)).toContain('shared__replicated_tool');
    }
  });

  it('carries a client answer to a sampling request back to the replica that waits for it', async () => {
    const capable = await rawInitialize(first().url, { sampling: {} });
    const stream = await openSse(first().url, {
      method: 'POST',
      sessionId: capable,
      body: { jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: { name: 'local__ask_sampling', arguments: { prompt: 'across' } } },
    });
    let request: Record<string, unknown> | undefined;
    while (!request) {
      const event = await stream.next();
      if (!event) break;
      if (event.message?.method === 'sampling/createMessage') request = event.message;
    }
    expect(request).toBeDefined();
    const answer = await rawPost(
      second().url,
      { jsonrpc: '2.0', id: request?.id, result: { role: 'assistant', content: { type: 'text', text: 'answered on the other replica' }, model: 'm' } },
      { sessionId: capable },
    );
    expect(answer.status).toBe(202);
    const result = await stream.next();
    expect(result?.message).toMatchObject({ id: 'call-1', result: { content: [{ text: expect.stringContaining('answered on the other replica') }] } });
  });

  it('cancels an upstream request when the cancellation reaches the other replica', async () => {
    const sessionId = await rawInitialize(first().url, {});
    const slow = rawPost(first().url, { jsonrpc: '2.0', id: 'slow-1', method: 'tools/call', params: { name: 'local__slow', arguments: { ms: 20_000, tag: 'cross-replica' } } }, { sessionId });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cancel = await rawPost(second().url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow-1', reason: 'no longer needed' } }, { sessionId });
    expect(cancel.status).toBe(202);
    await slow;
    const cancelled = await rawPost(first().url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'local__cancellations', arguments: {} } }, { sessionId });
    expect(JSON.stringify(cancelled.body)).toContain('cross-replica');
  });

  it('loses nothing when a replica is killed: the session goes on elsewhere and its stream resumes there', async () => {
    const sessionId = await rawInitialize(first().url, {});
    const stream = await openSse(first().url, { sessionId });
    const priming = await stream.next();
    await rawPost(second().url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'shared__add_tool', arguments: { name: 'before_the_crash' } } }, { sessionId });
    const seen = await stream.next();
    expect(seen?.message).toMatchObject({ method: 'notifications/tools/list_changed' });
    const lastEventId = seen?.id ?? priming?.id ?? '';

    first().child.kill('SIGKILL');
    await new Promise((resolve) => first().child.once('exit', resolve));
    stream.abort();

    // While the client has no stream, the list changes again; the survivor queues it.
    const call = await rawPost(second().url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shared__add_tool', arguments: { name: 'after_the_crash' } } }, { sessionId });
    expect(call.status).toBe(200);
    const resumed = await openSse(second().url, { sessionId, lastEventId });
    expect(resumed.status).toBe(200);
    const missed = await resumed.next();
    expect(missed?.message).toMatchObject({ method: 'notifications/tools/list_changed' });
    expect(missed?.id).not.toBe(lastEventId);
    expect(missed?.id?.split('.')[0]).toBe(lastEventId.split('.')[0]);
    resumed.abort();

    const tools = await rawPost(second().url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { sessionId });
    expect(JSON.stringify(tools.body)).toContain('shared__after_the_crash');
  });
});

async function rawInitialize(url: string, capabilities: Record<string, unknown>): Promise<string> {
  const init = await rawPost(url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'replica-test', version: '1.0.0' } },
  });
  const sessionId = init.headers.get('mcp-session-id');
  if (!sessionId) throw new Error(`initialize failed: ${JSON.stringify(init.body)}`);
  await rawPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId });
  return sessionId;
}
