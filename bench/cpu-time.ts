// CPU time a process has used, read from /proc (Linux). Wall-clock figures move with whatever else
// the machine runs; the gateway's CPU time per call barely does, so it is the figure to compare
// two builds by on a shared or noisy machine. Elsewhere (no /proc) it is simply not reported.
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat. 100 on every mainstream Linux build
// (it is fixed for user space, whatever the kernel's internal HZ), so it is not looked up.
const TICKS_PER_SECOND = 100;

/**
 * CPU time `pid` has used so far, in ms, or undefined where /proc is not there: the time each of its
 * threads spent running, to the nanosecond, from /proc/<pid>/task/<tid>/schedstat. A round of 1,500
 * calls at 0.05 ms each is 75 ms of CPU, which the 10 ms ticks of /proc/<pid>/stat (the fallback,
 * for kernels without schedstat) would measure to within 13% only. Threads that have ended no
 * longer count here; a front's threads (libuv's pool, V8's) live as long as it does.
 */
export function cpuTimeMs(pid: number): number | undefined {
  return scheduledTimeMs(pid) ?? tickTimeMs(pid);
}

function scheduledTimeMs(pid: number): number | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined; // no /proc, or the process is gone
  }
  let total = 0;
  let read = 0;
  for (const task of tasks) {
    try {
      // The first field: nanoseconds on a CPU.
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ', 1)[0]);
      read += 1;
    } catch {
      // This thread ended meanwhile (or the kernel keeps no schedstat: then none is read).
    }
  }
  return read > 0 && Number.isFinite(total) ? total / 1e6 : undefined;
}

function tickTimeMs(pid: number): number | undefined {
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

/**
 * CPU time the whole machine has been busy so far, in ms summed over its CPUs, or undefined where
 * /proc/stat is not there: user, nice, system, irq and softirq time of every process and of the
 * kernel (loopback TCP is carried in softirq), not idle, iowait or steal. Divided by a phase's wall
 * time it is how many CPUs were busy: on two cores, what a front's pipeline leaves idle is capacity
 * that no process could use, and it is why the load, the front and the upstream do not add up to
 * two cores. In USER_HZ ticks, so a phase of 0.3 s on two cores is read to within ~2%.
 */
export function machineBusyMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  // The first line adds up every CPU: "cpu  user nice system idle iowait irq softirq steal guest guest_nice".
  const fields = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/);
  if (fields[0] !== 'cpu') return undefined;
  // guest time is counted in user (and guest_nice in nice) already.
  const busyTicks = [1, 2, 3, 6, 7].reduce((total, field) => total + Number(fields[field]), 0);
  return Number.isFinite(busyTicks) ? (busyTicks * 1000) / TICKS_PER_SECOND : undefined;
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
