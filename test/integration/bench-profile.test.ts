// `npm run bench -- --profile`: the front's CPU profile of its measured rounds, taken inside the
// front process by front-hooks.mjs and summarised by cpu-profile.ts. V8's default of a sample per
// millisecond gave ~100 samples a round of 1,500 calls, too few to tell the hot path's items of a
// few microseconds a call apart; the hooks sample ten times as often. This holds them to that with
// a process that keeps its thread busy, as a front under load does. It counts samples, not time.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';

import { summariseProfiles } from '../../bench/cpu-profile.js';
import { FRONT_HOOKS, frontControl } from '../../bench/front-control.js';

/** Busy 4 ms of every 5, and free in between to answer the bench's commands. */
const BUSY_FRONT = 'setInterval(() => { const until = performance.now() + 4; while (performance.now() < until); }, 5);';
const PROFILED_MS = 500;
/** 500 ms at one sample a millisecond is at most 500 samples; the hooks' rate gives ~5,000. */
const MIN_SAMPLES = 1_500;

const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
let front: ChildProcess | undefined;
afterAll(() => {
  front?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('the bench profile', () => {
  it('samples a busy front finely enough to resolve items of a few microseconds a call', async () => {
    front = spawn(process.execPath, ['--import', FRONT_HOOKS, '-e', BUSY_FRONT], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const control = frontControl(front);
    const file = join(dir, 'front.cpuprofile');

    await control.profileStart();
    await sleep(PROFILED_MS);
    await control.profileStop(file);

    const samples = (JSON.parse(readFileSync(file, 'utf8')) as { samples: number[] }).samples.length;
    expect(samples).toBeGreaterThan(MIN_SAMPLES);
    expect(summariseProfiles([file])).toContain(`${samples} samples`);
  });
});
