// Session-isolated servers that a list went without: a caller's connection that did not answer
// within the list's bound (isolated-servers.ts, lists), or could not be had. The list goes on
// without the server for that caller, as it does without a shared upstream that is down. Told once
// per spell (from the first list that went without the server to the first that had it again), not
// once per request: a hanging upstream would otherwise log a line for every request of every
// session. Shown in /readyz and on the status page while the spell lasts.
import type { Logger } from '../../observe/logger.js';
import { toRpcError } from '../errors.js';

/** Waited for a list past its bound: the fetch goes on, and a later list gets it if it answers. */
export const LATE = Symbol('late');

export interface LeftOutServer {
  /** When its spell began (ISO 8601). */
  readonly since: string;
  /** Why, as the last list that went without it saw it. */
  readonly reason: string;
}

export class LeftOutServers {
  readonly #spells = new Map<string, { since: Date; reason: string }>();

  constructor(private readonly logger: Logger) {}

  /** `lists`, or LATE once `boundMs` passed first. */
  within<T>(lists: Promise<T>, boundMs: number): Promise<T | typeof LATE> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), boundMs)));
    return Promise.race([lists, late]).finally(() => clearTimeout(timer));
  }

  /** A list went without the server (`why`: LATE after `boundMs`, or the error). */
  leftOut(server: string, why: unknown, boundMs: number): void {
    const reason = why === LATE ? `it did not answer a list within ${boundMs} ms` : toRpcError(why).message;
    const spell = this.#spells.get(server);
    if (spell) {
      spell.reason = reason;
      return;
    }
    this.#spells.set(server, { since: new Date(), reason });
    this.logger.warn({ server, err: reason }, 'a session-isolated upstream is left out of lists until it answers');
  }

  /** A list had the server: its spell, if any, is over. */
  answered(server: string): void {
    if (this.#spells.size === 0 || !this.#spells.delete(server)) return;
    this.logger.info({ server }, 'a session-isolated upstream answers lists again');
  }

  report(): Readonly<Record<string, LeftOutServer>> {
    return Object.fromEntries([...this.#spells].map(([server, { since, reason }]) => [server, { since: since.toISOString(), reason }]));
  }
}
