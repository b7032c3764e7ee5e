// JSON lines on stdout (pino). Secrets never reach a log line: the paths below are redacted
// wherever they appear, and callers log ids and names, never arguments or tokens.
import { pino, type Logger } from 'pino';

export type { Logger };

const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.authorization',
  'token',
  '*.token',
  'password',
  '*.password',
];

export interface LoggerOptions {
  level?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read what was logged. */
  destination?: NodeJS.WritableStream;
}

export function createLogger({ level = process.env.LOG_LEVEL ?? 'info', destination }: LoggerOptions = {}): Logger {
  return pino(
    {
      name: 'switchboard',
      level,
      base: { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
