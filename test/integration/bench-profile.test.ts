// `npm run bench -- --profile`: the front's CPU profile of its measured rounds, taken inside the
// front process by front-hooks.mjs and summarised by cpu-profile.ts. V8's default of a sample per
// millisecond gave ~100 samples a round of 1,500 calls, too few to tell the hot path's items of a
// few microseconds a call apart; the hooks sample ten times as often. This holds them to that with
// a process that keeps its thread busy, as a front under load does. What it reads is the profile's
// own spacing of its samples: how many there are in a given time falls with the machine's load
// (by half with three more busy processes here), the spacing does not (a median of ~170 us with
// the hooks, idle or loaded; ~1,100 us or more at V8's default).
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
/** Half V8's default interval: the hooks ask for 100 us. */
const MAX_MEDIAN_INTERVAL_US = 500;

const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
let front: ChildProcess | undefined;
afterAll(() => {
  front?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('the bench profile', () => {
  it("samples a busy front at least twice as often as V8's default", async () => {
    front = spawn(process.execPath, ['--import', FRONT_HOOKS, '-e', BUSY_FRONT], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const control = frontControl(front);
    const file = join(dir, 'front.cpuprofile');

    await control.profileStart();
    await sleep(PROFILED_MS);
    await control.profileStop(file);

    const profile = JSON.parse(readFileSync(file, 'utf8')) as { samples: number[]; timeDeltas: number[] };
    // timeDeltas[0] is from the profile's start to its first sample; the rest are between samples.
    const intervals = profile.timeDeltas.slice(1).sort((a, b) => a - b);
    expect(intervals.length).toBeGreaterThan(50);
    expect(intervals[Math.floor(intervals.length / 2)]).toBeLessThan(MAX_MEDIAN_INTERVAL_US);
    expect(summariseProfiles([file])).toContain(`${profile.samples.length} samples`);
  });
});
