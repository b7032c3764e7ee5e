// A Redis Sentinel group of the test's own, on loopback: a master, one replica (--replicaof) and
// three redis-sentinel processes (Debian's binary) that monitor the master with quorum 2 and fail
// over fast (down after 1 s, failover timeout 3 s). The test may SIGKILL the master and watch the
// sentinels promote the replica.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { spawnTracked } from './child-process.js';
import { freePort } from './free-port.js';
import { startKillableRedis, type KillableRedis } from './killable-redis.js';
import { pingOnce } from './redis-server-process.js';

export const MASTER_NAME = 'mymaster';
const SENTINELS = 3;
const READY_TIMEOUT_MS = 20_000;

export interface SentinelGroup {
  readonly masterName: string;
  readonly sentinels: readonly { host: string; port: number }[];
  readonly master: KillableRedis;
  readonly replica: KillableRedis;
  /** Resolves once the replica holds every write the master has acknowledged so far. */
  replicaCaughtUp(): Promise<void>;
  /** The port of the master the sentinels name now. */
  masterPort(): Promise<number>;
  stop(): Promise<void>;
}

export function hasRedisSentinel(): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, 'redis-sentinel'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export async function startSentinelGroup(): Promise<SentinelGroup> {
  const master = await startKillableRedis();
  const replica = await startKillableRedis({ args: ['--replicaof', '127.0.0.1', String(master.port)] });
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-sentinel-'));
  const sentinels: { port: number; child: ChildProcess }[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(sentinels.map(({ child }) => kill(child)));
    await Promise.all([master.stop(), replica.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < SENTINELS; index++) sentinels.push(await startSentinel(dir, index, master.port));
    await knowEachOther(sentinels.map(({ port }) => port));
  } catch (error) {
    await stop();
    throw error;
  }
  const ask = (port: number) => new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
  return {
    masterName: MASTER_NAME,
    sentinels: sentinels.map(({ port }) => ({ host: '127.0.0.1', port })),
    master,
    replica,
    async replicaCaughtUp() {
      const [onMaster, onReplica] = [ask(master.port), ask(replica.port)];
      try {
        const target = replicationField(await onMaster.info('replication'), 'master_repl_offset');
        const deadline = Date.now() + READY_TIMEOUT_MS;
        while (replicationField(await onReplica.info('replication'), 'slave_repl_offset') < target) {
          if (Date.now() > deadline) throw new Error('the replica did not catch up with the master');
          await sleep(20);
        }
      } finally {
        onMaster.disconnect();
        onReplica.disconnect();
      }
    },
    async masterPort() {
      const sentinel = ask(sentinels[0]!.port);
      try {
        const [, port] = (await sentinel.call('SENTINEL', 'get-master-addr-by-name', MASTER_NAME)) as [string, string];
        return Number(port);
      } finally {
        sentinel.disconnect();
      }
    },
    stop,
  };
}

async function startSentinel(dir: string, index: number, masterPort: number): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  // Sentinel rewrites its config file (what it learned), so each gets a writable one of its own.
  const file = join(dir, `sentinel-${index}.conf`);
  writeFileSync(
    file,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      'sentinel announce-ip 127.0.0.1',
      `sentinel announce-port ${port}`,
      `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
      `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
      `sentinel failover-timeout ${MASTER_NAME} 3000`,
      `sentinel parallel-syncs ${MASTER_NAME} 1`,
      'loglevel warning',
      '',
    ].join('\n'),
  );
  const child = spawnTracked('redis-sentinel', [file], { cwd: dir, stdio: 'ignore' });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await pingOnce(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-sentinel on port ${port} did not start`);
    }
    await sleep(20);
  }
  return { port, child };
}

/** A failover needs a majority of sentinels that know each other (hello messages every 2 s) and the replica. */
async function knowEachOther(ports: readonly number[]): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (const port of ports) {
    const sentinel = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0 });
    try {
      for (;;) {
        const fields = (await sentinel.call('SENTINEL', 'master', MASTER_NAME)) as string[];
        const field = (name: string) => Number(fields[fields.indexOf(name) + 1]);
        if (field('num-other-sentinels') >= ports.length - 1 && field('num-slaves') >= 1) break;
        if (Date.now() > deadline) throw new Error(`sentinel ${port} did not discover the others and the replica in time`);
        await sleep(100);
      }
    } finally {
      sentinel.disconnect();
    }
  }
}

function replicationField(info: string, name: string): number {
  const match = new RegExp(`^${name}:(\\d+)`, 'm').exec(info);
  return match ? Number(match[1]) : -1;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
