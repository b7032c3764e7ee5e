// JSON lines on stdout (pino), or readable lines for a person at a terminal (log-format.ts). Secrets never reach a log line: redact.ts censors credentials
// wherever they appear, and callers log ids and names, never arguments or tokens. The lines about
// one HTTP request (access, audit, a failure) carry its request id, passed to them explicitly.
import { pino, type Logger } from 'pino';
import { prettyLines, type LogFormat } from './log-format.js';
import { redactSecrets } from './redact.js';
import { redactText } from './redact-text.js';

export type { Logger };

export interface LoggerOptions {
  level?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read what was logged. */
  destination?: NodeJS.WritableStream;
  /** JSON lines (the default), or readable ones written to `destination` (stdout by default). */
  format?: LogFormat;
}

/**
 * Lines to stdout in batches of up to 64 KB, and at least every FLUSH_MS: one write syscall per line
 * was a visible share of the gateway's CPU under load. The lines are gathered here and joined once
 * per batch, not in sonic-boom's own buffer (its `minLength`): its write() measures the byte length
 * of the whole pending buffer for every line it appends, so each batch cost time in proportion to
 * the square of its size. Each batch is one write on libuv's thread pool, and on two busy cores
 * waking that thread costs the main thread far more than the write, so larger batches cost less
 * per line. 64 KB is also what an empty pipe takes in one write (Linux's default pipe size), as
 * stdout is under Kubernetes. See docs/decisions/0013-batched-log-writes.md.
 * The CLI flushes on exit, and sonic-boom writes what it holds when the process exits; a crash may
 * lose the last FLUSH_MS of lines.
 */
const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 100;

class BatchedDestination {
  #lines: string[] = [];
  #chars = 0;

  constructor(private readonly sink: ReturnType<typeof pino.destination>) {
    setInterval(() => this.#pass(), FLUSH_MS).unref();
  }

  write(line: string): boolean {
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= FLUSH_BYTES) this.#pass();
    return true;
  }

  /** pino's logger.flush(cb): everything gathered, out now. */
  flush(callback?: (error?: Error) => void): void {
    this.#pass();
    this.sink.flush(callback);
  }

  flushSync(): void {
    this.#pass();
    this.sink.flushSync();
  }

  #pass(): void {
    if (this.#lines.length === 0) return;
    const text = this.#lines.join('');
    this.#lines = [];
    this.#chars = 0;
    this.sink.write(text);
  }
}

function bufferedStdout(): BatchedDestination {
  // minLength 1, not 0: sonic-boom writes each batch at once either way, but only with a minLength
  // does flush(cb) wait for the writes under way before calling back (the CLI's flush on exit).
  return new BatchedDestination(pino.destination({ dest: 1, sync: false, minLength: 1 }));
}

/**
 * pino's isoTime, formatted once per millisecond: under load several lines share a millisecond,
 * and toISOString showed in a profile of the gateway. Even once per millisecond it still showed (at
 * 50 calls in flight a millisecond has only a handful of lines), so the text up to the second is
 * made once per second and each millisecond adds its three digits
 * (docs/decisions/0013-batched-log-writes.md).
 */
const MILLISECONDS = Array.from({ length: 1000 }, (_, ms) => String(ms).padStart(3, '0'));
let stampedAt = -1;
let stamp = '';
let stampedSecond = Number.NaN;
let secondText = '';
export function isoTimeOncePerMillisecond(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    const second = Math.floor(now / 1000);
    if (second !== stampedSecond) {
      stampedSecond = second;
      // `2026-11-26T06:53:01.` whatever the year's width: the ISO text less its `000Z`.
      secondText = `,"time":"${new Date(second * 1000).toISOString().slice(0, -4)}`;
    }
    stamp = `${secondText}${MILLISECONDS[now - second * 1000]!}Z"`;
  }
  return stamp;
}

/**
 * Info lines written as pino writes them for `logger` (its level, time, bindings, and "msg" last),
 * from fields the caller has already written as JSON: for the line the gateway writes per call,
 * the audit line (audit.ts), whose fixed shape pino would walk key by key, through the redaction
 * walk too (docs/decisions/0006-preformatted-audit-lines.md). Only for fields that can never
 * hold a secret: nothing here censors (redact.ts). test/unit/preformatted-lines.test.ts holds the
 * lines to pino's.
 */
export interface PreformattedLines {
  /** `fields`: JSON members without braces, e.g. `"audit":true,"method":"tools/call"`. */
  info(fields: string, msg: string): void;
}

export function preformattedLines(logger: Logger): PreformattedLines {
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as { write(line: string): unknown };
  // The message is the same on every line of a caller (`audit`): quoted once, not per line.
  let lastMsg: string | undefined;
  let quotedMsg = '';
  return {
    info(fields, msg) {
      if (!logger.isLevelEnabled('info')) return;
      if (msg !== lastMsg) {
        lastMsg = msg;
        quotedMsg = JSON.stringify(msg);
      }
      // The logger's bindings as pino keeps them, already JSON (`,"pid":1,"service":"switchboard"`);
      // read each time, as pino does, since setBindings may change them.
      const bindings = internals[pino.symbols.chindingsSym] as string;
      stream.write(`{"level":"info"${isoTimeOncePerMillisecond()}${bindings},${fields},"msg":${quotedMsg}}\n`);
    },
  };
}

/** pino's own form of an Error (type, message, stack, causes), its text redacted: a copy, never the caller's. */
function redactedError(error: unknown): unknown {
  const serialized: unknown = pino.stdSerializers.err(error as Error);
  if (typeof serialized === 'string') return redactText(serialized);
  // pino's form has a prototype of its own; a plain copy is what the walk reads.
  return typeof serialized === 'object' && serialized !== null ? redactSecrets({ ...serialized }) : serialized;
}

export function createLogger({ level = process.env.LOG_LEVEL ?? 'info', destination, format = 'json' }: LoggerOptions = {}): Logger {
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
      // The message and a logged Error are written after the formatter, each through its serializer:
      // their text passes the same redaction (an error's message and stack may quote a URL or a key).
      serializers: {
        msg: (msg: unknown) => (typeof msg === 'string' ? redactText(msg) : msg),
        err: redactedError,
      },
    },
    format === 'pretty' ? prettyLines(destination) : (destination ?? bufferedStdout()),
  );
  // pino writes a child's bindings without the log formatter, so they are censored on the way in.
  // Children are created from their parent's prototype, so theirs inherit this one.
  const pinoChild = logger.child;
  logger.child = function childWithoutSecrets(this: Logger, bindings, options) {
    return pinoChild.call(this, redactSecrets(bindings), options);
  } as Logger['child'];
  return logger;
}
