// A redis-server of a test's own, on a fixed port, that the test can kill (SIGKILL, as a crash or
// a lost node looks) and start again on the same address: for "the store is down" behaviour.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnTracked } from './child-process.js';
import { freePort } from './free-port.js';
import { pingOnce } from './redis-server-process.js';

const READY_TIMEOUT_MS = 10_000;

export interface KillableRedis {
  readonly url: string;
  kill(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
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

export async function startKillableRedis(): Promise<KillableRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined = await start(port);
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
    kill,
    async restart() {
      await kill();
      child = await start(port);
    },
    stop: kill,
  };
}

async function start(port: number): Promise<ChildProcess> {
  const child = spawnTracked(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    { cwd: tmpdir(), stdio: 'ignore' },
  );
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

