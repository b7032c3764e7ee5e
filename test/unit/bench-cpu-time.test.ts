// The bench's CPU readings from /proc (Linux): what its cores-busy column and CPU per call stand on.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { cpuTimeMs, machineBusyMs } from '../../bench/cpu-time.js';

/** Keeps this thread busy until it has had `ms` of CPU time, as getrusage counts it (a shared machine may run others meanwhile). */
function spin(ms: number): void {
  const start = process.cpuUsage();
  for (;;) {
    const { user, system } = process.cpuUsage(start);
    if (user + system >= ms * 1000) return;
  }
}

describe.runIf(existsSync('/proc/stat'))('the bench\'s CPU readings', () => {
  it('count a busy loop of this process in the machine\'s busy time and in the process\'s own', () => {
    const [machineBefore, ownBefore] = [machineBusyMs()!, cpuTimeMs(process.pid)!];
    spin(200);
    const [machineAfter, ownAfter] = [machineBusyMs()!, cpuTimeMs(process.pid)!];
    // The process's own time is to the nanosecond (and its other threads only add to it); the
    // machine's is in 10 ms ticks, and other processes may add to it, never take from it.
    expect(ownAfter - ownBefore).toBeGreaterThanOrEqual(190);
    expect(machineAfter - machineBefore).toBeGreaterThanOrEqual(150);
  });
});
