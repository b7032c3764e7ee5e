// One soak: a redis-server and the gateway (Redis store; server-everything over stdio, and a
// 2026-07-28 server, the tests' modern fixture, over stdio and over HTTP) in processes of their own, the mixed load of soak-load.ts for the given time, and a sample every so often of
// what would grow if something leaked: the gateway's heap after a full GC and its resident set
// (it runs with --expose-gc; front-hooks.mjs answers), its open handles (/metrics), its child
// processes (/proc), its open streams and listens, and Redis' used_memory. soak-verdict.ts judges
// whether each stayed flat.
import { Redis } from 'ioredis';

import { scrapeMetrics } from '../test/support/metrics-scrape.js';
import { childPids } from './cpu-time.js';
import { EVERYTHING_STDIO, MODERN_STDIO, removeRunDir, startGateway, startModernOverHttp, startRedis, stopAll } from './processes.js';
import { MODERN_UPSTREAMS, startSoakLoad, WORK_KINDS, WORKERS, type SoakCounts } from './soak-load.js';
import { judgeSeries, type Point, type SeriesRule, type SeriesVerdict } from './soak-verdict.js';
import { BENCH_STATE_SECRET } from './stack.js';

export interface SoakOptions {
  readonly durationMs: number;
  readonly sampleMs: number;
  /** Pause between one worker's operations. */
  readonly paceMs: number;
  /** The gateway's pino level. */
  readonly logLevel: string;
  /** Another gateway CLI than dist/cli.js (the smoke test runs the source through tsx). */
  readonly cli?: string;
  readonly nodeArgs?: readonly string[];
  readonly keep?: boolean;
  readonly progress: (line: string) => void;
}

export interface SoakSample {
  /** Seconds since the load started. */
  readonly t: number;
  /** Operations done so far, all kinds. */
  readonly ops: number;
  readonly errors: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly handles: number;
  readonly children: number;
  readonly streamsOpen: number;
  readonly listensOpen: number;
  readonly sessions: number;
  readonly redisBytes: number;
}

export interface SoakResult {
  readonly samples: readonly SoakSample[];
  readonly counts: SoakCounts;
  readonly verdicts: readonly SeriesVerdict[];
  readonly gcForced: boolean;
}

const MB = 1024 * 1024;
/** Streams and listens open at a sample's moment vary by up to the workers that hold them, each a socket or two. */
/** How long the upstream's own start-up requests are given before the load begins. */
const UPSTREAM_SETTLE_MS = 1_500;
const HANDLE_WOBBLE = 2 * (WORKERS.streams + WORKERS.listens) + 4;

/** What each series may grow by across the second half and still be flat (soak-verdict.ts says how it is measured). */
export const RULES: Readonly<Record<'heapUsedBytes' | 'rssBytes' | 'handles' | 'children' | 'redisBytes', SeriesRule>> = {
  heapUsedBytes: { name: 'heap used (after GC)', unit: 'bytes', absolute: 2 * MB, relative: 0.05 },
  rssBytes: { name: 'resident set', unit: 'bytes', absolute: 16 * MB, relative: 0.1 },
  handles: { name: 'active handles', unit: 'count', absolute: HANDLE_WOBBLE, relative: 0 },
  children: { name: 'child processes', unit: 'count', absolute: 0.5, relative: 0 },
  redisBytes: { name: 'Redis used_memory', unit: 'bytes', absolute: 1 * MB, relative: 0.1 },
};

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  try {
    const redis = await startRedis();
    const modernHttp = await startModernOverHttp();
    const front = await startGateway({
      label: 'soak',
      config: {
        server: { host: '127.0.0.1', shutdownTimeoutSeconds: 5 },
        sessions: { store: 'redis', redisUrl: redis.url, keyPrefix: 'soak:' },
        mrtr: { stateSecret: BENCH_STATE_SECRET },
        mcpServers: {
          everything: EVERYTHING_STDIO,
          [MODERN_UPSTREAMS.stdio]: MODERN_STDIO,
          [MODERN_UPSTREAMS.http]: { url: modernHttp.url, transport: 'streamable-http' },
        },
      },
      logLevel: options.logLevel,
      ...(options.cli !== undefined && { cli: options.cli }),
      nodeArgs: [...(options.nodeArgs ?? []), '--expose-gc'],
    });
    const redisClient = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    options.progress(`gateway ${front.url} (pid ${front.pid}), Redis ${redis.url}; load for ${Math.round(options.durationMs / 1000)} s, a sample every ${options.sampleMs / 1000} s`);
    // server-everything asks its client for roots/list just after it starts. On a shared connection
    // the gateway gives such a request to the one call in flight there (README, "Limits"), and a
    // 2026 call that declared no roots would be refused for it: the load starts once that is past.
    await new Promise((resolve) => setTimeout(resolve, UPSTREAM_SETTLE_MS));
    const startedAt = performance.now();
    const load = startSoakLoad(front.url, options.paceMs);
    const samples: SoakSample[] = [];
    let gcForced = false;
    try {
      const sample = async (): Promise<SoakSample> => {
        const [memory, scrape, info] = await Promise.all([front.control.memory(), scrapeMetrics(front.url), redisClient.info('memory')]);
        gcForced = memory.gc;
        const { ops, errors } = load.counts;
        return {
          t: Math.round((performance.now() - startedAt) / 100) / 10,
          ops: WORK_KINDS.reduce((sum, kind) => sum + ops[kind], 0),
          errors: WORK_KINDS.reduce((sum, kind) => sum + errors[kind], 0),
          rssBytes: memory.rss,
          heapUsedBytes: memory.heapUsed,
          handles: scrape.value('nodejs_active_handles_total'),
          children: childPids(front.pid).length,
          streamsOpen: scrape.value('switchboard_sse_streams_open'),
          listensOpen: scrape.value('switchboard_listens_open'),
          sessions: scrape.value('switchboard_sessions_active'),
          redisBytes: Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0),
        };
      };
      for (let next = options.sampleMs; ; next += options.sampleMs) {
        const due = startedAt + Math.min(next, options.durationMs);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
        const taken = await sample();
        samples.push(taken);
        options.progress(sampleLine(taken));
        if (next >= options.durationMs) break;
      }
    } finally {
      await load.stop();
      redisClient.disconnect();
    }
    const series = (key: keyof typeof RULES): Point[] => samples.map((sample) => ({ t: sample.t, value: sample[key] }));
    const verdicts = (Object.keys(RULES) as (keyof typeof RULES)[]).map((key) => judgeSeries(RULES[key], series(key)));
    return { samples, counts: load.counts, verdicts, gcForced };
  } finally {
    await stopAll();
    if (!options.keep) removeRunDir();
  }
}

export const SAMPLE_HEADER = '     t s        ops  errors   rss MB  heap MB  handles  children  streams  listens  sessions  redis MB';

export function sampleLine(sample: SoakSample): string {
  const mb = (bytes: number) => (bytes / MB).toFixed(1);
  return [
    sample.t.toFixed(0).padStart(8),
    String(sample.ops).padStart(10),
    String(sample.errors).padStart(7),
    mb(sample.rssBytes).padStart(8),
    mb(sample.heapUsedBytes).padStart(8),
    String(sample.handles).padStart(8),
    String(sample.children).padStart(9),
    String(sample.streamsOpen).padStart(8),
    String(sample.listensOpen).padStart(8),
    String(sample.sessions).padStart(9),
    mb(sample.redisBytes).padStart(9),
  ].join(' ');
}

export function verdictLine(verdict: SeriesVerdict): string {
  const show = (value: number) => (verdict.unit === 'bytes' ? `${(value / MB).toFixed(2)} MB` : value.toFixed(1));
  const state = verdict.flat === undefined ? 'TOO SHORT to judge' : verdict.flat ? 'flat' : 'GROWING';
  return `${verdict.name.padEnd(22)} ${state.padEnd(18)} fitted growth over the second half ${show(verdict.growth)} (limit ${show(verdict.limit)}; ${show(verdict.from)} -> ${show(verdict.to)})`;
}
