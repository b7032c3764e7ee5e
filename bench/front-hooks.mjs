// Preloaded (`node --import`) into the processes the bench puts in front of an upstream (the
// gateway, mcp-proxy), so the bench can ask them, over the IPC channel it spawned them with, for
// what only the process itself can give: its memory after a full GC (per-session cost), a CPU
// profile of exactly the phase under study (not the start-up, not the warm-up), the time its
// garbage collector paused it, and the bytes it allocated. Plain JavaScript,
// because a TypeScript loader in the measured process would change what is measured. Without an
// IPC channel it does nothing; with one, it never keeps the process alive.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import process from 'node:process';
import { GCProfiler, getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Every GC pause of this process since it started: the bench reads the totals around each round.
// With the gateway's --single-threaded-gc every collection runs on the main thread, so the pauses
// are the CPU time its GC took. A process can run for its whole life with its GC taking 3% of its
// time or 15% (docs/decisions/0008-transient-maps.md), and the rounds' CPU per call alone does not
// say which.
const gcPauses = { ms: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcPauses.ms += entry.duration;
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcPauses.major += 1;
  }
}).observe({ entryTypes: ['gc'] });

// Every byte allocated in the young generation since the first reading: the garbage a process
// makes per call, which its young collections then have to deal with. Unlike time, the count is
// the same on a busy machine as on an idle one, to a few hundred bytes per call. Node 20 has no
// counter of allocated bytes, so it is counted from the young generation's size before and after
// each collection (a GCProfiler, restarted at every reading so its log stays short).
const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);
let allocatedBytes = 0;
let allocationProfiler;
let youngAtStart = 0;

function youngBytes(spaces) {
  let bytes = 0;
  for (const space of spaces) if (YOUNG_SPACES.has(space.spaceName ?? space.space_name)) bytes += space.spaceUsedSize ?? space.space_used_size;
  return bytes;
}

function readAllocated() {
  if (allocationProfiler !== undefined) {
    const { statistics } = allocationProfiler.stop();
    let from = youngAtStart;
    for (const gc of statistics) {
      allocatedBytes += youngBytes(gc.beforeGC.heapSpaceStatistics) - from;
      from = youngBytes(gc.afterGC.heapSpaceStatistics);
    }
    allocatedBytes += youngBytes(getHeapSpaceStatistics()) - from;
  }
  allocationProfiler = new GCProfiler();
  allocationProfiler.start();
  youngAtStart = youngBytes(getHeapSpaceStatistics());
  return allocatedBytes;
}

/**
 * A full collection now. The fronts run with the flags they ship with, not --expose-gc; V8 gives
 * `gc` to any context made after the flag is set, which is all this needs.
 */
function collectGarbage() {
  if (typeof globalThis.gc === 'function') return globalThis.gc();
  setFlagsFromString('--expose-gc');
  runInNewContext('gc')();
}

// The profile's sampling interval. V8's default is a sample per millisecond, which on this machine
// came out at one per ~2 ms: ~100 samples in a round of 1,500 calls, too few to tell apart items
// of a few microseconds a call.
const PROFILE_INTERVAL_US = 100;

const commands = {
  /** Memory after two full GCs: what the live objects hold. */
  async memory() {
    collectGarbage();
    collectGarbage();
    return { ...process.memoryUsage(), gc: true };
  },
  /**
   * One full GC, as every process that has run a while has had: the bench's fronts get one after
   * their warm-up, so that a run does not measure a fresh process's GC (README.md here, "GC
   * regimes").
   */
  async fullGc() {
    collectGarbage();
    return {};
  },
  /** GC pause time (ms) and full collections since the process started; bytes allocated since the first call. */
  async gcTotals() {
    return { ...gcPauses, allocatedBytes: readAllocated() };
  },
  async profileStart() {
    profiler ??= new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: PROFILE_INTERVAL_US });
    await profiler.post('Profiler.start');
    return {};
  },
  /** Stops the profile started last and writes it where the bench says, as --cpu-prof would. */
  async profileStop({ file }) {
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    writeFileSync(file, JSON.stringify(profile));
    return {};
  },
};
let profiler;

if (process.send !== undefined) {
  process.on('message', (message) => {
    const { seq, command, ...args } = message ?? {};
    const run = commands[command];
    const reply = (body) => process.send?.({ seq, ...body });
    if (run === undefined) return reply({ error: `unknown command ${String(command)}` });
    run(args).then(
      (result) => reply({ result }),
      (error) => reply({ error: String(error) }),
    );
  });
  // After the listener, which refs the channel: the process may still end on its own (SIGTERM drain).
  process.channel?.unref();
}
