// Whether the shared store serves, and if not, what kind of outage it is in: logged once when the
// outage begins and once when it ends, read by /readyz and the switchboard_session_store_up gauge.
//
// Why a probe ends an outage, and not the next command that succeeds: a read succeeds on a node
// that was demoted (READONLY) or is out of memory (OOM), while every write, so every initialize and
// every session read (which slides the idle timeout), is refused. So while an outage lasts, a small
// write (SET with a short expiry) is tried every PROBE_INTERVAL_MS; the outage ends when one is
// acknowledged, which no kind of outage lets through. The commands that fail meanwhile report to
// `failed`, which begins an outage but never logs a second line for one under way.
import { ReplyError } from 'ioredis';
import { RedisStuckError } from './redis-connection.js';
import type { Logger } from '../observe/logger.js';

/**
 * - `down`: no connection (refused, reset, closed): killed, restarting, unreachable.
 * - `frozen`: connected, but commands go unanswered past their deadline (SIGSTOP, a stalled host).
 * - `read-only`: the node answers READONLY (demoted to a replica behind the same address).
 * - `out-of-memory`: it answers OOM (maxmemory reached with a policy that does not evict).
 * - `refusing`: another "not now" reply (LOADING, MASTERDOWN, BUSY, MISCONF, ...), named in the log.
 */
export type OutageKind = 'down' | 'frozen' | 'read-only' | 'out-of-memory' | 'refusing';

export type StoreState =
  | { readonly state: 'answering' }
  | { readonly state: 'outage'; readonly kind: OutageKind; /** ISO 8601 */ readonly since: string; readonly reason: string };

export const ANSWERING: StoreState = Object.freeze({ state: 'answering' });

const PROBE_INTERVAL_MS = 500;

/** The kind of outage a failed command says the store is in. */
export function outageKindOf(error: unknown): OutageKind {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ReplyError) {
    if (message.startsWith('READONLY')) return 'read-only';
    if (message.startsWith('OOM')) return 'out-of-memory';
    return 'refusing';
  }
  // ioredis' commandTimeout: the connection is up and the command was sent, but nothing came back;
  // or a command refused unsent because another one to the same Redis timed out first (the rate
  // limits' connection may meet a freeze before the store's).
  if (message === 'Command timed out' || error instanceof RedisStuckError) return 'frozen';
  return 'down';
}

export interface StoreOutagesOptions {
  /** Redis, described without a password (redis-target.ts describeRedis). */
  readonly where: string;
  readonly logger?: Pick<Logger, 'info' | 'warn'> | undefined;
  /** A write every kind of outage refuses (see above); resolves when it was acknowledged. */
  readonly probe: () => Promise<unknown>;
  readonly probeIntervalMs?: number;
}

export class StoreOutages {
  readonly #options: StoreOutagesOptions;
  #current: { readonly kind: OutageKind; readonly since: number; readonly reason: string } | undefined;
  #timer: NodeJS.Timeout | undefined;
  #probing = false;
  #closed = false;

  constructor(options: StoreOutagesOptions) {
    this.#options = options;
  }

  get state(): StoreState {
    const current = this.#current;
    if (current === undefined) return ANSWERING;
    return { state: 'outage', kind: current.kind, since: new Date(current.since).toISOString(), reason: current.reason };
  }

  /** A command (or the connection) failed because the store did not serve it: begins an outage unless one is under way. */
  failed(error: unknown): void {
    if (this.#current !== undefined || this.#closed) return;
    const kind = outageKindOf(error);
    const reason = error instanceof Error ? error.message : String(error);
    this.#current = { kind, since: Date.now(), reason };
    this.#options.logger?.warn({ redis: this.#options.where, outage: kind, err: reason }, 'session store outage began');
    this.#timer = setInterval(() => this.probeNow(), this.#options.probeIntervalMs ?? PROBE_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Probes at once (a reconnect, say), rather than at the next interval; nothing while the store serves. */
  probeNow(): void {
    if (this.#current === undefined || this.#probing) return;
    this.#probing = true;
    this.#options.probe().then(
      () => {
        this.#probing = false;
        this.#ended();
      },
      () => {
        // Still out: the outage keeps the kind it began with, so that its two lines match.
        this.#probing = false;
      },
    );
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }

  #ended(): void {
    const current = this.#current;
    if (current === undefined || this.#closed) return;
    this.#current = undefined;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#options.logger?.info({ redis: this.#options.where, outage: current.kind, durationMs: Date.now() - current.since }, 'session store outage ended');
  }
}
