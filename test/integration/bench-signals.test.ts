// A bench, soak or A/B run ended by Ctrl-C or by a SIGTERM (a CI job's timeout) stops what it
// started: no redis-server left listening, no server process left running.
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

import { spawnTracked } from '../support/child-process.js';
import { hasRedisServer } from '../support/killable-redis.js';
import { skipWithout } from '../support/required-tools.js';

const HOLDER = fileURLToPath(new URL('../fixtures/bench-holder.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe.skipIf(skipWithout(hasRedisServer(), 'redis-server'))('the bench ended by a signal', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('on %s stops its redis-server and servers, then exits %i', async (signal, code) => {
    const holder = spawnTracked(process.execPath, ['--import', TSX_LOADER, HOLDER], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    holder.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [line] = (await once(holder.stdout!, 'data')) as [Buffer];
    const started = JSON.parse(line.toString()) as { redis: string; floorPid: number };
    expect(await accepts(started.redis)).toBe(true);
    expect(isRunning(started.floorPid)).toBe(true);

    const exited = once(holder, 'exit');
    holder.kill(signal);
    const [exitCode] = (await exited) as [number | null];
    expect(exitCode, stderr).toBe(code);
    expect(stderr).toContain(`${signal}: stopping what was started`);
    expect(await accepts(started.redis)).toBe(false);
    expect(isRunning(started.floorPid)).toBe(false);
  }, 30_000);
});
