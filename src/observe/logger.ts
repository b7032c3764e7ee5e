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

/**
 * Lines to stdout in batches of 12 KB, and at least every FLUSH_MS: two lines per tool call
 * (access and audit) written one by one were two write syscalls per call, ~7% of the gateway's CPU
 * under load (bench profile), and 4 KB batches still cost ~4% (a write per ~15 calls). sonic-boom
 * wants the batch below its largest write (16 KB). The CLI flushes on exit; a crash may lose the
 * last FLUSH_MS of lines.
 */
const FLUSH_BYTES = 12 * 1024;
const FLUSH_MS = 100;

function bufferedStdout(): ReturnType<typeof pino.destination> {
  const stream = pino.destination({ dest: 1, sync: false, minLength: FLUSH_BYTES });
  setInterval(() => stream.flush(), FLUSH_MS).unref();
  return stream;
}

/**
 * pino's isoTime, formatted once per millisecond: under load several lines share a millisecond,
 * and toISOString was ~2% of the gateway's CPU per call (bench profile).
 */
let stampedAt = -1;
let stamp = '';
function isoTimeOncePerMillisecond(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = `,"time":"${new Date(now).toISOString()}"`;
  }
  return stamp;
}

export function createLogger({ level = process.env.LOG_LEVEL ?? 'info', destination }: LoggerOptions = {}): Logger {
  const logger = pino(
    {
      level,
      // Not pino's `name`: audit lines carry the contract's own `name` (the tool, prompt or URI),
      // and two "name" keys in one line would leave readers to guess which one counts.
      base: { pid: process.pid, service: 'switchboard' },
      timestamp: isoTimeOncePerMillisecond,
      formatters: {
        level: (label) => ({ level: label }),
        log: redactSecrets,
      },
    },
    destination ?? bufferedStdout(),
  );
  // pino writes a child's bindings without the log formatter, so they are censored on the way in.
  // Children are created from their parent's prototype, so theirs inherit this one.
  const pinoChild = logger.child;
  logger.child = function childWithoutSecrets(this: Logger, bindings, options) {
    return pinoChild.call(this, redactSecrets(bindings), options);
  } as Logger['child'];
  return logger;
}
