// What the environment and the command line change in a config file, in the contract's order:
// the file, then PORT/HOST/REDIS_URL/SWITCHBOARD_STATE_SECRET, then --host/--port. Each override remembers where it came
// from, so that a bad `PORT=abc` is reported as PORT's fault, not the file's.
import { formatKeyPath, isPlainObject } from './key-path.js';

/** Command-line flags that win over both the file and the environment. */
export interface ConfigOverrides {
  host?: string;
  port?: number;
}

interface Override {
  readonly section: 'server' | 'sessions' | 'mrtr';
  readonly key: string;
  readonly value: unknown;
  readonly source: string;
}

export interface AppliedOverrides {
  readonly tree: Record<string, unknown>;
  /** Formatted key path -> what set it (`environment variable PORT`, `--port`). */
  readonly sources: ReadonlyMap<string, string>;
}

export function applyOverrides(
  tree: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  flags: ConfigOverrides = {},
): AppliedOverrides {
  const overrides: Override[] = [];
  const fromEnv = (name: string, section: Override['section'], key: string): void => {
    const value = env[name];
    // An empty variable (`PORT=` in a compose file) means "not set", as in most tools.
    if (value !== undefined && value !== '') overrides.push({ section, key, value, source: `environment variable ${name}` });
  };
  fromEnv('HOST', 'server', 'host');
  fromEnv('PORT', 'server', 'port');
  fromEnv('REDIS_URL', 'sessions', 'redisUrl');
  // Replicas must share it, and a secret belongs in the environment (or a mounted Secret) rather than the file.
  fromEnv('SWITCHBOARD_STATE_SECRET', 'mrtr', 'stateSecret');
  if (flags.host !== undefined) overrides.push({ section: 'server', key: 'host', value: flags.host, source: '--host' });
  if (flags.port !== undefined) overrides.push({ section: 'server', key: 'port', value: flags.port, source: '--port' });

  const result: Record<string, unknown> = { ...tree };
  const sources = new Map<string, string>();
  for (const { section, key, value, source } of overrides) {
    const current = result[section] ?? {};
    // A section of the wrong type is left for the schema to report.
    if (!isPlainObject(current)) continue;
    result[section] = { ...current, [key]: value };
    sources.set(formatKeyPath([section, key]), source);
  }
  return { tree: result, sources };
}
