// A redis-server of a test's own, on a fixed port, that the test can kill (SIGKILL, as a crash or
// a lost node looks) and start again on the same address: for "the store is down" behaviour.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnTracked } from './child-process.js';
import { freePort } from './free-port.js';
import { pingOnce } from './redis-server-process.js';

const READY_TIMEOUT_MS = 10_000;

export interface KillableRedis {
  readonly url: string;
  readonly port: number;
  /** SIGKILL: what a crash or a lost node looks like. */
  kill(): Promise<void>;
  /** SIGSTOP: a frozen Redis, connected but not answering (what a stalled node or a long fork looks like). */
  pause(): void;
  /** SIGCONT: it answers again, running what it was sent meanwhile. */
  resume(): void;
  /** Kills it if it runs, then starts it again on the same port (and, with persistence, the same data). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface KillableRedisOptions {
  /**
   * Keep an append-only file (fsync on every write, so that nothing acknowledged is lost to a
   * SIGKILL) in a directory of its own, which a restart reads back. Default: no persistence, so a
   * restart starts empty.
   */
  readonly appendOnly?: boolean;
  /** More redis-server arguments (`--replicaof`, ...). */
  readonly args?: readonly string[];
}

export function hasRedisServer(): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, 'redis-server'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export async function startKillableRedis({ appendOnly = false, args = [] }: KillableRedisOptions = {}): Promise<KillableRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-redis-'));
  const persistence = appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const serverArgs = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir, '--loglevel', 'warning', ...args];
  const start = () => startServer(port, serverArgs);
  let child: ChildProcess | undefined = await start();
  const kill = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async restart() {
      await kill();
      child = await start();
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startServer(port: number, args: readonly string[]): Promise<ChildProcess> {
  const child = spawnTracked('redis-server', args, { cwd: tmpdir(), stdio: 'ignore' });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await pingOnce(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not start`);
    }
    await sleep(20); // No event says "accepting connections" short of parsing its log.
  }
  return child;
}

