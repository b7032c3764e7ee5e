// Which HTTP request a log line was written for, without handing a logger down through every call:
// the HTTP layer serves each request inside a context, and the logger (logger.ts) adds its fields
// to every line written meanwhile, from gateway/ and upstream/ code too, which knows nothing of
// HTTP. Lines written outside any request (startup, an upstream that crashed, pings) carry none.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface LogContext {
  readonly requestId: string;
  /** The shortened Mcp-Session-Id (never the whole id, which is a credential). */
  readonly session?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

export function runWithLogContext<T>(context: LogContext, run: () => T): T {
  return storage.run(context, run);
}

/** A fresh object each time: pino merges the line's own fields into what the mixin returns. */
export function logContextFields(): Record<string, string> {
  const context = storage.getStore();
  return context === undefined ? {} : { ...context };
}
