// Processes as Linux sees them (/proc): a process's children, whether a pid still runs, and which
// process has a given marker among its arguments, so tests can find (and kill) the upstream child
// a gateway started without the gateway having to tell.
import { readdirSync, readFileSync } from 'node:fs';

/** The direct children of `pid` (every thread's), or [] once it is gone. */
export function childPids(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/** True while `pid` runs; a zombie (dead, not yet reaped) counts as gone. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name, which is in parentheses and may itself contain any.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** The pids of running processes with `marker` as one of their arguments. */
export function pidsWithArgument(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(marker) && isRunning(pid);
      } catch {
        return false;
      }
    });
}

/** The one running process with `marker` among its arguments; throws when there is not exactly one. */
export function pidWithArgument(marker: string): number {
  const pids = pidsWithArgument(marker);
  if (pids.length !== 1) throw new Error(`expected one process with argument ${marker}, found ${pids.length}`);
  return pids[0]!;
}
