// A gateway that has had a full garbage collection, as every gateway that has run a while has,
// keeps its young collections cheap: they promote about as little as a fresh process's do. Before the
// maps of requests in flight were TransientMaps, the first full collection made every request's
// objects survive and get promoted from then on, 2-4 KB per call, for the rest of the process's life
// (README, "GC regimes"; src/support/transient-map.ts). This holds the gateway, as it ships
// (dist/, --single-threaded-gc), to that, on either era's path from client to upstream: a new plain
// Map of requests in flight fails it, and so did the client SDK's protocol layer on the path to a
// 2026-07-28 upstream (lean-requests.ts). Also as the bench runs it, with sessions in Redis and an
// audit line per call (3,200 bytes per call with a plain Map of requests in flight there, ~120
// now). It counts bytes the collector reports (--trace-gc-nvp), never time.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { lightLoad } from '../../bench/light-load.js';
import { EVERYTHING_STDIO, MODERN_STDIO, removeRunDir, runDir, startGateway, startRedis, stopAll } from '../../bench/processes.js';
import { compareTargets, type Scenario } from '../../bench/scenarios.js';
import { BENCH_STATE_SECRET } from '../../bench/stack.js';
import { TARGET_SPECS, type Target } from '../../bench/targets.js';
import { hasRedisServer } from '../support/killable-redis.js';
import { skipWithout } from '../support/required-tools.js';

afterAll(async () => {
  await stopAll();
  removeRunDir();
});

/**
 * Bytes promoted per call: 2,200-4,200 when the requests' objects survived (the build before
 * TransientMaps), ~110 now; in front of a 2026 upstream, ~2,800 through the SDK's protocol layer, ~100 now.
 */
const MAX_PROMOTED_PER_CALL = 1_000;

/** What the young collections (scavenges) in `lines` promoted, in bytes, and how many there were. */
function scavengePromotions(lines: string): { bytes: number; scavenges: number } {
  let bytes = 0;
  let scavenges = 0;
  for (const line of lines.split('\n')) {
    if (!/ gc=s /.test(line)) continue;
    const promoted = / promoted=(\d+) /.exec(line);
    if (promoted === null) continue;
    bytes += Number(promoted[1]);
    scavenges += 1;
  }
  return { bytes, scavenges };
}

type Spec = 'gw-stdio-2025' | 'gw-stdio-2026' | 'gw-modern-2026';

/**
 * Runs the gateway through a warm-up, its full collection and a judged run, and holds what the
 * judged run's young collections promoted to MAX_PROMOTED_PER_CALL.
 */
async function holdsPromotion(label: string, spec: Spec, config: object, logLevel: string): Promise<void> {
  const front = await startGateway({ label, config: { server: { host: '127.0.0.1' }, mrtr: { stateSecret: BENCH_STATE_SECRET }, ...config }, logLevel, nodeArgs: ['--trace-gc-nvp'] });
  const target: Target = { ...TARGET_SPECS[spec], name: label, label, endpoint: { kind: 'http', url: front.url }, frontPid: front.pid, control: front.control };
  const scenario: Scenario = { label: '50 concurrent', workers: 50, warmupCalls: 3_000, calls: 4_000, maxDurationMs: 60_000, rounds: 2 };
  // The first comparison warms the gateway up, gives it its full collection (the bench's
  // settle()) and warms it up again; what the second one's calls promote is what is judged.
  await compareTargets({ phase: 'echo', load: lightLoad, operation: 'echo', scenario, targets: [target], progress: () => {} });
  const log = join(runDir(), `gateway-${label}.log`);
  const offset = statSync(log).size;
  const judged = { ...scenario, calls: 12_000 };
  const { results } = await compareTargets({ phase: 'echo', load: lightLoad, operation: 'echo', scenario: judged, targets: [target], progress: () => {} });
  const { result } = results[0]!;
  expect(result.errors).toBe(0);
  const calls = judged.warmupCalls + result.samples.length;
  const { bytes, scavenges } = scavengePromotions(readFileSync(log, 'utf8').slice(offset));
  // Enough young collections to judge by (each covers several hundred calls).
  expect(scavenges).toBeGreaterThanOrEqual(5);
  expect(bytes / calls).toBeLessThan(MAX_PROMOTED_PER_CALL);
}

describe('the gateway after a full collection', () => {
  const upstreams = {
    'gw-stdio-2025': { everything: EVERYTHING_STDIO },
    'gw-stdio-2026': { everything: EVERYTHING_STDIO },
    'gw-modern-2026': { modern: MODERN_STDIO },
  } as const;

  it.each(['gw-stdio-2025', 'gw-stdio-2026', 'gw-modern-2026'] as const)('promotes about what a fresh process does per call, not every request it serves (%s)', async (spec) => {
    await holdsPromotion(`gc-regime-${spec}`, spec, { mcpServers: upstreams[spec] }, 'warn');
  }, 120_000);

  // As the bench runs it: sessions in Redis, and an audit line per call (logger.ts gathers the
  // lines of a batch). A full bench run once caught this gateway spending five times its usual GC.
  it.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('does so with its sessions in Redis and its audit lines on', async () => {
    const redis = await startRedis();
    const sessions = { store: 'redis', redisUrl: redis.url, keyPrefix: 'gc-regime:' };
    await holdsPromotion('gc-regime-redis', 'gw-stdio-2025', { sessions, mcpServers: { everything: EVERYTHING_STDIO } }, 'info');
  }, 120_000);
});
