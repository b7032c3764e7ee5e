// A gateway in its own process, started through the real command line, as a replica runs in
// production: for tests that need two replicas, a SIGKILL, or the exit code.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnTracked, stopChild } from './child-process.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const STARTUP_TIMEOUT_MS = 30_000;

export interface GatewayProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Parsed JSON log lines so far. */
  readonly logs: Record<string, unknown>[];
  /** What it wrote to stderr (a crash's stack ends up here). */
  readonly stderr: string[];
  stop(): Promise<void>;
}

/**
 * Writes a config object to a fresh temporary file, for --config. Many gateways run at once: unless
 * the config says otherwise, each admin listener gets a free port of its own.
 */
export function writeConfigFile(config: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'switchboard-config-')), 'switchboard.json');
  writeFileSync(file, JSON.stringify(withFreeAdminPort(config), null, 2));
  return file;
}

/** A config object with `admin.port: 0` unless it sets one (anything that is not an object passes as it is). */
export function withFreeAdminPort(config: unknown): unknown {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return config;
  const { admin } = config as { admin?: unknown };
  if (admin !== undefined && (typeof admin !== 'object' || admin === null)) return config;
  return { ...config, admin: { port: 0, ...(admin as object | undefined) } };
}

export async function startGatewayProcess(configFile: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const child = spawnTracked(process.execPath, ['--import', TSX_LOADER, CLI, '--config', configFile, '--port', '0'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the gateway did not start listening in time')), STARTUP_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited with ${code} before listening: ${stderr.join('')}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(entry);
      if (entry.msg === 'switchboard listening' && typeof entry.url === 'string') {
        clearTimeout(timer);
        resolve(entry.url);
      }
    });
  });
  return { url, child, logs, stderr, stop: () => stopChild(child, 10_000) };
}
