// Every kind of store outage is told: two replicas on one Redis of the test's own, clients opening
// sessions on both every 50 ms, and the Redis killed (down), stopped with SIGSTOP (frozen), demoted
// behind its address with REPLICAOF (read-only), or filled past maxmemory (out of memory). Each
// replica logs one "outage began" and one "outage ended" line with the kind, however many requests
// failed meanwhile, and reports the outage in /readyz (still 200) and switchboard_session_store_up.
import { skipWithout } from '../support/required-tools.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { hasRedisServer, startKillableRedis, type KillableRedis } from '../support/killable-redis.js';
import { scrapeMetrics } from '../support/metrics-scrape.js';
import { rawPost, rawRequest } from '../support/raw-http.js';

const OUTAGE_MS = 3_000;
const POLL = { timeout: 15_000, interval: 100 };

interface Outage {
  /** What the Redis is made to do, and what undoes it. */
  begin(target: Target): Promise<void>;
  end(target: Target): Promise<void>;
}

interface Target {
  readonly redis: KillableRedis;
  /** A connection of the test's own: CONFIG, REPLICAOF (it waits too while Redis is frozen). */
  readonly admin: Redis;
  readonly pid: number;
}

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('store outages, each logged once when it begins and once when it ends', () => {
  const cleanups: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const kinds: Record<string, Outage> = {
    down: {
      begin: ({ redis }) => redis.kill(),
      end: ({ redis }) => redis.restart(),
    },
    frozen: {
      begin: async ({ pid }) => void process.kill(pid, 'SIGSTOP'),
      end: async ({ pid }) => void process.kill(pid, 'SIGCONT'),
    },
    'read-only': {
      async begin({ admin }) {
        const master = await startKillableRedis();
        cleanups.push(() => master.stop());
        await admin.config('SET', 'replica-read-only', 'yes');
        await admin.call('REPLICAOF', '127.0.0.1', String(master.port));
        await expect.poll(async () => /master_link_status:up/.test(await admin.info('replication')), POLL).toBe(true);
      },
      async end({ admin }) {
        await admin.call('REPLICAOF', 'NO', 'ONE');
      },
    },
    'out-of-memory': {
      // Any dataset is over one byte; the default policy (noeviction) refuses writes.
      begin: async ({ admin }) => void (await admin.config('SET', 'maxmemory', '1')),
      end: async ({ admin }) => void (await admin.config('SET', 'maxmemory', '0')),
    },
  };

  for (const [kind, outage] of Object.entries(kinds)) {
    it(`${kind}: one "began" and one "ended" line per replica, readyz 200 with the store's state, store_up 0 meanwhile`, async () => {
      const redis = await startKillableRedis();
      cleanups.push(() => redis.stop());
      const replicas: TestGateway[] = [];
      for (let index = 0; index < 2; index++) {
        const gateway = await startGateway({ sessions: { redisUrl: redis.url, keyPrefix: `outages-${kind}:` }, mcpServers: {} });
        cleanups.push(() => gateway.close());
        replicas.push(gateway);
      }
      const admin = new Redis(redis.url, { maxRetriesPerRequest: 0, lazyConnect: true });
      admin.on('error', () => {});
      await admin.connect();
      cleanups.push(async () => admin.disconnect());
      const target: Target = { redis, admin, pid: Number(/^process_id:(\d+)/m.exec(await admin.info('server'))![1]) };

      let running = true;
      const traffic = Promise.all(
        replicas.map(async (gateway) => {
          while (running) {
            await initialize(gateway.url);
            await sleep(50);
          }
        }),
      );
      try {
        await sleep(300);
        await outage.begin(target);
        await expect.poll(() => Promise.all(replicas.map((gateway) => began(gateway).length)), POLL).toEqual([1, 1]);
        for (const gateway of replicas) {
          const ready = await rawRequest(new URL('/readyz', gateway.url).toString(), 'GET');
          expect(ready).toMatchObject({ status: 200, body: { status: 'ready', store: { state: 'outage', kind } } });
          expect((await scrapeMetrics(gateway.url)).value('switchboard_session_store_up')).toBe(0);
        }
        await sleep(OUTAGE_MS);
        await outage.end(target);
        await expect.poll(() => Promise.all(replicas.map((gateway) => ended(gateway).length)), POLL).toEqual([1, 1]);
        // Served again, and nothing more to tell.
        await expect.poll(() => Promise.all(replicas.map(async (gateway) => (await initialize(gateway.url)).status)), POLL).toEqual([200, 200]);
        await sleep(1_000);
      } finally {
        running = false;
        await traffic;
      }
      for (const gateway of replicas) {
        expect(began(gateway)).toEqual([expect.objectContaining({ level: 'warn', outage: kind, redis: redis.url })]);
        expect(ended(gateway)).toEqual([expect.objectContaining({ level: 'info', outage: kind, durationMs: expect.any(Number) })]);
        const ready = await rawRequest(new URL('/readyz', gateway.url).toString(), 'GET');
        expect(ready).toMatchObject({ status: 200, body: { status: 'ready', store: { state: 'answering' } } });
      }
    }, 60_000);
  }
});

function began(gateway: TestGateway): Record<string, unknown>[] {
  return gateway.logs.filter((line) => line.msg === 'session store outage began');
}

function ended(gateway: TestGateway): Record<string, unknown>[] {
  return gateway.logs.filter((line) => line.msg === 'session store outage ended');
}

async function initialize(url: string): Promise<{ status: number }> {
  try {
    return await rawPost(url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'outages', version: '1' } },
    });
  } catch {
    return { status: 0 };
  }
}
