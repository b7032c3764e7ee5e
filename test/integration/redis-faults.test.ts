// The shared store under faults: a Redis of the test's own is killed (SIGKILL) while clients call
// through the gateway every ~20 ms, kept down for 3 s, and started again. What clients may see
// meanwhile is 2xx or 503 with Retry-After (never a 500, never a hang); what they saw must match
// what reached the upstream (a 2xx call exactly once, a 503 call never). With an append-only
// file every session survives; without one, sessions are gone (404) and a new initialize works.
import { skipWithout } from '../support/required-tools.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeAnswers, doneOtherThanOnce, FaultTraffic, tally } from '../support/fault-traffic.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { hasRedisServer, startKillableRedis, type KillableRedis } from '../support/killable-redis.js';
import { MCP_ACCEPT, openSession, rawPost, rawRequest } from '../support/raw-http.js';
import { stdioFixture } from '../support/upstreams.js';

const OUTAGE_MS = 3_000;
const CLIENTS = 4;
/** A command timeout (2 s) and a little: no answer may take longer, outage or not. */
const BOUND_MS = 3_000;
const RECOVERY = { timeout: 15_000, interval: 100 };

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('the gateway while its Redis restarts', () => {
  const started: { redis?: KillableRedis; gateway?: TestGateway }[] = [];

  afterEach(async () => {
    for (const { gateway, redis } of started.splice(0)) {
      await gateway?.close();
      await redis?.stop();
    }
  });

  async function gatewayOn(options: { appendOnly: boolean }): Promise<{ redis: KillableRedis; gateway: TestGateway }> {
    const redis = await startKillableRedis(options);
    const entry: { redis?: KillableRedis; gateway?: TestGateway } = { redis };
    started.push(entry);
    entry.gateway = await startGateway({ sessions: { redisUrl: redis.url }, mcpServers: { tally: stdioFixture('tally-server') } });
    return { redis, gateway: entry.gateway };
  }

  /** Traffic, then SIGKILL, OUTAGE_MS of nothing, a restart, and traffic until every client was answered again. */
  async function throughAnOutage(redis: KillableRedis, traffic: FaultTraffic, recovered = (backAt: number) => traffic.allAnsweredSince(backAt)): Promise<{ killedAt: number; backAt: number }> {
    traffic.start();
    await sleep(500);
    const killedAt = Date.now();
    await redis.kill();
    await sleep(OUTAGE_MS);
    await redis.restart();
    const backAt = Date.now();
    try {
      await expect.poll(() => recovered(backAt), RECOVERY).toBe(true);
    } finally {
      await traffic.stop();
    }
    return { killedAt, backAt };
  }

  it('with an append-only file: no session is lost, and the only non-2xx answers are 503 with Retry-After', async () => {
    const { redis, gateway } = await gatewayOn({ appendOnly: true });
    const traffic = await FaultTraffic.open([gateway.url], CLIENTS);
    const { killedAt, backAt } = await throughAnOutage(redis, traffic);

    const { answers, failures } = traffic;
    const during = answers.filter(({ startedAt }) => startedAt >= killedAt && startedAt < backAt);
    expect(failures.length, describeAnswers(answers)).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure, describeAnswers(answers)).toMatchObject({ status: 503, retryAfter: '1', errorMessage: 'the session store is unavailable; retry' });
    }
    // Bounded: a command timeout at most, never a stall until Redis is back.
    expect(Math.max(...answers.map(({ ms }) => ms)), describeAnswers(answers)).toBeLessThan(BOUND_MS);
    // Calls kept coming during the outage: answered, not queued behind it.
    expect(during.length).toBeGreaterThan(CLIENTS * 10);
    // Every session was served after the restart, none 404: all of them survived.
    expect(traffic.allAnsweredSince(backAt)).toBe(true);

    expect(doneOtherThanOnce(answers, { [gateway.url]: await tally(gateway.url) })).toEqual([]);
  });

  it('without persistence: sessions are gone (404) after the restart, a new initialize works, and nothing hangs', async () => {
    const { redis, gateway } = await gatewayOn({ appendOnly: false });
    const traffic = await FaultTraffic.open([gateway.url], CLIENTS);
    // Each client's session is unknown to the empty Redis: 404, once the replica's copy aged out.
    const everyClientLost = (backAt: number) =>
      traffic.clients.every((_, client) => traffic.answers.some((answer) => answer.client === client && answer.startedAt >= backAt && answer.status === 404));
    await throughAnOutage(redis, traffic, everyClientLost);

    const { answers } = traffic;
    for (const failure of traffic.failures) {
      if (failure.status === 404) expect(failure.errorMessage).toBe('Session not found');
      else expect(failure, describeAnswers(answers)).toMatchObject({ status: 503, retryAfter: '1' });
    }
    expect(Math.max(...answers.map(({ ms }) => ms)), describeAnswers(answers)).toBeLessThan(BOUND_MS);
    // The spec's rule: a 404 for a session means "start a new one", and that works at once.
    const { sessionId } = await openSession(gateway.url);
    const answer = await rawPost(
      gateway.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tally__record', arguments: { key: 'after' } } },
      { sessionId, headers: { 'mcp-protocol-version': '2025-11-25' } },
    );
    expect(answer.status).toBe(200);
    expect(doneOtherThanOnce(answers, { [gateway.url]: await tally(gateway.url) })).toEqual([]);
  });
});

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('requests that need the store while it is down', () => {
  let redis: KillableRedis;
  let gateway: TestGateway;
  let sessionId: string;

  beforeAll(async () => {
    redis = await startKillableRedis();
    gateway = await startGateway({ sessions: { redisUrl: redis.url }, mcpServers: { tally: stdioFixture('tally-server') } });
    ({ sessionId } = await openSession(gateway.url));
    await redis.kill();
    // The replica's copy of the session is served for at most a second (caching-store.ts).
    await sleep(1_100);
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await redis?.stop();
  });

  const storeUnavailable = {
    status: 503,
    body: { jsonrpc: '2.0', error: { code: -32014, message: 'the session store is unavailable; retry', data: { reason: 'session-store-unavailable', retryAfterSeconds: 1 } } },
  };

  function expectRetryLater(response: { status: number; headers: Headers; body: unknown }): void {
    expect(response).toMatchObject(storeUnavailable);
    expect(response.headers.get('retry-after')).toBe('1');
  }

  it('answers initialize with 503 and Retry-After, and the request\'s id', async () => {
    const response = await rawPost(gateway.url, {
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'faults', version: '1' } },
    });
    expectRetryLater(response);
    expect(response.body).toMatchObject({ id: 7 });
  });

  it('answers a request of a session with 503 and Retry-After, and the request\'s id', async () => {
    const response = await rawPost(gateway.url, { jsonrpc: '2.0', id: 'seven', method: 'tools/list' }, { sessionId, headers: { 'mcp-protocol-version': '2025-11-25' } });
    expectRetryLater(response);
    expect(response.body).toMatchObject({ id: 'seven' });
  });

  it('answers a notification of a session with 503 and a null id: there is no request to answer', async () => {
    const response = await rawPost(gateway.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, { sessionId, headers: { 'mcp-protocol-version': '2025-11-25' } });
    expectRetryLater(response);
    expect(response.body).toMatchObject({ id: null });
  });

  it('answers a GET stream and a DELETE with 503 and Retry-After', async () => {
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    expectRetryLater(await rawRequest(gateway.url, 'GET', { ...headers, accept: 'text/event-stream' }));
    expectRetryLater(await rawRequest(gateway.url, 'DELETE', headers));
  });

  it('serves a 2026 request that does not need the store', async () => {
    const response = await rawPost(
      gateway.url,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: {
          name: 'tally__record',
          arguments: { key: 'modern' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'faults', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      { headers: { accept: MCP_ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'tally__record' } },
    );
    expect(response.status).toBe(200);
  });

  it('stays ready meanwhile, and says the store is down', async () => {
    const ready = await rawRequest(new URL('/readyz', gateway.url).toString(), 'GET');
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready', store: { state: 'outage', kind: 'down' } } });
  });
});

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('Redis Cluster', () => {
  it('is refused at start, saying why and what to use instead', async () => {
    const redis = await startKillableRedis({ args: ['--cluster-enabled', 'yes'] });
    try {
      await expect(startGateway({ sessions: { redisUrl: redis.url }, mcpServers: {} })).rejects.toThrow(
        /runs in cluster mode, which Switchboard does not support: .*hash slots.*Sentinel/,
      );
    } finally {
      await redis.stop();
    }
  });
});
