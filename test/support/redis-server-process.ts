// A throwaway redis-server from PATH on a free loopback port: no persistence, gone after the run.
// Debian's redis-server starts in ~20 ms, so this is the fast path on CI machines without containers.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import type { RunningRedis } from './running-redis.js';

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
/** Another process may take the free port before redis-server binds it: try a few ports. */
const PORT_ATTEMPTS = 3;

export async function startRedisServer(): Promise<RunningRedis> {
  let lastError: unknown;
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    try {
      return await startOnPort(await freePort());
    } catch (error) {
      if (error instanceof RedisServerMissingError) throw error;
      lastError = error;
    }
  }
  throw lastError;
}

class RedisServerMissingError extends Error {}

async function startOnPort(port: number): Promise<RunningRedis> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    // cwd: the default `dir`, where an unexpected dump would land; never the repository.
    { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = keepTail(child);
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new RedisServerMissingError('redis-server is not on PATH')
          : new Error(`redis-server did not start: ${error.message}`),
      );
    });
    child.once('exit', (code, signal) => {
      reject(new Error(`redis-server exited (${signal ?? `code ${code}`}) before answering: ${output().trim()}`));
    });
  });
  exited.catch(() => {}); // Only read while starting; an exit after teardown is expected.

  try {
    await Promise.race([answersPing(port), exited]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => stop(child) };
}

async function answersPing(port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await pingOnce(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms`);
    await sleep(20); // There is no event for "now accepting connections" short of parsing its log.
  }
}

/** Whether a redis-server on 127.0.0.1:port answers PING (once, within a second). */
export function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (answered: boolean): void => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (reply) => finish(reply.toString().startsWith('+PONG')));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exit;
  clearTimeout(killer);
}

/** The last few KB that redis-server printed, for the error when it dies while starting. */
function keepTail(child: ChildProcess): () => string {
  let tail = '';
  const append = (chunk: Buffer): void => {
    tail = (tail + chunk.toString()).slice(-4_096);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return () => tail;
}
