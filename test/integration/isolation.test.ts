// `isolation: session`: each client session has its own upstream connection, so what one session
// changes or is asked, the other never sees; across replicas, a session-isolated stdio server is
// reached through the replica that runs it, and an HTTP one continues the same upstream session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startGatewayProcess, writeConfigFile, type GatewayProcess } from '../support/gateway-process.js';
import { connectRecordingClient, firstText, type RecordingClient } from '../support/recording-client.js';
import { redisUrl, uniqueKeyPrefix } from '../support/redis.js';
import { roundRobinFetch } from '../support/round-robin.js';
import { startHttpFixture, stdioFixture, type HttpUpstream } from '../support/upstreams.js';

describe('a session-isolated stdio server in one replica', () => {
  let gateway: TestGateway;
  const clients: RecordingClient[] = [];

  beforeAll(async () => {
    gateway = await startGateway({
      mcpServers: {
        // The first list waits for the process however loaded the machine (the list's bound is
        // isolation-faults.test.ts's subject).
        own: { ...stdioFixture('interactive-server'), isolation: 'session', listConnectTimeoutMs: 30_000 },
        common: stdioFixture('twin-server', { TWIN_LABEL: 'common' }),
      },
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await gateway?.close();
  });

  async function client(): Promise<RecordingClient> {
    const connected = await connectRecordingClient(gateway.url);
    clients.push(connected);
    return connected;
  }

  it('lists the isolated server next to the shared ones', async () => {
    const alice = await client();
    const names = (await alice.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['own__progress', 'own__add_tool', 'common__whoami']));
  });

  it('keeps one session list change away from the other session', async () => {
    const alice = await client();
    const bob = await client();
    await alice.client.callTool({ name: 'own__add_tool', arguments: { name: 'only_for_alice' } });
    await alice.waitFor('notifications/tools/list_changed');
    expect((await alice.client.listTools()).tools.map((tool) => tool.name)).toContain('own__only_for_alice');
    expect((await bob.client.listTools()).tools.map((tool) => tool.name)).not.toContain('own__only_for_alice');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bob.received('notifications/tools/list_changed')).toEqual([]);
  });

  it('relays each session requests to that session, even with calls of both in flight', async () => {
    const alice = await client();
    const bob = await client();
    const [forAlice, forBob] = await Promise.all([
      alice.client.callTool({ name: 'own__ask_sampling', arguments: { prompt: 'alice asks' } }),
      bob.client.callTool({ name: 'own__ask_sampling', arguments: { prompt: 'bob asks' } }),
    ]);
    expect(firstText(forAlice)).toContain('sampled: alice asks');
    expect(firstText(forBob)).toContain('sampled: bob asks');
    expect(alice.requests).toHaveLength(1);
    expect(bob.requests).toHaveLength(1);
  });

  it('gives each session its own process', async () => {
    const alice = await client();
    const bob = await client();
    expect(firstText(await alice.client.callTool({ name: 'own__roots_changes', arguments: {} }))).toBe('0');
    await alice.client.sendRootsListChanged();
    await expect.poll(async () => firstText(await alice.client.callTool({ name: 'own__roots_changes', arguments: {} }))).toBe('1');
    expect(firstText(await bob.client.callTool({ name: 'own__roots_changes', arguments: {} }))).toBe('0');
  });
});

describe('session-isolated servers across two replicas sharing Redis', () => {
  let echo: HttpUpstream;
  let replicas: GatewayProcess[] = [];
  const clients: RecordingClient[] = [];

  beforeAll(async () => {
    echo = await startHttpFixture('header-echo-server');
    const config = writeConfigFile({
      sessions: { store: 'redis', redisUrl: redisUrl(), keyPrefix: uniqueKeyPrefix('isolation') },
      mcpServers: {
        // The first list waits for the process however loaded the machine (the list's bound is
        // isolation-faults.test.ts's subject).
        own: { ...stdioFixture('interactive-server'), isolation: 'session', listConnectTimeoutMs: 30_000 },
        echo: { url: echo.url, isolation: 'session' },
      },
    });
    replicas = await Promise.all([startGatewayProcess(config), startGatewayProcess(config)]);
  }, 90_000);

  afterAll(async () => {
    // A replica that died mid-test says why here (its stderr holds the stack).
    for (const replica of replicas) expect(replica.child.exitCode, replica.stderr.join('').slice(-2000)).toBeNull();
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await Promise.all(replicas.map((replica) => replica.stop()));
    await echo?.stop();
  });

  async function client(): Promise<RecordingClient> {
    const connected = await connectRecordingClient(replicas[0]?.url ?? '', { fetch: roundRobinFetch(() => replicas) });
    clients.push(connected);
    return connected;
  }

  it('reaches the replica that runs the session process, whichever replica the request lands on', async () => {
    const alice = await client();
    await alice.client.callTool({ name: 'own__add_tool', arguments: { name: 'made_on_one_replica' } });
    for (let attempt = 0; attempt < 4; attempt += 1) {
      // Alternating replicas: both must show the session's own process, with its new tool.
      expect((await alice.client.listTools()).tools.map((tool) => tool.name)).toContain('own__made_on_one_replica');
    }
    const updates: number[] = [];
    const result = await alice.client.callTool({ name: 'own__progress', arguments: { steps: 2 } }, { onprogress: (update) => updates.push(update.progress) });
    expect(firstText(result)).toBe('2 steps done');
    expect(updates).toEqual([1, 2]);
    expect(firstText(await alice.client.callTool({ name: 'own__ask_sampling', arguments: { prompt: 'across' } }))).toContain('sampled: across');
  });

  it('continues the same upstream HTTP session on either replica, and another session gets its own', async () => {
    const alice = await client();
    const bob = await client();
    const upstreamSession = async (who: RecordingClient) =>
      (JSON.parse(firstText(await who.client.callTool({ name: 'echo__last_headers', arguments: {} }))) as Record<string, string>)['mcp-session-id'];
    const seen = new Set<string | undefined>();
    for (let attempt = 0; attempt < 4; attempt += 1) seen.add(await upstreamSession(alice));
    expect(seen.size).toBe(1);
    expect([...seen][0]).toBeTruthy();
    expect(await upstreamSession(bob)).not.toBe([...seen][0]);
  });
});

describe('a bound on session connections (maxSessions)', () => {
  let echo: HttpUpstream;
  let gateway: TestGateway;
  const clients: RecordingClient[] = [];

  beforeAll(async () => {
    echo = await startHttpFixture('header-echo-server');
    gateway = await startGateway({ mcpServers: { echo: { url: echo.url, isolation: 'session', maxSessions: 1 } } });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await gateway?.close();
    await echo?.stop();
  });

  it('closes the least recently used idle connection to make room, and the session continues its upstream session later', async () => {
    const [alice, bob] = await Promise.all([connectRecordingClient(gateway.url), connectRecordingClient(gateway.url)]);
    clients.push(alice, bob);
    const upstreamSession = async (who: RecordingClient) =>
      (JSON.parse(firstText(await who.client.callTool({ name: 'echo__last_headers', arguments: {} }))) as Record<string, string>)['mcp-session-id'];
    const connects = () => gateway.logs.filter((line) => line.msg === 'upstream connected' && line.server === 'echo').length;
    const before = await upstreamSession(alice);
    const connectsBefore = connects();
    const bobs = await upstreamSession(bob);
    // Bob's connection took the one place: Alice's idle one was closed, and reopens on her next call.
    expect(await upstreamSession(alice)).toBe(before);
    expect(bobs).not.toBe(before);
    expect(connects()).toBe(connectsBefore + 2);
  });
});
