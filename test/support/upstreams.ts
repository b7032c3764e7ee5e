// Upstream MCP servers for tests: our fixtures (test/fixtures/) and the reference servers from
// node_modules, as stdio specs (for a gateway config or a StdioClientTransport) or as running
// Streamable HTTP servers bound to 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { spawnTracked, stopChild, waitForStderrLine } from './child-process.js';
import { freePort } from './free-port.js';

/** How to start a stdio upstream: the shape of a gateway config's mcpServers entry. */
export interface StdioUpstream {
  command: string;
  args: string[];
  /** Added to the environment the client passes on; never the whole environment. */
  env: Record<string, string>;
}

export interface HttpUpstream {
  /** The Streamable HTTP endpoint, e.g. http://127.0.0.1:41234/mcp */
  url: string;
  /** Stops the server and resolves once its process has exited. */
  stop(): Promise<void>;
}

export type FixtureName =
  | 'paged-server'
  | 'twin-server'
  | 'odd-names-server'
  | 'silent-server'
  | 'header-echo-server'
  | 'guarded-server'
  | 'url-elicit-server'
  | 'interactive-server'
  | 'conformance-server'
  | 'conformance-2026-server'
  | 'modern-server'
  | 'shifting-server'
  | 'tally-server'
  | 'trace-echo-server'
  | 'spelled-answers-server'
  | 'tasks-server'
  | 'modern-tasks-server';
/** header-echo-server and guarded-server are about HTTP headers, so they have no stdio mode. */
export type StdioFixtureName = Exclude<FixtureName, 'header-echo-server' | 'guarded-server'>;

const STARTUP_TIMEOUT_MS = 20_000;
const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));
const { resolve: resolvePackage } = createRequire(import.meta.url);
// Absolute URLs, so `--import` does not depend on the child's working directory.
const TSX_LOADER = pathToFileURL(resolvePackage('tsx')).href;
const BIND_LOOPBACK = pathToFileURL(join(FIXTURES_DIR, 'bind-loopback.mjs')).href;
const EXIT_WITH_PARENT = pathToFileURL(join(FIXTURES_DIR, 'exit-with-parent.mjs')).href;
const EVERYTHING_MAIN = resolvePackage('@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY_MAIN = resolvePackage('@modelcontextprotocol/server-memory/dist/index.js');

export function stdioFixture(name: StdioFixtureName, env: Record<string, string> = {}): StdioUpstream {
  return { command: process.execPath, args: ['--import', TSX_LOADER, fixturePath(name)], env };
}

/** Starts a fixture in HTTP mode on a free port and resolves once it listens. */
export async function startHttpFixture(name: FixtureName, env: Record<string, string> = {}): Promise<HttpUpstream> {
  const child = spawnTracked(
    process.execPath,
    ['--import', TSX_LOADER, '--import', EXIT_WITH_PARENT, fixturePath(name), 'http'],
    { env: { ...process.env, ...env, PORT: '0' }, stdio: ['pipe', 'ignore', 'pipe'] },
  );
  try {
    const [, url] = await waitForStderrLine(child, /^listening (http:\/\/\S+)$/, STARTUP_TIMEOUT_MS);
    return { url: url!, stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw new Error(`fixture ${name} did not start`, { cause: error });
  }
}

export function everythingStdio(): StdioUpstream {
  return { command: process.execPath, args: [EVERYTHING_MAIN, 'stdio'], env: {} };
}

/**
 * server-everything over Streamable HTTP on a free loopback port. It takes its port from PORT and
 * binds all interfaces, so it is preloaded with bind-loopback.mjs (see there).
 */
export async function startEverythingHttp(): Promise<HttpUpstream> {
  return startEverything('streamableHttp', /listening on port \d+/, '/mcp');
}

/** server-everything over the legacy HTTP+SSE transport (GET /sse, POST /message), for the fallback. */
export async function startEverythingSse(): Promise<HttpUpstream> {
  return startEverything('sse', /running on port \d+/, '/sse');
}

async function startEverything(mode: 'streamableHttp' | 'sse', ready: RegExp, path: string): Promise<HttpUpstream> {
  // A port that was free a moment ago: another process could take it first, and then the server
  // fails to start, loudly (it exits on EADDRINUSE).
  const port = await freePort();
  const child = spawnTracked(
    process.execPath,
    ['--import', BIND_LOOPBACK, '--import', EXIT_WITH_PARENT, EVERYTHING_MAIN, mode],
    // Its stdout is a request log nobody reads; ignoring it means it can never fill a pipe.
    { env: { ...process.env, PORT: String(port) }, stdio: ['pipe', 'ignore', 'pipe'] },
  );
  try {
    await waitForStderrLine(child, ready, STARTUP_TIMEOUT_MS);
    return { url: `http://127.0.0.1:${port}${path}`, stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw new Error(`server-everything (${mode}) did not start`, { cause: error });
  }
}

/**
 * server-memory over stdio, keeping its knowledge graph in a fresh temporary directory (removed
 * when the test process exits) rather than next to its code in node_modules.
 */
export function memoryStdio(): StdioUpstream {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-memory-'));
  removeOnExit(dir);
  return { command: process.execPath, args: [MEMORY_MAIN], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } };
}

const tempDirs = new Set<string>();

function removeOnExit(dir: string): void {
  if (tempDirs.size === 0) {
    process.once('exit', () => tempDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  }
  tempDirs.add(dir);
}

function fixturePath(name: FixtureName): string {
  return join(FIXTURES_DIR, `${name}.ts`);
}

/** modern-server (a 2026-07-28 fixture) over stdio; `modern` refuses a 2025 `initialize`. */
export function modernServerStdio(eras: 'dual' | 'modern' = 'modern'): StdioUpstream {
  return stdioFixture('modern-server', { ERAS: eras });
}

/**
 * modern-server over Streamable HTTP: `dual` serves 2025 sessions too, `modern` refuses them.
 * `firstDiscoverFails`: the first server/discover gets a 503, so that a client's first probe
 * finds no era and its second one does.
 */
export function startModernServerHttp(eras: 'dual' | 'modern', { firstDiscoverFails = false } = {}): Promise<HttpUpstream> {
  return startHttpFixture('modern-server', { ERAS: eras, ...(firstDiscoverFails && { FIRST_DISCOVER_FAILS: '1' }) });
}

export interface GuardOptions {
  /** JWTs signed by a key of this set, for `audience` (and `issuer`, when given), are accepted. */
  readonly jwks?: { readonly url: string; readonly audience: string; readonly issuer?: string };
  /** Plain tokens accepted as these users (a perUser secret is one): token -> user name. */
  readonly staticTokens?: Readonly<Record<string, string>>;
}

/** guarded-server over Streamable HTTP: every request needs a bearer token it accepts (see there). */
export function startGuardedServer({ jwks, staticTokens }: GuardOptions): Promise<HttpUpstream> {
  return startHttpFixture('guarded-server', {
    ...(jwks && { GUARD_JWKS_URL: jwks.url, GUARD_AUDIENCE: jwks.audience, ...(jwks.issuer !== undefined && { GUARD_ISSUER: jwks.issuer }) }),
    ...(staticTokens && { GUARD_STATIC_TOKENS: JSON.stringify(staticTokens) }),
  });
}
