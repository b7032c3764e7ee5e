// CPU time a process has used, read from /proc (Linux). Wall-clock figures move with whatever else
// the machine runs; the gateway's CPU time per call barely does, so it is the figure to compare
// two builds by on a shared or noisy machine. Elsewhere (no /proc) it is simply not reported.
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat. 100 on every mainstream Linux build
// (it is fixed for user space, whatever the kernel's internal HZ), so it is not looked up.
const TICKS_PER_SECOND = 100;

/** User + system CPU time of `pid` so far, in ms (10 ms resolution), or undefined where /proc is not there. */
export function cpuTimeMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2 (comm) is in parentheses and may hold spaces, so count fields from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After comm, fields start at 3 (state); utime is field 14 and stime field 15.
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** The processes whose parent is `parentPid` (Linux; empty elsewhere), to find a child that a helper started. */
export function childPids(parentPid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => parentPidOf(pid) === parentPid);
}

function parentPidOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 4 (ppid) is the second field after comm.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[4 - 3]);
  } catch {
    return undefined; // gone meanwhile
  }
}

/** The children of `parentPid` whose command line contains `pattern`: a front's stdio upstream, not its short-lived probes. */
export function childPidsRunning(parentPid: number, pattern: string): number[] {
  return childPids(parentPid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(pattern);
    } catch {
      return false; // gone meanwhile
    }
  });
}
