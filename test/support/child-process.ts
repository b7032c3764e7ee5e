// Child processes started by test helpers: tracked so none outlives the test process, stopped
// politely then firmly, and watched for the stderr line that says they are ready.
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const STOP_GRACE_MS = 3_000;
const STDERR_TAIL_LINES = 40;

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Spawns a child that is SIGKILLed when this process exits, whatever the tests did. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  if (!exitHookInstalled) {
    // 'exit' listeners must be synchronous; kill() is.
    process.once('exit', () => running.forEach((child) => child.kill('SIGKILL')));
    exitHookInstalled = true;
  }
  const child = spawn(command, args, options);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/**
 * Resolves with the first stderr line matching `pattern` (its match). Rejects, with the last
 * stderr lines for diagnosis, if the child exits first or `timeoutMs` passes. The child's stderr
 * keeps being drained afterwards, so a chatty child never blocks on a full pipe.
 */
export function waitForStderrLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  const { stderr } = child;
  if (stderr === null) return Promise.reject(new Error('the child was spawned without a stderr pipe'));
  const tail: string[] = [];
  const lines = createInterface({ input: stderr });

  return new Promise<RegExpMatchArray>((resolve, reject) => {
    const fail = (reason: string): void => {
      cleanUp();
      reject(new Error(`${reason}; its stderr ended with:\n${tail.join('\n')}`));
    };
    const onLine = (line: string): void => {
      tail.push(line);
      if (tail.length > STDERR_TAIL_LINES) tail.shift();
      const match = pattern.exec(line);
      if (match === null) return;
      cleanUp();
      resolve(match);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      fail(`the child exited (code ${code}, signal ${signal}) before printing ${pattern}`);
    const timer = setTimeout(() => fail(`no ${pattern} on the child's stderr within ${timeoutMs} ms`), timeoutMs);
    const cleanUp = (): void => {
      clearTimeout(timer);
      lines.off('line', onLine);
      child.off('exit', onExit);
    };
    lines.on('line', onLine);
    child.once('exit', onExit);
  });
}

/** SIGTERM, then SIGKILL after a grace period; resolves once the child has exited. */
export async function stopChild(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
