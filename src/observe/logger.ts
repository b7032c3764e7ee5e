// JSON lines on stdout (pino). Secrets never reach a log line: redact.ts censors credentials
// wherever they appear, and callers log ids and names, never arguments or tokens. The lines about
// one HTTP request (access, audit, a failure) carry its request id, passed to them explicitly.
import { pino, type Logger } from 'pino';
import { redactSecrets } from './redact.js';

export type { Logger };

export interface LoggerOptions {
  level?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read what was logged. */
  destination?: NodeJS.WritableStream;
}

export function createLogger({ level = process.env.LOG_LEVEL ?? 'info', destination }: LoggerOptions = {}): Logger {
  const logger = pino(
    {
      level,
      // Not pino's `name`: audit lines carry the contract's own `name` (the tool, prompt or URI),
      // and two "name" keys in one line would leave readers to guess which one counts.
      base: { pid: process.pid, service: 'switchboard' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: redactSecrets,
      },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
  // pino writes a child's bindings without the log formatter, so they are censored on the way in.
  // Children are created from their parent's prototype, so theirs inherit this one.
  const pinoChild = logger.child;
  logger.child = function childWithoutSecrets(this: Logger, bindings, options) {
    return pinoChild.call(this, redactSecrets(bindings), options);
  } as Logger['child'];
  return logger;
}
