// The command line as data: parsing never prints or exits, so cli.ts alone decides what the user
// sees and with which exit code (0 ok, 1 bad config or failure, 2 bad command line; `lock` has its
// own, see cli/lock.ts).
import { parseArgs } from 'node:util';
import type { ConfigOverrides } from '../config/load.js';

export const DEFAULT_CONFIG_FILE = 'config/switchboard.yaml';

export const USAGE = `Usage:
  switchboard [--config FILE] [--host ADDR] [--port N]   run the gateway
  switchboard validate [--config FILE | FILE]             check a config file, then exit
  switchboard lock [--config FILE | FILE] [--lock FILE]   pin the upstreams' tool definitions: write the lock file
  switchboard lock --check [--config FILE | FILE] [--lock FILE]
                                                          compare the upstreams with the lock file, print the
                                                          differences; exit 0 when they match, 1 when not,
                                                          2 when the config, lock file or an upstream fails
  switchboard --help | --version

Options:
  -c, --config FILE   the config file: YAML, or JSON when it ends in .json
                      (default: $SWITCHBOARD_CONFIG, else ${DEFAULT_CONFIG_FILE})
      --host ADDR     address to listen on; overrides server.host and HOST
      --port N        port to listen on; overrides server.port and PORT
      --lock FILE     the lock file (default: pinning.lockFile, which defaults to the config
                      file's name with .lock.yaml, beside it)
      --check         with lock: compare instead of writing
  -h, --help          show this help
      --version       print the version

Environment:
  PORT, HOST          override server.port and server.host
  REDIS_URL           sets sessions.redisUrl (and so the Redis session store)
  LOG_LEVEL           pino log level (default info)
  LOG_FORMAT          json or pretty; by default readable lines on a terminal, JSON lines otherwise
  SWITCHBOARD_CONFIG  the config file when --config is not given`;

export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'run' | 'validate'; readonly configFile: string; readonly overrides: ConfigOverrides }
  | {
      readonly kind: 'lock';
      readonly configFile: string;
      readonly overrides: ConfigOverrides;
      /** --lock: instead of the config's pinning.lockFile. */
      readonly lockFile?: string;
      readonly check: boolean;
    }
  | { readonly kind: 'usage-error'; readonly message: string };

export function parseCommandLine(args: readonly string[], env: NodeJS.ProcessEnv): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string', short: 'c' },
        host: { type: 'string' },
        port: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
        lock: { type: 'string' },
        check: { type: 'boolean' },
      },
    });
  } catch (error) {
    // parseArgs' first sentence names the option; the rest is advice about "--" that misleads here.
    const message = error instanceof Error ? error.message : String(error);
    return usageError(message.split('. ')[0] ?? message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const [command, ...operands] = positionals;
  if (command !== undefined && command !== 'validate' && command !== 'lock') return usageError(`unknown command "${command}"`);
  if (command === undefined && operands.length > 0) return usageError(`unexpected argument "${operands[0]}"`);
  if (operands.length > 1) return usageError(`${command} takes one config file`);
  if (command !== 'lock' && values.lock !== undefined) return usageError('--lock goes with the lock command');
  if (command !== 'lock' && values.check !== undefined) return usageError('--check goes with the lock command');
  if (values.lock === '') return usageError('--lock: expected a file name');
  const [fileOperand] = operands;
  if (fileOperand !== undefined && values.config !== undefined) {
    return usageError(`give the config file once: either --config FILE or ${command} FILE`);
  }

  const configFile = fileOperand ?? values.config ?? (env.SWITCHBOARD_CONFIG || DEFAULT_CONFIG_FILE);
  if (configFile === '') return usageError('--config: expected a file name');
  const overrides: ConfigOverrides = {};
  if (values.host !== undefined) {
    if (values.host === '') return usageError('--host: expected an address');
    overrides.host = values.host;
  }
  if (values.port !== undefined) {
    const port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN;
    if (!(port <= 65_535)) return usageError(`--port: expected a port number (0-65535), got "${values.port}"`);
    overrides.port = port;
  }
  if (command === 'lock') {
    return { kind: 'lock', configFile, overrides, ...(values.lock !== undefined && { lockFile: values.lock }), check: values.check === true };
  }
  return { kind: command === 'validate' ? 'validate' : 'run', configFile, overrides };
}

function usageError(message: string): Command {
  return { kind: 'usage-error', message };
}
