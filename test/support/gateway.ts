// A real gateway for tests: the config a user would write, validated by the real loader, served
// by runGateway on a free loopback port, with its log lines kept for assertions.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, parseConfigText } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { runGateway, type RunningGateway } from '../../src/main.js';
import { createLogger } from '../../src/observe/logger.js';
import type { SuppliedTransports } from '../../src/upstream/supplied-transports.js';
import { uniqueKeyPrefix } from './redis.js';

export interface TestGateway extends RunningGateway {
  /** Parsed JSON log lines, in order. */
  readonly logs: Record<string, unknown>[];
  /**
   * With `reloadable`: writes a new config to the gateway's file (with the same test settings as
   * at start), which it reloads as it would on a file change in production. Throws otherwise.
   */
  rewriteConfig(config: ConfigInput): void;
}

export interface TestGatewayOptions {
  /** `lists.pageSize`, unless the config sets it: small, to exercise paging. */
  readonly pageSize?: number;
  readonly logLevel?: string;
  /** How soon a token with an unknown key may refetch the JWKS (default jose's 30 s). */
  readonly jwksCooldownMs?: number;
  /** Keep the config in a file and reload it on change or SIGHUP, as the command line does. */
  readonly reloadable?: boolean;
  /** With reloadable: false reloads only when asked (the admin API), not on a file change or SIGHUP. */
  readonly watchConfig?: boolean;
  /** How long finished spans wait before they are exported (the SDK's 5 s by default). */
  readonly traceExportDelayMs?: number;
  /** Transports for some stdio upstreams, in place of their children (in-memory-upstream.ts). */
  readonly upstreamTransports?: SuppliedTransports;
  /** How long connect links (credentials.connection) live, in seconds: short to test their expiry. */
  readonly connectLinkSeconds?: number;
}

/**
 * Test files share one Redis and run in parallel: gateways of one file share a key prefix (so two
 * of them act as replicas of one deployment), and no other file's gateways see their sessions.
 */
const FILE_KEY_PREFIX = uniqueKeyPrefix('gateway');

export async function startGateway(config: ConfigInput, options: TestGatewayOptions = {}): Promise<TestGateway> {
  const withTestServer = (input: ConfigInput): ConfigInput => ({
    ...input,
    server: { host: '127.0.0.1', port: 0, ...input.server },
    // Many gateways run at once: each admin listener on a free port of its own.
    admin: { port: 0, ...input.admin },
    sessions: { keyPrefix: FILE_KEY_PREFIX, ...input.sessions },
    ...(options.pageSize !== undefined && { lists: { pageSize: options.pageSize, ...input.lists } }),
  });
  const configFile = options.reloadable ? join(mkdtempSync(join(tmpdir(), 'switchboard-config-')), 'switchboard.json') : undefined;
  const rewriteConfig = (next: ConfigInput) => {
    if (configFile === undefined) throw new Error('startGateway: pass { reloadable: true } to rewrite the config');
    writeFileSync(configFile, JSON.stringify(withTestServer(next), null, 2));
  };
  if (configFile !== undefined) rewriteConfig(config);
  const parsed = parseConfigText(JSON.stringify(withTestServer(config)), 'json', {});
  const logs: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      }
      callback();
    },
  });
  const logger = createLogger({ level: options.logLevel ?? 'info', destination });
  const gateway = await runGateway(parsed, {
    logger,
    ...(options.jwksCooldownMs !== undefined && { jwksCooldownMs: options.jwksCooldownMs }),
    ...(options.traceExportDelayMs !== undefined && { traceExportDelayMs: options.traceExportDelayMs }),
    ...(options.upstreamTransports && { upstreamTransports: options.upstreamTransports }),
    ...(options.connectLinkSeconds !== undefined && { connectLinkSeconds: options.connectLinkSeconds }),
    ...(configFile !== undefined && {
      reload: { file: configFile, load: () => loadConfig(configFile, {}), ...(options.watchConfig === false && { watch: false }) },
    }),
  });
  return Object.assign(gateway, { logs, rewriteConfig });
}
