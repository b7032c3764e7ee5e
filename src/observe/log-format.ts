// How log lines look: JSON for machines (a pipe, a file, a container's log collector), readable
// lines for a person at a terminal. The readable form is made from the JSON line pino has already
// written and censored (redact.ts), so it can show nothing the JSON would not; the JSON path
// (logger.ts's batched stdout) does not change.
import { createRequire } from 'node:module';
import type { prettyFactory } from 'pino-pretty';

export type LogFormat = 'json' | 'pretty';

const FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/**
 * `LOG_FORMAT` when set (`json` or `pretty`), else readable lines on a terminal and JSON anywhere
 * else. Throws on any other value: a misspelt setting should not quietly change what a log
 * collector receives.
 */
export function chooseLogFormat(setting: string | undefined, stdoutIsTerminal: boolean): LogFormat {
  if (setting === undefined || setting === '') return stdoutIsTerminal ? 'pretty' : 'json';
  const format = setting.trim().toLowerCase();
  if ((FORMATS as readonly string[]).includes(format)) return format as LogFormat;
  throw new Error(`LOG_FORMAT must be ${FORMATS.join(' or ')}, not ${JSON.stringify(setting)}`);
}

export interface PrettyOptions {
  /** ANSI colours; by default when `out` is a terminal that takes them (NO_COLOR, FORCE_COLOR). */
  colorize?: boolean;
}

/**
 * A pino destination that writes each line readable, at once, in this thread (pino-pretty's
 * formatter, not its worker transport): on a terminal a log line shows when it is written, and
 * nothing is left in a buffer when the process exits. pino-pretty is loaded here, on first use, so
 * a gateway logging JSON never loads it.
 */
export function prettyLines(out: NodeJS.WritableStream = process.stdout, { colorize }: PrettyOptions = {}): PrettyDestination {
  const require = createRequire(import.meta.url);
  const pretty = require('pino-pretty') as { prettyFactory: typeof prettyFactory };
  const prettify = pretty.prettyFactory({
    ...(colorize !== undefined && { colorize }),
    // One line per entry, its fields after the message; pid and service are the same on every line.
    singleLine: true,
    ignore: 'pid,service,hostname',
    translateTime: 'SYS:HH:MM:ss.l',
  });
  return {
    write(line: string): boolean {
      out.write(prettify(line));
      return true;
    },
    flush(callback?: (error?: Error) => void): void {
      out.write('', () => callback?.());
    },
  };
}

export interface PrettyDestination {
  write(line: string): boolean;
  flush(callback?: (error?: Error) => void): void;
}
