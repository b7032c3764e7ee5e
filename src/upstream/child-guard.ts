// No stdio upstream outlives the gateway, even when the gateway gets no chance to stop it (SIGKILL,
// an OOM kill, a crash). On Linux each child is started through util-linux's `setpriv --pdeathsig
// SIGKILL`, which asks the kernel (prctl PR_SET_PDEATHSIG) to kill the child when its parent dies,
// and then execs the command: same pid, same stdio, same environment. Elsewhere (macOS, Windows,
// a Linux without setpriv, or one whose sandbox refuses the prctl) children are spawned plainly:
// they still exit when the gateway dies in most cases, because their stdin (the protocol channel)
// closes, but a server that ignores that could be left behind.
//
// Limits: the kernel's signal goes to the direct child only (`npx` for `npx -y some-server`; the
// server under it still sees its stdin close), and it fires when the thread that spawned the child
// ends, which for the gateway is its main thread, i.e. the process.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface GuardedCommand {
  readonly command: string;
  readonly args: string[];
}

/** The command line to spawn: through setpriv when `setpriv` (its path) is given, else as it is. */
export function guardedCommand(command: string, args: readonly string[], setpriv: string | null = availableSetpriv()): GuardedCommand {
  if (setpriv === null) return { command, args: [...args] };
  return { command: setpriv, args: ['--pdeathsig', 'SIGKILL', '--', command, ...args] };
}

let probed: { readonly setpriv: string | null } | undefined;

/**
 * The path of a setpriv that works here (found on PATH and tried once, since an old util-linux
 * lacks --pdeathsig and a sandbox may forbid the prctl), or null.
 */
export function availableSetpriv(): string | null {
  probed ??= { setpriv: process.platform === 'linux' ? probeSetpriv(process.env.PATH ?? '') : null };
  return probed.setpriv;
}

function probeSetpriv(path: string): string | null {
  const candidate = path
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, 'setpriv'))
    .find(isExecutable);
  if (candidate === undefined) return null;
  // `true` is on every Linux that has setpriv; if it were not, the probe fails and children are
  // spawned plainly, which is the safe direction.
  const trial = spawnSync(candidate, ['--pdeathsig', 'SIGKILL', '--', 'true'], { stdio: 'ignore', timeout: 5_000 });
  return trial.status === 0 ? candidate : null;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
