// The processes under test, each in its own process as in production, so this process (the load)
// never shares an event loop with what it measures: the floor, server-everything (stdio and
// Streamable HTTP), the built gateway CLI, mcp-proxy, redis-server. Everything binds 127.0.0.1;
// everything started here is stopped by stopAll(), on success, on error and on Ctrl-C. Logs go to
// files in one run directory (logs.ts reads their warnings at the end), not through this process.
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { spawnTracked, stopChild, waitForStderrLine } from '../test/support/child-process.js';
import { freePort } from '../test/support/free-port.js';
import { startRedisServer } from '../test/support/redis-server-process.js';
import type { RunningRedis } from '../test/support/running-redis.js';
import { startEverythingHttp, startModernServerHttp, type HttpUpstream } from '../test/support/upstreams.js';
import { childPids, childPidsRunning } from './cpu-time.js';
import { FRONT_HOOKS, frontControl, type FrontControl } from './front-control.js';
import { SHIPPED_NODE_FLAGS } from './shipped-flags.js';
import { startStdioPeer, type StdioPeer } from './stdio-peer.js';

const { resolve: resolvePackage } = createRequire(import.meta.url);
const EVERYTHING_MAIN = resolvePackage('@modelcontextprotocol/server-everything/dist/index.js');
const MCP_PROXY_BIN = join(resolvePackage('mcp-proxy/package.json'), '..', 'dist', 'bin', 'mcp-proxy.mjs');
const TSX_LOADER = pathToFileURL(resolvePackage('tsx')).href;
const FLOOR_SERVER = fileURLToPath(new URL('./floor-server.ts', import.meta.url));
const MIN_PROXY = fileURLToPath(new URL('./min-proxy.ts', import.meta.url));
const OTLP_SINK = fileURLToPath(new URL('./otlp-sink.ts', import.meta.url));
const BUILT_CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const MODERN_FIXTURE = fileURLToPath(new URL('../test/fixtures/modern-server.ts', import.meta.url));

/**
 * A 2026-07-28 server over stdio that refuses the 2025 handshake (the tests' modern fixture, on the
 * client SDK's server): a gateway in front of it speaks the 2026 era upstream.
 */
export const MODERN_STDIO = { command: process.execPath, args: ['--import', TSX_LOADER, MODERN_FIXTURE, 'stdio'], env: { ERAS: 'modern' } } as const;

/** server-everything over stdio, as a gateway's config names it. */
export const EVERYTHING_STDIO = { command: process.execPath, args: [EVERYTHING_MAIN, 'stdio'] } as const;
/** The same, as the command line a peer (the direct pipe, min-proxy, mcp-proxy) starts it with. */
const EVERYTHING_COMMAND_LINE: readonly string[] = [EVERYTHING_STDIO.command, ...EVERYTHING_STDIO.args];

/** What finds each upstream's process among a gateway's children (RunningFront.upstreamPids). */
export const EVERYTHING_PATTERN = 'server-everything';
export const MODERN_PATTERN = 'modern-server';

// Takes a child down if this process dies without running its cleanup (see the file).
const EXIT_WITH_PARENT = pathToFileURL(fileURLToPath(new URL('../test/fixtures/exit-with-parent.mjs', import.meta.url))).href;
const STARTUP_TIMEOUT_MS = 20_000;
// Long enough for a clean drain (the gateway's shutdownTimeoutSeconds is 5).
const STOP_GRACE_MS = 10_000;

const cleanups: (() => Promise<void>)[] = [];

/** Stops everything started here, newest first. Safe to call more than once. */
export async function stopAll(): Promise<void> {
  while (cleanups.length > 0) {
    const cleanup = cleanups.pop()!;
    await cleanup().catch((error: unknown) => process.stderr.write(`bench: cleanup failed: ${String(error)}\n`));
  }
}

/**
 * Ctrl-C, or a SIGTERM (`kill`, a CI job's timeout): everything started here is stopped before the
 * process leaves, which then exits as a program ended by that signal does (128 + its number). By
 * default a SIGTERM ends a Node process at once, without its exit hooks, and a redis-server started
 * here would run on, orphaned, on its port.
 */
export function stopAllOnSignals(progress: (message: string) => void): void {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      progress(`${signal}: stopping what was started`);
      void stopAll().finally(() => process.exit(code));
    });
  }
}

let dir: string | undefined;

/** The run's directory: configs, logs, profiles; made on first use. */
export function runDir(): string {
  dir ??= mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  return dir;
}

/** Removes the run directory, once its logs and profiles have been read (after stopAll). */
export function removeRunDir(): void {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
}

/** A log file in the run directory, opened for a child's stdout/stderr. */
function logFd(name: string): number {
  const fd = openSync(join(runDir(), `${name}.log`), 'a');
  cleanups.push(async () => closeSync(fd));
  return fd;
}

export interface RunningProcess {
  readonly pid: number;
  stop(): Promise<void>;
}

export function startRedis(): Promise<RunningRedis> {
  return track(startRedisServer());
}

/** server-everything over Streamable HTTP on a loopback port (the helper the integration tests use). */
export async function startEverythingOverHttp(): Promise<HttpUpstream & { readonly pid: number | undefined }> {
  // The helper does not hand out its child, so the new child of this process is found in /proc.
  const before = new Set(childPids(process.pid));
  const upstream = await track(startEverythingHttp());
  const started = childPids(process.pid).filter((pid) => !before.has(pid));
  return { ...upstream, pid: started.length === 1 ? started[0] : undefined };
}

/** The tests' 2026-07-28 fixture over Streamable HTTP on a loopback port, 2026 only (the soak's HTTP upstream of that era). */
export function startModernOverHttp(): Promise<HttpUpstream> {
  return track(startModernServerHttp('modern'));
}

/** server-everything over stdio with this process holding the pipe (the stdio-direct target). */
export function startEverythingOverStdio(): Promise<StdioPeer> {
  return track(startStdioPeer(EVERYTHING_STDIO.command, EVERYTHING_STDIO.args, logFd('everything-stdio-direct')));
}

export interface RunningFloor extends RunningProcess {
  readonly url: string;
}

/** HTTP front of the floor and the reference proxy: node:http, or a bare socket reader (raw-http-front.ts). */
export type BenchFront = 'http' | 'raw';

/** The environment of a floor or reference proxy: always naming its front, whatever the bench's own says. */
function frontEnv(front: BenchFront, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra, BENCH_FRONT: front };
}

export async function startFloor(front: BenchFront = 'http'): Promise<RunningFloor> {
  const child = spawnTracked(process.execPath, ['--import', TSX_LOADER, FLOOR_SERVER], { stdio: ['pipe', 'ignore', 'pipe'], env: frontEnv(front) });
  const stop = (): Promise<void> => stopChild(child);
  cleanups.push(stop);
  const [, url] = await waitForStderrLine(child, /^listening (http:\/\/\S+)$/, STARTUP_TIMEOUT_MS);
  return { url: url!, pid: child.pid!, stop };
}

export interface RunningSink extends RunningProcess {
  /** Its OTLP/HTTP traces endpoint. */
  readonly url: string;
}

/**
 * The traced gateway's collector (otlp-sink.ts): decodes and discards. Stopped after the gateway
 * (cleanups run newest first), whose last batch it takes, and then says how much it took: a traced
 * row whose gateway sent nothing would measure nothing.
 */
export async function startOtlpSink(): Promise<RunningSink> {
  const child = spawnTracked(process.execPath, ['--import', TSX_LOADER, OTLP_SINK], { stdio: ['pipe', 'ignore', 'pipe'] });
  const stop = (): Promise<void> => stopChild(child);
  const [, url] = await waitForStderrLine(child, /^listening (http:\/\/\S+)$/, STARTUP_TIMEOUT_MS).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  cleanups.push(async () => {
    const stats = await fetch(new URL('/stats', url!))
      .then(async (response) => (await response.json()) as { requests: number; spans: number })
      .catch(() => undefined);
    if (stats) process.stderr.write(`bench: the traced gateway's collector took ${stats.spans} spans in ${stats.requests} exports\n`);
    await stop();
  });
  return { url: url!, pid: child.pid!, stop };
}

/**
 * The reference proxy (min-proxy.ts) in front of server-everything over stdio; `busyUs`: CPU it
 * spends per forwarded call on top of its own (the calibration target, min-proxy-busy); `front`:
 * its HTTP front (min-proxy-raw's is a bare socket reader).
 */
export async function startMinProxy(busyUs = 0, front: BenchFront = 'http'): Promise<RunningFront> {
  const args = ['--import', TSX_LOADER, '--import', FRONT_HOOKS, MIN_PROXY, ...EVERYTHING_COMMAND_LINE];
  const env = frontEnv(front, busyUs > 0 ? { MIN_PROXY_BUSY_US: String(busyUs) } : {});
  const child = spawnTracked(process.execPath, args, { stdio: ['pipe', 'ignore', 'pipe', 'ipc'], env });
  const [, url] = await waitForStderrLine(child, /^listening (http:\/\/\S+)$/, STARTUP_TIMEOUT_MS);
  return frontOf(child, url!);
}

/** A process in front of upstreams (the gateway, mcp-proxy), with front-hooks.mjs preloaded. */
export interface RunningFront extends RunningProcess {
  /** Its MCP endpoint. */
  readonly url: string;
  readonly child: ChildProcess;
  readonly control: FrontControl;
  /** Its children whose command line contains `pattern` (its stdio upstreams), for their CPU time. */
  upstreamPids(pattern: string): number[];
}

export interface GatewayOptions {
  /** Names the log file. */
  readonly label: string;
  /** The config file's content (switchboard.json). */
  readonly config: object;
  /** pino level; info (as deployed) unless the run says otherwise. */
  readonly logLevel: string;
  /** Another build of the CLI (a copy of dist/ with a change to try), for A/B runs; dist/cli.js by default. */
  readonly cli?: string;
  /** Extra node options for the gateway only, e.g. `--expose-gc` or `--max-semi-space-size=64`. */
  readonly nodeArgs?: readonly string[];
  /** Another Node binary for the gateway (the image's runtime, say); the bench's own by default. */
  readonly node?: string;
  /** How long its upstreams may take to be ready (100 stdio servers on two cores take a while). */
  readonly readyTimeoutMs?: number;
}

/**
 * The built CLI (`node dist/cli.js --config FILE --port N`). Its log lines go to a file; readiness
 * is read from /readyz, which also says when every configured upstream is connected.
 */
export async function startGateway(options: GatewayOptions): Promise<RunningFront> {
  const configFile = join(runDir(), `${options.label}.json`);
  // The admin listener as deployed, on a free port (runs may overlap with other gateways).
  const config = { ...options.config, admin: { port: 0, ...(options.config as { admin?: object }).admin } };
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const port = await freePort();
  const log = logFd(`gateway-${options.label}`);
  const nodeArgs = ['--import', EXIT_WITH_PARENT, '--import', FRONT_HOOKS, ...SHIPPED_NODE_FLAGS, ...(options.nodeArgs ?? [])];
  const child = spawnTracked(options.node ?? process.execPath, [...nodeArgs, options.cli ?? BUILT_CLI, '--config', configFile, '--port', String(port)], {
    env: { ...process.env, LOG_LEVEL: options.logLevel },
    stdio: ['pipe', log, log, 'ipc'],
  });
  const front = frontOf(child, `http://127.0.0.1:${port}/mcp`);
  // A session-isolated server has no shared connection to wait for (and /readyz does not list it).
  const servers = (options.config as { mcpServers?: Record<string, { isolation?: string }> }).mcpServers ?? {};
  const upstreams = Object.keys(servers).filter((name) => servers[name]?.isolation !== 'session');
  await waitUntilReady(child, `http://127.0.0.1:${port}/readyz`, upstreams, options.readyTimeoutMs ?? STARTUP_TIMEOUT_MS);
  return front;
}

/** mcp-proxy in front of server-everything over stdio, serving Streamable HTTP only (what is compared). */
export async function startMcpProxy(): Promise<RunningFront> {
  const port = await freePort();
  const log = logFd('mcp-proxy');
  const args = ['--import', EXIT_WITH_PARENT, '--import', FRONT_HOOKS, MCP_PROXY_BIN, '--port', String(port), '--host', '127.0.0.1', '--server', 'stream'];
  const child = spawnTracked(process.execPath, [...args, '--', ...EVERYTHING_COMMAND_LINE], { stdio: ['pipe', log, log, 'ipc'] });
  const front = frontOf(child, `http://127.0.0.1:${port}/mcp`);
  // It connects to its upstream before it listens, so any HTTP answer means ready.
  await waitFor(child, 'mcp-proxy', STARTUP_TIMEOUT_MS, async () => {
    await fetch(front.url, { method: 'GET' });
    return true;
  });
  return front;
}

function frontOf(child: ChildProcess, url: string): RunningFront {
  const stop = (): Promise<void> => stopChild(child, STOP_GRACE_MS);
  cleanups.push(stop);
  return { url, pid: child.pid!, child, control: frontControl(child), stop, upstreamPids: (pattern) => childPidsRunning(child.pid!, pattern) };
}

async function waitUntilReady(child: ChildProcess, readyzUrl: string, upstreams: readonly string[], timeoutMs: number): Promise<void> {
  await waitFor(child, 'the gateway', timeoutMs, async () => {
    const response = await fetch(readyzUrl);
    const body = (await response.json()) as { upstreams?: Record<string, { state?: string }> };
    return response.ok && upstreams.every((name) => body.upstreams?.[name]?.state === 'ready');
  });
}

/** Polls `ready` until it says yes, the child exits, or the time is up. */
async function waitFor(child: ChildProcess, what: string, timeoutMs: number, ready: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = 'no answer yet';
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited during startup (code ${child.exitCode}, signal ${child.signalCode}); see its log in ${runDir()}`);
    try {
      if (await ready()) return;
      last = 'not ready';
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} was not ready within ${timeoutMs} ms (${last}); see its log in ${runDir()}`);
}

async function track<T extends { stop(): Promise<void> }>(starting: Promise<T>): Promise<T> {
  const running = await starting;
  cleanups.push(() => running.stop());
  return running;
}
