// The real `switchboard` command under signals, as an orchestrator sends them: SIGTERM drains (a
// call in flight finishes, the process exits 0, no child is left), and SIGKILL, which gives the
// gateway no chance at all, still leaves no stdio upstream behind.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnTracked } from '../support/child-process.js';
import { childPids, isRunning, pidWithArgument } from '../support/processes.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { stdioFixture } from '../support/upstreams.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUTLIVE_STDIN = pathToFileURL(fileURLToPath(new URL('../fixtures/outlive-stdin.mjs', import.meta.url))).href;
const GONE = { timeout: 15_000, interval: 100 };

interface RunningCli {
  readonly process: ChildProcess;
  readonly url: string;
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  logs(): Record<string, unknown>[];
}

async function startCli(configFile: string): Promise<RunningCli> {
  const { PORT: _port, HOST: _host, REDIS_URL: _redis, SWITCHBOARD_CONFIG: _config, ...env } = process.env;
  const child = spawnTracked(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--config', configFile, '--port', '0'], {
    cwd: REPO_ROOT,
    env: { ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const logs = (): Record<string, unknown>[] =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const listening = logs().find((line) => line.msg === 'switchboard listening');
      if (listening) resolve(String(listening.url));
    });
    void exited.then(() => reject(new Error(`the gateway exited before listening:\n${stdout}\n${stderr}`)));
  });
  return { process: child, url, exited, logs };
}

describe('the switchboard command', () => {
  let dir: string;
  const started: RunningCli[] = [];
  const strays: number[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-shutdown-'));
  });

  afterEach(() => {
    for (const cli of started.splice(0)) if (cli.process.exitCode === null && cli.process.signalCode === null) cli.process.kill('SIGKILL');
    for (const pid of strays.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function writeConfig(upstream: { command: string; args: string[]; env: Record<string, string> }): Promise<string> {
    const file = join(dir, `${randomUUID()}.json`);
    await writeFile(file, JSON.stringify({ server: { shutdownTimeoutSeconds: 20 }, mcpServers: { interactive: upstream } }));
    return file;
  }

  it('on SIGTERM lets a slow call finish, exits 0 and leaves no child process', async () => {
    const marker = `--drained-${randomUUID()}`;
    const fixture = stdioFixture('interactive-server');
    const cli = await startCli(await writeConfig({ ...fixture, args: [...fixture.args, 'stdio', marker] }));
    started.push(cli);
    const { sessionId } = await openSession(cli.url);
    const upstream = pidWithArgument(marker);
    strays.push(upstream);
    const children = childPids(cli.process.pid!);
    expect(children).toContain(upstream);

    const call = rawPost(
      cli.url,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'interactive__slow', arguments: { ms: 2_000, tag: 'drained' } } },
      { sessionId },
    );
    // The call must be in the gateway's hands before the signal; nothing observable says so.
    await new Promise((resolve) => setTimeout(resolve, 500));
    cli.process.kill('SIGTERM');

    expect((await call).body).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'slept 2000 ms' }] } });
    expect(await cli.exited).toEqual([0, null]);
    await expect.poll(() => children.filter(isRunning), GONE).toEqual([]);
    expect(cli.logs().map((line) => line.msg)).toEqual(expect.arrayContaining(['switchboard shutting down', 'switchboard stopped']));
  });

  it('on SIGTERM does not wait for a client that left in the middle of its request body', async () => {
    const cli = await startCli(await writeConfig(stdioFixture('interactive-server')));
    started.push(cli);
    const { sessionId } = await openSession(cli.url);
    await new Promise<void>((resolve) => {
      const sent = httpRequest(cli.url, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': sessionId, 'content-length': '1000' },
      });
      sent.on('error', () => resolve());
      sent.on('close', () => resolve());
      sent.write('{"jsonrpc":"2.0","id":1,', () => setTimeout(() => sent.destroy(), 100));
    });
    // The gateway's own next answer shows it has seen the client go.
    expect((await rawPost(cli.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, { sessionId })).status).toBe(200);
    cli.process.kill('SIGTERM');
    expect(await cli.exited).toEqual([0, null]);
    const messages = cli.logs().map((line) => line.msg);
    expect(messages).toContain('switchboard stopped');
    expect(messages).not.toContain('requests still in flight at the end of the shutdown grace period: they are cut off');
  });

  it('killed with SIGKILL leaves no orphan stdio server, even one that ignores its stdin closing', async () => {
    const marker = `--orphan-${randomUUID()}`;
    const fixture = stdioFixture('interactive-server');
    const cli = await startCli(
      await writeConfig({ ...fixture, args: ['--import', OUTLIVE_STDIN, ...fixture.args, 'stdio', marker] }),
    );
    started.push(cli);
    await openSession(cli.url); // initialize waits for the upstreams' first connection
    const upstream = pidWithArgument(marker);
    strays.push(upstream);
    expect(childPids(cli.process.pid!)).toContain(upstream);

    cli.process.kill('SIGKILL');
    await cli.exited;
    await expect.poll(() => isRunning(upstream), GONE).toBe(false);
  });
});
