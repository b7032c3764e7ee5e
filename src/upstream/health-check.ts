// Periodic pings on a live connection (MCP `ping`, or `server/discover` on a 2026-07-28 upstream,
// whose era has no ping), so an upstream that hangs (a wedged process, a server behind a dead
// load balancer) is noticed before a client's call runs into its timeout. One ping at a time; the
// next is scheduled after the previous one ends, so a slow upstream is never sent a pile of them.
import { UpstreamRpcError } from './errors.js';

export interface PingOptions {
  /** Time between the end of one ping and the start of the next. */
  readonly intervalMs: number;
  /** A ping without an answer after this long counts as failed. */
  readonly timeoutMs: number;
}

export const DEFAULT_PING: PingOptions = { intervalMs: 30_000, timeoutMs: 10_000 };

/**
 * Pings until stopped or until one fails; then calls onFailure once and stops. `ping` must reject
 * when the upstream did not answer; an error answer (a server without ping) proves it is alive.
 * Returns stop().
 */
export function startPinging(ping: (timeoutMs: number) => Promise<unknown>, options: PingOptions, onFailure: (reason: string) => void): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    timer = setTimeout(() => void once(), options.intervalMs);
    timer.unref();
  };
  const once = async (): Promise<void> => {
    try {
      await ping(options.timeoutMs);
    } catch (error) {
      if (stopped) return;
      if (!(error instanceof UpstreamRpcError)) {
        stopped = true;
        onFailure(`ping failed: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
    }
    if (!stopped) schedule();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
