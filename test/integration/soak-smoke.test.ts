// A few seconds of the soak (`npm run soak`), so its parts cannot rot: the gateway (run from the
// source, as the other tests do, rather than from dist/) with Redis, server-everything and 2026 upstreams (stdio, HTTP), every
// kind of work done without an error, and samples of every series taken. Nothing here judges
// flatness: a few seconds say nothing about it (soak-verdict.test.ts checks the rule).
import { skipWithout } from '../support/required-tools.js';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

import { WORK_KINDS } from '../../bench/soak-load.js';
import { runSoak } from '../../bench/soak-run.js';
import { hasRedisServer } from '../support/killable-redis.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('the soak', () => {
  it('runs every kind of work against the gateway and samples memory, handles, children and Redis', async () => {
    const lines: string[] = [];
    const result = await runSoak({ durationMs: 6_000, sampleMs: 1_000, paceMs: 5, logLevel: 'warn', cli: CLI, nodeArgs: ['--import', TSX_LOADER], progress: (line) => lines.push(line) });

    expect(result.counts.lastErrors).toEqual([]);
    for (const kind of WORK_KINDS) expect(result.counts.ops[kind], kind).toBeGreaterThan(0);
    // A whole round on each 2026 upstream (stdio, then HTTP): four kinds of call and the follow-up of the dropped one.
    expect(result.counts.ops.upstream2026).toBeGreaterThanOrEqual(10);
    expect(result.samples.length).toBeGreaterThanOrEqual(5);
    for (const sample of result.samples) {
      expect(sample.heapUsedBytes).toBeGreaterThan(0);
      expect(sample.handles).toBeGreaterThan(0);
      expect(sample.children).toBeGreaterThanOrEqual(2); // server-everything and the 2026 fixture (and, at first, era probes)
      expect(sample.redisBytes).toBeGreaterThan(0);
    }
    expect(result.samples.at(-1)?.children).toBe(2);
    expect(result.gcForced).toBe(true);
    expect(result.verdicts.map((verdict) => verdict.name)).toHaveLength(5);
  }, 90_000);
});
