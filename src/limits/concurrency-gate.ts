// At most `maxConcurrent` calls at once, the next `maxQueued` waiting in line (first come, first
// served) for at most `queueTimeoutMs` each, and anything beyond refused at once: a slow upstream
// is not flooded, and a caller learns quickly that it is busy instead of hanging. A slot is held
// from `acquire` until its release, which the caller makes in a `finally`, so an error or a
// cancellation frees it; releasing twice frees it once. A waiter that is cancelled leaves the line.
// Counts live in this process: a cap per replica. Pure apart from its timers.
import type { Cancellation } from '../protocol/cancellation.js';
import { TransientMap } from '../support/transient-map.js';

export interface GateLimits {
  readonly maxConcurrent: number;
  /** How many may wait for a slot; 0 refuses at once when all slots are taken. */
  readonly maxQueued: number;
  /** How long one may wait before it is refused. */
  readonly queueTimeoutMs: number;
}

export type GateRefusal = 'queue-full' | 'queue-timeout';

/** Why `acquire` gave no slot: the line was full, or the wait was too long. */
export class GateRefusedError extends Error {
  constructor(
    readonly reason: GateRefusal,
    readonly limits: GateLimits,
  ) {
    super(reason === 'queue-full' ? 'all slots are taken and the queue is full' : `no slot was freed within ${limits.queueTimeoutMs} ms`);
    this.name = 'GateRefusedError';
  }
}

/** The waiter's own caller gave up while it waited in line. */
export class GateCancelledError extends Error {
  constructor() {
    super('cancelled while waiting for a slot');
    this.name = 'GateCancelledError';
  }
}

export type Release = () => void;

interface Waiter {
  readonly admit: (release: Release) => void;
  readonly refuse: (error: Error) => void;
  /** Stops listening for the caller's cancellation, once it has left the line. */
  stopListening?: (() => void) | undefined;
}

export class ConcurrencyGate {
  #limits: GateLimits;
  #active = 0;
  // Insertion-ordered and O(1) to remove from: a waiter that times out or is cancelled leaves from
  // anywhere in the line. Keyed by ticket in a TransientMap rather than a Set of waiters: under a
  // saturated cap every call waits here, and a Set keeps them alive (support/transient-map.ts).
  readonly #waiting = new TransientMap<number, Waiter>();
  #lastTicket = 0;

  constructor(limits: GateLimits) {
    assertGateLimits(limits);
    this.#limits = limits;
  }

  /** Calls holding a slot. */
  get active(): number {
    return this.#active;
  }

  /** Calls waiting for one. */
  get queued(): number {
    return this.#waiting.size;
  }

  get limits(): GateLimits {
    return this.#limits;
  }

  /**
   * A slot, at once when one is free, else after waiting in line. Rejects with GateRefusedError
   * (line full, or waited too long) or GateCancelledError (`cancel` fired while waiting).
   */
  acquire(cancel?: Cancellation): Promise<Release> {
    if (this.#active < this.#limits.maxConcurrent) {
      this.#active += 1;
      return Promise.resolve(this.#releaser());
    }
    if (this.#waiting.size >= this.#limits.maxQueued) return Promise.reject(new GateRefusedError('queue-full', this.#limits));
    const limits = this.#limits;
    const ticket = ++this.#lastTicket;
    return new Promise<Release>((resolve, reject) => {
      const leave = () => {
        this.#waiting.delete(ticket);
        clearTimeout(timer);
        waiter.stopListening?.();
      };
      const waiter: Waiter = {
        admit: (release) => {
          leave();
          resolve(release);
        },
        refuse: (error) => {
          leave();
          reject(error);
        },
      };
      this.#waiting.set(ticket, waiter);
      const timer = setTimeout(() => waiter.refuse(new GateRefusedError('queue-timeout', limits)), limits.queueTimeoutMs);
      timer.unref();
      // Last: a cancellation that has already happened calls back at once, and the waiter must exist by then.
      waiter.stopListening = cancel?.onCancel(() => waiter.refuse(new GateCancelledError()));
    });
  }

  /**
   * New limits (a config reload). A raised cap admits waiters at once; a lowered one lets the
   * calls in progress finish and admits no one until they are under it. Waiters already in line
   * keep their place and their deadline.
   */
  reconfigure(limits: GateLimits): void {
    assertGateLimits(limits);
    this.#limits = limits;
    this.#admitWaiters();
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active -= 1;
      this.#admitWaiters();
    };
  }

  #admitWaiters(): void {
    for (const waiter of this.#waiting.values()) {
      if (this.#active >= this.#limits.maxConcurrent) return;
      this.#active += 1;
      waiter.admit(this.#releaser());
    }
  }
}

function assertGateLimits({ maxConcurrent, maxQueued, queueTimeoutMs }: GateLimits): void {
  // Infinity is a cap that never binds (a server whose cap a reload removed, while calls still wait).
  if (!(maxConcurrent === Number.POSITIVE_INFINITY || (Number.isSafeInteger(maxConcurrent) && maxConcurrent >= 1))) {
    throw new Error(`maxConcurrent must be a positive integer, not ${maxConcurrent}`);
  }
  if (!Number.isSafeInteger(maxQueued) || maxQueued < 0) throw new Error(`maxQueued must be a non-negative integer, not ${maxQueued}`);
  if (!Number.isSafeInteger(queueTimeoutMs) || queueTimeoutMs < 1) throw new Error(`queueTimeoutMs must be a positive integer, not ${queueTimeoutMs}`);
}
