#!/usr/bin/env node
// The `switchboard` command. Exit codes: 0 ok, 1 invalid config or a failed run, 2 bad command line
// (`lock` has its own: cli/lock.ts).
import { parseCommandLine, USAGE } from './cli/args.js';
import { runLockCommand } from './cli/lock.js';
import { serveUntilSignalled } from './cli/serve.js';
import { summariseConfig } from './cli/summary.js';
import { ConfigError, loadConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { chooseLogFormat, type LogFormat } from './observe/log-format.js';
import { createLogger, type Logger } from './observe/logger.js';
import { redactText } from './observe/redact-text.js';
import { loadPins } from './pinning/load.js';
import { GATEWAY_VERSION } from './version.js';

async function main(args: readonly string[]): Promise<number> {
  const command = parseCommandLine(args, process.env);
  switch (command.kind) {
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case 'version':
      process.stdout.write(`${GATEWAY_VERSION}\n`);
      return 0;
    case 'usage-error':
      process.stderr.write(`switchboard: ${command.message}\n\n${USAGE}\n`);
      return 2;
    case 'validate': {
      const config = await loadOrReport(command.configFile, command.overrides);
      if (config === undefined) return 1;
      process.stdout.write(`${command.configFile}: ok (${summariseConfig(config)})\n`);
      return 0;
    }
    case 'lock': {
      const code = await runLockCommand(command, process.env, {
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
      });
      await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
      // Closed upstream connections may leave keep-alive sockets or exiting children behind a while;
      // the answer is ready now.
      return process.exit(code);
    }
    case 'run': {
      const config = await loadOrReport(command.configFile, command.overrides);
      if (config === undefined) return 1;
      const logger = createLoggerOrReport();
      if (logger === undefined) return 1;
      // The same file, environment and flags again on SIGHUP or when the file changes.
      const reload = { file: command.configFile, load: () => loadConfig(command.configFile, process.env, command.overrides) };
      const code = await serveUntilSignalled(config, logger, reload);
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
      // A stopped gateway may still hold handles (an upstream child that ignores its signal, a
      // socket being torn down); the exit code is the contract, not the event loop's opinion.
      return process.exit(code);
    }
  }
}

/** The config, or undefined after printing every problem to stderr (the lock file's too, when pinning is on). */
async function loadOrReport(file: string, overrides: Parameters<typeof loadConfig>[2]): Promise<Config | undefined> {
  try {
    const config = await loadConfig(file, process.env, overrides);
    await loadPins(config);
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.format()}\n`);
    return undefined;
  }
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

function createLoggerOrReport(): Logger | undefined {
  let format: LogFormat;
  try {
    format = chooseLogFormat(process.env.LOG_FORMAT, process.stdout.isTTY === true);
  } catch (error) {
    process.stderr.write(`switchboard: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
  try {
    return createLogger({ format });
  } catch (error) {
    // pino rejects an unknown LOG_LEVEL by throwing; say which setting it was.
    process.stderr.write(`switchboard: LOG_LEVEL: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // exitCode rather than exit(): output to a pipe may still be on its way.
    process.exitCode = code;
  },
  (error: unknown) => {
    // Not through the logger, so through its redaction here (redact-text.ts).
    process.stderr.write(`switchboard: ${redactText(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
    process.exit(1);
  },
);
