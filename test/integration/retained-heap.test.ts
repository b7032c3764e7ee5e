// A call leaves nothing behind in the gateway: once it is answered, what it made is garbage. Held
// here for the paths to a 2026-07-28 upstream, over Streamable HTTP and over stdio: on the HTTP
// one, the client SDK's transport made each request's signal with AbortSignal.any from a long-lived
// one of its own, and Node 20 keeps every such signal referenced from the long-lived one for the
// connection's life, ~0.2 KB per call here, more under other loads (http-transport.ts). That holds
// too for an HTTP server whose era only the SDK's negotiation found (its first server/discover
// failed): the connection moves to the lean transport (connection.ts). The gateway runs as it
// ships (dist/), heap read after full collections; bytes, never time.
import { afterAll, describe, expect, it } from 'vitest';

import { lightLoad } from '../../bench/light-load.js';
import { MODERN_STDIO, removeRunDir, startGateway, startModernOverHttp, stopAll } from '../../bench/processes.js';
import { compareTargets, type Scenario } from '../../bench/scenarios.js';
import { BENCH_STATE_SECRET } from '../../bench/stack.js';
import { TARGET_SPECS, type Target } from '../../bench/targets.js';
import { startModernServerHttp, type HttpUpstream } from '../support/upstreams.js';

const started: HttpUpstream[] = [];

afterAll(async () => {
  await Promise.all(started.map((upstream) => upstream.stop()));
  await stopAll();
  removeRunDir();
});

type Path = 'http' | 'http after a failed probe' | 'stdio';

async function upstreamFor(path: Path): Promise<object> {
  if (path === 'stdio') return MODERN_STDIO;
  if (path === 'http') return { url: (await startModernOverHttp()).url, transport: 'streamable-http' };
  const upstream = await startModernServerHttp('modern', { firstDiscoverFails: true });
  started.push(upstream);
  return { url: upstream.url, transport: 'streamable-http' };
}

/** Heap kept per call across 12,000 calls: ~200 bytes over HTTP through the SDK's transport on Node 20, under 30 now. */
const MAX_RETAINED_PER_CALL = 100;

describe('a 2026 upstream', () => {
  it.each<Path>(['http', 'http after a failed probe', 'stdio'])('keeps no heap per call over %s, once the calls are answered', async (path) => {
    const upstream = await upstreamFor(path);
    const label = `retained-${path.replaceAll(' ', '-')}`;
    const front = await startGateway({
      label,
      config: { server: { host: '127.0.0.1' }, mrtr: { stateSecret: BENCH_STATE_SECRET }, mcpServers: { modern: upstream } },
      logLevel: 'warn',
      nodeArgs: ['--expose-gc'],
    });
    const target: Target = { ...TARGET_SPECS['gw-modern-2026'], name: label, label, endpoint: { kind: 'http', url: front.url }, frontPid: front.pid, control: front.control };
    const run = async (calls: number): Promise<void> => {
      const scenario: Scenario = { label: '20 concurrent', workers: 20, warmupCalls: 0, calls, maxDurationMs: 120_000, rounds: 1 };
      const { results } = await compareTargets({ phase: 'echo', load: lightLoad, operation: 'echo', scenario, targets: [target], progress: () => {} });
      expect(results[0]!.result.errors).toBe(0);
      expect(results[0]!.result.samples).toHaveLength(calls);
    };
    // Warmed up first: the JIT's code, pools and caches are the process's, not any call's.
    await run(3_000);
    const before = await front.control.memory();
    await run(12_000);
    const after = await front.control.memory();
    expect(before.gc && after.gc).toBe(true);
    expect((after.heapUsed - before.heapUsed) / 12_000).toBeLessThan(MAX_RETAINED_PER_CALL);
  }, 180_000);
});
