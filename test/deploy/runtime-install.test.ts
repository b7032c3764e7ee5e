// What the Dockerfile's runtime stage does, without Docker: compile src/ as the build stage does,
// install the production dependencies alone from the lock file into a fresh directory, add the
// shipped config, and run the gateway from there. A module that the gateway or the shipped upstreams
// import at run time but that is only a dev dependency (or not in the lock file) fails here.
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_NODE_FLAGS } from '../../bench/shipped-flags.js';
import { spawnTracked } from '../support/child-process.js';
import { repoPath } from './support/repo.js';

const run = promisify(execFile);
const INSTALL_TIMEOUT_MS = 150_000;
const LISTEN_TIMEOUT_MS = 20_000;
const READY_TIMEOUT_MS = 20_000;
const EXIT_TIMEOUT_MS = 40_000;
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

interface Readyz {
  status: string;
  upstreams: Record<string, { state: string }>;
}

describe('a production-only install, as in the image', () => {
  let dir: string;
  let appDir: string;
  let gateway: ChildProcess | undefined;
  const output: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-runtime-'));
    appDir = join(dir, 'app');
    await mkdir(join(dir, 'etc', 'switchboard'), { recursive: true });
    await mkdir(appDir);
    await Promise.all([
      copyFile(repoPath('package.json'), join(appDir, 'package.json')),
      copyFile(repoPath('package-lock.json'), join(appDir, 'package-lock.json')),
      copyFile(repoPath('config', 'switchboard.yaml'), join(dir, 'etc', 'switchboard', 'switchboard.yaml')),
    ]);
    await Promise.all([
      // The deps stage. --prefer-offline: the npm cache of the machine that ran `npm ci` has them all.
      run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
        cwd: appDir,
        timeout: INSTALL_TIMEOUT_MS,
      }),
      // The build stage, into the fresh directory rather than the shared dist/.
      run(process.execPath, [TSC, '-p', 'tsconfig.build.json', '--outDir', join(appDir, 'dist')], {
        cwd: repoPath(),
        timeout: INSTALL_TIMEOUT_MS,
      }),
    ]);
  }, INSTALL_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    if (gateway !== undefined && gateway.exitCode === null && gateway.signalCode === null) {
      gateway.kill('SIGKILL');
      await once(gateway, 'exit');
    }
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it(
    'serves the shipped config with both upstreams ready, and exits 0 on SIGTERM',
    async () => {
      // The image's node flags and environment (NODE_ENV, SWITCHBOARD_CONFIG; HOST is narrowed to loopback here),
      // and none of this process's: no PORT, REDIS_URL or NODE_OPTIONS from the test run.
      gateway = spawnTracked(process.execPath, [...SHIPPED_NODE_FLAGS, 'dist/cli.js', '--host', '127.0.0.1', '--port', '0'], {
        cwd: appDir,
        env: {
          PATH: runtimePath(),
          HOME: dir,
          NODE_ENV: 'production',
          SWITCHBOARD_CONFIG: join(dir, 'etc', 'switchboard', 'switchboard.yaml'),
          MEMORY_FILE_PATH: join(dir, 'memory.jsonl'),
          NPM_CONFIG_CACHE: join(dir, '.npm'),
          // The shipped config's admin listener, on a free port: other tests' gateways run at the same time.
          ADMIN_PORT: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const child = gateway;
      child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

      const url = await listeningUrl(child, output);
      const readyz = new URL('/readyz', url);
      const ready = await waitForReadiness(readyz);
      expect(ready, output.join('')).toMatchObject({
        status: 'ready',
        upstreams: { everything: { state: 'ready' }, memory: { state: 'ready' } },
      });

      child.kill('SIGTERM');
      const [code, signal] = await withTimeout(exited, EXIT_TIMEOUT_MS, 'the gateway did not exit after SIGTERM');
      expect({ code, signal }, output.join('')).toEqual({ code: 0, signal: null });
    },
    LISTEN_TIMEOUT_MS + READY_TIMEOUT_MS + EXIT_TIMEOUT_MS + 10_000,
  );
});

/**
 * PATH without any node_modules/.bin (npm puts the repository's there when it runs the tests), so
 * the upstreams' `node` is this Node.js and nothing resolves from the dev install.
 */
function runtimePath(): string {
  const entries = (process.env.PATH ?? '').split(delimiter).filter((entry) => !/node_modules[\\/]\.bin/.test(entry));
  return [dirname(process.execPath), ...entries].join(delimiter);
}

/** The "switchboard listening" log line's url; every stdout line is kept in `output`. */
function listeningUrl(child: ChildProcess, output: string[]): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const found = new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      output.push(`${line}\n`);
      let entry: { msg?: unknown; url?: unknown };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return reject(new Error(`a log line that is not JSON: ${line}`));
      }
      if (entry.msg === 'switchboard listening' && typeof entry.url === 'string') resolve(entry.url);
    });
    child.once('exit', (code, signal) => reject(new Error(`the gateway exited (${code ?? signal}) before listening:\n${output.join('')}`)));
  });
  return withTimeout(found, LISTEN_TIMEOUT_MS, 'no "switchboard listening" log line');
}

/** Polls /readyz as a kubelet's readiness probe does, until every upstream is ready or time is up. */
async function waitForReadiness(url: URL): Promise<Readyz | undefined> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last: Readyz | undefined;
  while (Date.now() < deadline) {
    const response = await fetch(url, { signal: AbortSignal.timeout(3_000) }).catch(() => undefined);
    if (response !== undefined) {
      last = (await response.json()) as Readyz;
      const states = Object.values(last.upstreams ?? {}).map((upstream) => upstream.state);
      if (response.status === 200 && states.length > 0 && states.every((state) => state === 'ready')) return last;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return last;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
