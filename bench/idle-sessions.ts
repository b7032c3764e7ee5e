// Scale rows, part two: 10,000 idle 2025 sessions through the gateway, with the memory store and
// with the Redis store, and a list_changed fan-out to all of them. Per idle session: the gateway's
// memory growth after a full GC (it runs with --expose-gc; front-hooks.mjs triggers the GC and reads
// process.memoryUsage()), and Redis `INFO memory` used_memory growth. The fan-out is timed from the
// call that makes the upstream change its list (test/fixtures/many-tools.mjs `bump`) to the
// gateway's switchboard_notifications_forwarded_total having counted every session, which it does
// once the notification is queued in every session's event log. Each store's gateway runs alone.
import { Redis } from 'ioredis';
import { Pool } from 'undici';

import { metricValue } from '../test/support/metrics-scrape.js';
import type { MemoryUsage } from './front-control.js';
import { ECHO_ARGUMENTS } from './operations.js';
import { call, endpointOn, openSession, request, type Endpoint } from './http-load.js';
import { startGateway, startRedis, type RunningFront } from './processes.js';
import { MANY_TOOLS } from './scale-tools-list.js';
import { BENCH_STATE_SECRET, type GatewaySettings } from './stack.js';

export const IDLE_SESSIONS = 10_000;
const IN_FLIGHT = 50;
/** Opened and closed again before the baseline is taken. */
const WARMUP_SESSIONS = 2_000;
const OPEN_MAX_MS = 90_000;
const FANOUT_MAX_MS = 60_000;
// Each scrape costs the gateway a little; 50 ms is fine grain for a fan-out that takes ~100s of ms.
const POLL_MS = 50;
const FORWARDED = 'switchboard_notifications_forwarded_total';
const LIST_CHANGED = { method: 'notifications/tools/list_changed' };

export type Store = 'memory' | 'redis';

export interface SessionsResult {
  readonly store: Store;
  readonly sessions: number;
  /** initialize calls per second while opening them (50 in flight). */
  readonly opensPerSecond: number;
  /** Growth per session after a full GC: the V8 heap, and the whole process's resident set. */
  readonly gatewayHeapBytesPerSession: number;
  readonly gatewayRssBytesPerSession: number;
  /** Whether the GC could be forced (else the heap figure includes garbage). */
  readonly gcForced: boolean;
  /** Redis used_memory growth per session (Redis store only). */
  readonly redisBytesPerSession?: number;
  /** From the bump call to the last session's notification queued; undefined if it did not finish in time. */
  readonly fanoutMs: number | undefined;
  /** Sessions the fan-out reached within its bound. */
  readonly fanoutSessions: number;
  /** Heap growth per session after the fan-out: each session's event log now holds one notification. */
  readonly heapBytesPerSessionAfterFanout: number;
}

export async function idleSessions(store: Store, gateway: GatewaySettings, progress: (message: string) => void): Promise<SessionsResult> {
  const redis = store === 'redis' ? await startRedis() : undefined;
  const sessions = redis === undefined ? {} : { sessions: { store: 'redis', redisUrl: redis.url, keyPrefix: 'bench-idle:' }, mrtr: { stateSecret: BENCH_STATE_SECRET } };
  const front = await startGateway({
    label: `sessions-${store}`,
    config: { server: { host: '127.0.0.1', shutdownTimeoutSeconds: 5 }, ...sessions, mcpServers: { tools: { command: process.execPath, args: [MANY_TOOLS], env: { TOOL_COUNT: '5' } } } },
    ...gateway,
    nodeArgs: [...(gateway.nodeArgs ?? []), '--expose-gc'],
  });
  const redisClient = redis === undefined ? undefined : new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const { origin, pathname } = new URL(front.url);
  const pool = new Pool(origin, { connections: IN_FLIGHT });
  const endpoint = endpointOn(pool, pathname);
  try {
    await redisClient?.connect();
    // A gateway in its steady state first: code paths warm, and the heap pages that a burst of
    // requests makes V8 commit already committed, so that what grows after is the sessions.
    const caller = await openSession(endpoint);
    await call(endpoint, 'echo', 'tools/call', { name: 'tools__echo', arguments: ECHO_ARGUMENTS }, caller);
    await openIdle(endpoint, WARMUP_SESSIONS, OPEN_MAX_MS, true);
    const before = await snapshot(front, redisClient);

    progress(`sessions ${store}: opening ${IDLE_SESSIONS} sessions, ${IN_FLIGHT} in flight`);
    const started = performance.now();
    const opened = await openIdle(endpoint, IDLE_SESSIONS, OPEN_MAX_MS);
    const opensPerSecond = opened / ((performance.now() - started) / 1000);
    const idle = await snapshot(front, redisClient);
    progress(`sessions ${store}: ${opened} open; fanning out a tools list_changed`);

    const fanout = await timeFanout(front, endpoint, caller, opened + 1);
    const after = await snapshot(front, redisClient);
    const per = (bytes: number): number => bytes / Math.max(1, opened);
    return {
      store,
      sessions: opened,
      opensPerSecond,
      gatewayHeapBytesPerSession: per(idle.memory.heapUsed - before.memory.heapUsed),
      gatewayRssBytesPerSession: per(idle.memory.rss - before.memory.rss),
      gcForced: idle.memory.gc,
      ...(idle.redisUsed !== undefined && before.redisUsed !== undefined && { redisBytesPerSession: per(idle.redisUsed - before.redisUsed) }),
      fanoutMs: fanout.ms,
      fanoutSessions: fanout.reached,
      heapBytesPerSessionAfterFanout: per(after.memory.heapUsed - before.memory.heapUsed),
    };
  } finally {
    await pool.destroy();
    redisClient?.disconnect();
    // The sessions die with the gateway; the next phase gets the cores (and the memory) back.
    await front.stop();
    await redis?.stop();
  }
}

interface Snapshot {
  readonly memory: MemoryUsage;
  readonly redisUsed: number | undefined;
}

async function snapshot(front: RunningFront, redis: Redis | undefined): Promise<Snapshot> {
  const memory = await front.control.memory();
  const info = redis === undefined ? undefined : await redis.info('memory');
  const used = info === undefined ? undefined : /^used_memory:(\d+)/m.exec(info)?.[1];
  return { memory, redisUsed: used === undefined ? undefined : Number(used) };
}

/**
 * Opens up to `count` sessions (initialize only: an idle client need send nothing more),
 * `IN_FLIGHT` at a time, and closes each again (DELETE) when `close`; resolves with how many opened.
 */
async function openIdle(endpoint: Endpoint, count: number, maxMs: number, close = false): Promise<number> {
  const deadline = performance.now() + maxMs;
  let started = 0;
  let opened = 0;
  let firstError: unknown;
  const worker = async (): Promise<void> => {
    while (started < count && performance.now() < deadline) {
      started += 1;
      try {
        const headers = await openSession(endpoint, false);
        if (close) await endpoint.delete(headers);
        opened += 1;
      } catch (error) {
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  if (opened === 0) throw new Error(`no session opened: ${String(firstError)}`);
  return opened;
}

/** Calls `bump` on one session, then polls the forwarded counter until it has counted `sessions` more. */
async function timeFanout(front: RunningFront, endpoint: Endpoint, caller: Record<string, string>, sessions: number): Promise<{ ms: number | undefined; reached: number }> {
  const base = await metricValue(front.url, FORWARDED, LIST_CHANGED);
  const started = performance.now();
  const deadline = started + FANOUT_MAX_MS;
  await request(endpoint, 'tools/call', { name: 'tools__bump', arguments: {} }, caller);
  let reached = 0;
  while (performance.now() < deadline) {
    reached = (await metricValue(front.url, FORWARDED, LIST_CHANGED)) - base;
    if (reached >= sessions) return { ms: performance.now() - started, reached };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { ms: undefined, reached };
}
