// limits.servers through the official MCP clients of both eras: a principal over one server's rate
// (counted across two replicas sharing Redis) or one tool's gets a JSON-RPC error naming the server
// and the wait, while its calls to other servers go on; a server with a concurrency cap queues a
// call while it is busy, refuses beyond its queue or after too long a wait, and gets its slot back
// from a cancelled call; and a reload changes the limits in place.
import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { scrapeMetrics } from '../support/metrics-scrape.js';
import { connectModern } from '../support/modern-client.js';
import { firstText } from '../support/recording-client.js';
import { redisUrl } from '../support/redis.js';
import { roundRobinFetch } from '../support/round-robin.js';
import { stdioFixture } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const LIMIT_EXCEEDED = -32003;
const clients: Client[] = [];

/** The v2 client in its default (2025, session) mode. */
async function sessionClient(url: string, options: { headers?: Record<string, string>; fetch?: FetchLike } = {}): Promise<Client> {
  const client = new Client({ name: 'server-limits-2025', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(options.headers && { requestInit: { headers: options.headers } }),
      ...(options.fetch && { fetch: options.fetch }),
    }),
  );
  clients.push(client);
  return client;
}

/** The v2 client pinned to 2026-07-28: every call a stateless request. */
async function modernClient(url: string, headers?: Record<string, string>): Promise<Client> {
  const client = await connectModern(url, headers ? { headers } : {});
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  return firstText(await client.callTool({ name, arguments: args }));
}

/** What a 2025 client gets when a server's limit refuses its call. */
function refusal(server: string, reason: string, message: RegExp): Record<string, unknown> {
  return { code: LIMIT_EXCEEDED, message: expect.stringMatching(message), data: expect.objectContaining({ server, reason, retryAfterSeconds: expect.any(Number) }) };
}

/** The same for a 2026 client: codes of the legacy range reach it as -32603, the original in data. */
function modernRefusal(server: string, reason: string, message: RegExp): Record<string, unknown> {
  return {
    code: -32603,
    message: expect.stringMatching(message),
    data: { code: LIMIT_EXCEEDED, detail: expect.objectContaining({ server, reason, retryAfterSeconds: expect.any(Number) }) },
  };
}

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
});

describe('per-server rate limits on two replicas sharing Redis', () => {
  let issuer: LocalIssuer;
  let first: TestGateway;
  let second: TestGateway;
  const replicas = () => [first, second];

  beforeAll(async () => {
    issuer = await startLocalIssuer(PUBLIC_URL);
    const config: ConfigInput = {
      server: { publicUrl: PUBLIC_URL },
      sessions: { store: 'redis', redisUrl: redisUrl() },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
      // `slow` is renamed: clients call it `take_time`, limits.servers names it by the upstream's own name.
      mcpServers: { 'Git Hub': { ...stdioFixture('interactive-server'), tools: { slow: { name: 'take_time' } } }, free: stdioFixture('interactive-server') },
      limits: { servers: { 'Git Hub': { requestsPerMinute: 4, tools: { progress: { requestsPerMinute: 1 }, slow: { requestsPerMinute: 1 } } } } },
    };
    [first, second] = await Promise.all([startGateway(config), startGateway(config)]);
    // A session's requests may reach a replica that did not initialize it: both must have their
    // upstreams' lists first (an initialize waits for them; a session's later requests do not).
    const headers = { authorization: `Bearer ${await issuer.token({ sub: 'warm-up' })}` };
    await Promise.all(replicas().map((replica) => sessionClient(replica.url, { headers })));
  }, 90_000);

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await issuer?.stop();
  });

  /** A principal no earlier test (or run: Redis keeps counts two minutes) has used. */
  async function principal(label: string): Promise<{ sub: string; headers: Record<string, string> }> {
    const sub = `${label}-${randomUUID()}`;
    return { sub, headers: { authorization: `Bearer ${await issuer.token({ sub })}` } };
  }

  const auditLines = (gateway: TestGateway, sub: string) => gateway.logs.filter((line) => line.audit === true && line.sub === sub);

  it('refuses a 2025 session over a server\'s limit, its calls spread over both replicas, while another server still answers', async () => {
    const alice = await principal('alice');
    const client = await sessionClient(first.url, { headers: alice.headers, fetch: roundRobinFetch(replicas) });
    for (let index = 0; index < 4; index++) await call(client, 'git-hub__roots_changes');
    await expect(client.callTool({ name: 'git-hub__roots_changes', arguments: {} })).rejects.toMatchObject(
      refusal('Git Hub', 'rate-limit', /Rate limit of server "Git Hub" reached \(4 calls a minute per principal\): retry in \d+ s/),
    );
    expect(await call(client, 'free__roots_changes')).toMatch(/^\d+$/);

    // Both replicas served some of the four calls: the count is one, in Redis.
    const served = replicas().map((replica) => auditLines(replica, alice.sub).filter((line) => line.server === 'Git Hub' && line.outcome === 'ok').length);
    expect(served.every((count) => count > 0)).toBe(true);
    expect(served[0]! + served[1]!).toBe(4);

    // The refusal has its audit line and its count, on the replica that refused it.
    const denied = replicas().flatMap((replica) => auditLines(replica, alice.sub).filter((line) => line.outcome === 'denied'));
    expect(denied).toEqual([
      expect.objectContaining({ method: 'tools/call', server: 'Git Hub', name: 'roots_changes', outcome: 'denied', reason: 'rate-limit', errorCode: LIMIT_EXCEEDED }),
    ]);
    const refusals = await Promise.all(replicas().map(async (replica) => (await scrapeMetrics(replica.url)).value('switchboard_limit_refusals_total', { server: 'git-hub', kind: 'rate-limit' })));
    expect(refusals[0]! + refusals[1]!).toBeGreaterThanOrEqual(1);

    // Another principal has its own count.
    const bob = await principal('bob');
    expect(await call(await sessionClient(second.url, { headers: bob.headers }), 'git-hub__roots_changes')).toMatch(/^\d+$/);
  });

  it('refuses 2026 requests over a server\'s limit, whichever replica they reach, while another server still answers', async () => {
    const carol = await principal('carol');
    const [viaFirst, viaSecond] = await Promise.all([modernClient(first.url, carol.headers), modernClient(second.url, carol.headers)]);
    for (const client of [viaFirst, viaSecond, viaFirst, viaSecond]) await call(client, 'git-hub__roots_changes');
    for (const client of [viaFirst, viaSecond]) {
      await expect(client.callTool({ name: 'git-hub__roots_changes', arguments: {} })).rejects.toMatchObject(
        modernRefusal('Git Hub', 'rate-limit', /Rate limit of server "Git Hub" reached .*: retry in \d+ s/),
      );
    }
    expect(await call(viaSecond, 'free__roots_changes')).toMatch(/^\d+$/);
  });

  it('refuses a tool over its own limit, naming it as the client called it, while the server\'s other tools go on', async () => {
    const dave = await principal('dave');
    const client = await sessionClient(first.url, { headers: dave.headers, fetch: roundRobinFetch(replicas) });
    expect(await call(client, 'git-hub__progress', { steps: 1 })).toBe('1 steps done');
    const refused = client.callTool({ name: 'git-hub__progress', arguments: { steps: 1 } });
    await expect(refused).rejects.toMatchObject(
      refusal('Git Hub', 'tool-rate-limit', /Rate limit of tool "git-hub__progress" of server "Git Hub" reached \(1 call a minute per principal\): retry in \d+ s/),
    );
    await expect(refused).rejects.toMatchObject({ data: expect.objectContaining({ tool: 'git-hub__progress' }) });
    expect(await call(client, 'git-hub__roots_changes')).toMatch(/^\d+$/);
    const denied = replicas().flatMap((replica) => auditLines(replica, dave.sub).filter((line) => line.outcome === 'denied'));
    expect(denied).toEqual([expect.objectContaining({ server: 'Git Hub', name: 'progress', reason: 'tool-rate-limit' })]);
  });

  it('names a renamed tool by its new name when its limit refuses it, in both eras', async () => {
    const erin = await principal('erin');
    const client = await sessionClient(first.url, { headers: erin.headers });
    expect(await call(client, 'take_time', { ms: 0, tag: 'first' })).toBe('slept 0 ms');
    await expect(client.callTool({ name: 'take_time', arguments: { ms: 0, tag: 'second' } })).rejects.toMatchObject({
      ...refusal('Git Hub', 'tool-rate-limit', /^(MCP error -32003: )?Rate limit of tool "take_time" of server "Git Hub" reached/),
      data: expect.objectContaining({ tool: 'take_time' }),
    });
    const modern = await modernClient(second.url, erin.headers);
    await expect(modern.callTool({ name: 'take_time', arguments: { ms: 0, tag: 'third' } })).rejects.toMatchObject(
      modernRefusal('Git Hub', 'tool-rate-limit', /Rate limit of tool "take_time" of server "Git Hub" reached/),
    );
  });
});

describe('a concurrency cap', () => {
  let gateway: TestGateway;
  const config = (limits: NonNullable<ConfigInput['limits']>): ConfigInput => ({
    mcpServers: { 'Slow Lane': stdioFixture('interactive-server'), free: stdioFixture('interactive-server') },
    limits,
  });
  const CAPPED = { 'Slow Lane': { maxConcurrent: 1, maxQueued: 1, queueTimeoutMs: 1_500 } };

  beforeAll(async () => {
    gateway = await startGateway(config({ servers: CAPPED }), { reloadable: true });
  }, 60_000);
  afterAll(async () => gateway?.close());

  /** Starts a slow call and resolves once the upstream has it (its first progress update). */
  async function occupy(client: Client, ms: number, signal?: AbortSignal): Promise<{ done: Promise<unknown> }> {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const done = client.callTool({ name: 'slow-lane__slow', arguments: { ms, tag: randomUUID() } }, { onprogress: () => started(), ...(signal && { signal }) });
    done.catch(() => {});
    await running;
    return { done };
  }

  it('queues a call while the server is busy, refuses one beyond the queue in both eras, and serves the queued one once the slot frees', async () => {
    // Connected first: what follows must fit well within the queued call's 1.5 s wait.
    const client = await sessionClient(gateway.url);
    const modern = await modernClient(gateway.url);
    const abort = new AbortController();
    const busy = await occupy(client, 30_000, abort.signal);
    const queued = call(client, 'slow-lane__slow', { ms: 0, tag: 'queued' });
    await expect(client.callTool({ name: 'slow-lane__slow', arguments: { ms: 0, tag: 'refused' } })).rejects.toMatchObject(
      refusal('Slow Lane', 'queue-full', /^(MCP error -32003: )?Server "Slow Lane" is busy: 1 call in progress and the queue full: retry in 1 s$/),
    );
    await expect(modern.callTool({ name: 'slow-lane__slow', arguments: { ms: 0, tag: 'refused-2026' } })).rejects.toMatchObject(
      modernRefusal('Slow Lane', 'queue-full', /Server "Slow Lane" is busy/),
    );
    // Another server is not held up.
    expect(await call(modern, 'free__roots_changes')).toMatch(/^\d+$/);
    // The busy call ends (cancelled here, rather than timed): the queued one takes its slot.
    abort.abort();
    await expect(busy.done).rejects.toThrow();
    expect(await queued).toBe('slept 0 ms');
    const kinds = (await scrapeMetrics(gateway.url)).value('switchboard_limit_refusals_total', { server: 'slow-lane', kind: 'queue-full' });
    expect(kinds).toBe(2);
    expect(gateway.logs.filter((line) => line.audit === true && line.reason === 'queue-full')).toEqual([
      expect.objectContaining({ server: 'Slow Lane', name: 'slow', outcome: 'denied' }),
      expect.objectContaining({ server: 'Slow Lane', name: 'slow', outcome: 'denied', era: '2026' }),
    ]);
  });

  it('refuses a call that waited too long for a slot', async () => {
    const client = await sessionClient(gateway.url);
    const abort = new AbortController();
    await occupy(client, 30_000, abort.signal);
    try {
      await expect(client.callTool({ name: 'slow-lane__slow', arguments: { ms: 0, tag: 'late' } })).rejects.toMatchObject(
        refusal('Slow Lane', 'queue-timeout', /Server "Slow Lane" is busy: no call finished within 1500 ms to make room \(at most 1 call at once\): retry in 1 s/),
      );
    } finally {
      abort.abort();
    }
  });

  it('gets the slot back from a cancelled call', async () => {
    const client = await sessionClient(gateway.url);
    const abort = new AbortController();
    const busy = await occupy(client, 30_000, abort.signal);
    abort.abort();
    await expect(busy.done).rejects.toThrow();
    // Admitted at once (well within the queue's 1.5 s), not after the cancelled call's 30 s.
    expect(await call(client, 'slow-lane__slow', { ms: 0, tag: 'after-cancel' })).toBe('slept 0 ms');
  });

  it('follows a reload: a rate added to a server applies at once, with no restart asked for', async () => {
    const client = await sessionClient(gateway.url);
    gateway.rewriteConfig(config({ servers: { ...CAPPED, free: { requestsPerMinute: 1 } } }));
    await expect.poll(() => gateway.logs.some((line) => line.msg === 'config reloaded'), { timeout: 10_000 }).toBe(true);
    expect(await call(client, 'free__roots_changes')).toMatch(/^\d+$/);
    await expect(client.callTool({ name: 'free__roots_changes', arguments: {} })).rejects.toMatchObject(refusal('free', 'rate-limit', /Rate limit of server "free"/));
    expect(gateway.logs.some((line) => line.msg === 'config reload: these sections only take effect after a restart')).toBe(false);
  });
});
