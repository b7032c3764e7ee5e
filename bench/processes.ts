// The processes under test: server-everything over Streamable HTTP, and the built gateway CLI in
// front of it. Each runs in its own process, as in production, so the load generator's event loop
// (this process) never competes with the gateway's for the same thread. Everything binds 127.0.0.1,
// and everything started here is stopped by stopAll(), on success, on error and on Ctrl-C.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { spawnTracked, stopChild } from '../test/support/child-process.js';
import { childPids } from './cpu-time.js';
import { freePort } from '../test/support/free-port.js';
import { startEverythingHttp, type HttpUpstream } from '../test/support/upstreams.js';

const BUILT_CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
// Takes the gateway down if this process dies without running its cleanup (see the file).
const EXIT_WITH_PARENT = pathToFileURL(fileURLToPath(new URL('../test/fixtures/exit-with-parent.mjs', import.meta.url))).href;
const STARTUP_TIMEOUT_MS = 20_000;
// Long enough for a clean drain, so that --cpu-prof gets to write its profile on exit.
const GATEWAY_STOP_GRACE_MS = 15_000;

export interface RunningGatewayProcess {
  /** The gateway's MCP endpoint. */
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export interface GatewayProcessOptions {
  /** pino level for the gateway; warn by default, so logging does not dominate the figures. */
  readonly logLevel?: string;
  /** When set, the gateway runs with `node --cpu-prof` and writes its profile here on exit. */
  readonly cpuProfileDir?: string;
  /** Another build of the CLI (a copy of dist/ with a change to try), for A/B runs; dist/cli.js by default. */
  readonly cli?: string;
  /** Extra node options for the gateway only, e.g. `--import ./patch.mjs` or `--max-semi-space-size=64`. */
  readonly nodeArgs?: readonly string[];
}

const cleanups: (() => Promise<void>)[] = [];

/** Stops everything started here, newest first. Safe to call more than once. */
export async function stopAll(): Promise<void> {
  while (cleanups.length > 0) {
    const cleanup = cleanups.pop()!;
    await cleanup().catch((error: unknown) => process.stderr.write(`bench: cleanup failed: ${String(error)}\n`));
  }
}

export interface RunningUpstream extends HttpUpstream {
  /** Its process id where it can be found (Linux), for its CPU time. */
  readonly pid: number | undefined;
}

/** server-everything over Streamable HTTP on a loopback port (the same helper the integration tests use). */
export async function startEverything(): Promise<RunningUpstream> {
  // The helper does not hand out its child, so the new child of this process is found in /proc.
  const before = new Set(childPids(process.pid));
  const upstream = await startEverythingHttp();
  cleanups.push(() => upstream.stop());
  const started = childPids(process.pid).filter((pid) => !before.has(pid));
  return { ...upstream, pid: started.length === 1 ? started[0] : undefined };
}

/**
 * The built CLI (`node dist/cli.js --config FILE --port N`) with one upstream, `everything`.
 * The gateway announces its URL in an info line ("switchboard listening"), which a warn level
 * suppresses; so the port is chosen here and readiness is read from /readyz instead, which also
 * says when the upstream is connected.
 */
export async function startGateway(upstreamUrl: string, options: GatewayProcessOptions = {}): Promise<RunningGatewayProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const configFile = join(dir, 'switchboard.json');
  const config = {
    server: { host: '127.0.0.1', shutdownTimeoutSeconds: 5 },
    mcpServers: { everything: { url: upstreamUrl, transport: 'streamable-http' } },
  };
  writeFileSync(configFile, JSON.stringify(config, null, 2));

  const port = await freePort();
  const nodeArgs = ['--import', EXIT_WITH_PARENT, ...(options.nodeArgs ?? [])];
  if (options.cpuProfileDir !== undefined) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`);
  const child = spawnTracked(process.execPath, [...nodeArgs, options.cli ?? BUILT_CLI, '--config', configFile, '--port', String(port)], {
    env: { ...process.env, LOG_LEVEL: options.logLevel ?? 'warn' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  cleanups.push(() => stopChild(child, GATEWAY_STOP_GRACE_MS));
  relayLogLines(child);

  const base = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, `${base}/readyz`);
  return { url: `${base}/mcp`, pid: child.pid!, stop: () => stopChild(child, GATEWAY_STOP_GRACE_MS) };
}

/**
 * Shows the gateway's log lines (warnings and errors at the default level) on stderr, so a problem
 * during the run is visible, and keeps its stdout pipe drained so the gateway never blocks on it.
 */
function relayLogLines(child: ChildProcess): void {
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => process.stderr.write(`[gateway] ${line}\n`));
}

async function waitUntilReady(child: ChildProcess, readyzUrl: string): Promise<void> {
  const deadline = performance.now() + STARTUP_TIMEOUT_MS;
  let last = 'no answer yet';
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the gateway exited during startup (code ${child.exitCode}, signal ${child.signalCode})`);
    }
    try {
      const response = await fetch(readyzUrl);
      const body = (await response.json()) as { status?: string; upstreams?: Record<string, { state?: string }> };
      last = JSON.stringify(body);
      if (response.ok && body.upstreams?.everything?.state === 'ready') return;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the gateway was not ready within ${STARTUP_TIMEOUT_MS} ms; last /readyz: ${last}`);
}
